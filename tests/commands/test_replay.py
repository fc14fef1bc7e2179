"""`waiver replay` on real pytest runs, shard layouts as the artifact actions leave them, and
the reusable workflow that runs replays by shards as matrix jobs."""

from __future__ import annotations

import contextlib
import os
import pty
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from support import REPO, classes, gate_args, git, load_report
from waiver.cli import main
from waiver.gate.pipeline import NO_REGISTRY_BLOCKS

WORKFLOW = REPO / ".github" / "workflows" / "waiver-gate.yml"

SUITE = """\
import os
from pathlib import Path

HERE = Path(__file__).parent


def test_stable():
    assert True


def test_flips():
    # Fails on odd replays, by a counter file: replays 1, 3 and 5.
    counter = HERE / "counter.txt"
    count = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(count))
    assert count % 2 == 0


def test_always_fails():
    assert False


def test_sees_its_replay():
    with open(HERE / "seen.txt", "a") as seen:
        seen.write(f"{os.environ['WAIVER_REPLAY']} {os.environ['WAIVER_JUNIT']}\\n")
"""

# Runs the suite once, with the report path from {junit}; crashes after writing its report
# on the replay named by CRASH_ON, so the report of a crashed replay exists but must not count.
DRIVER = """\
import os, signal, sys
import pytest

if sys.argv[1] != os.environ["WAIVER_JUNIT"]:
    sys.exit("{junit} and WAIVER_JUNIT differ")
code = pytest.main(["-q", "-p", "no:cacheprovider", "tests", "--junitxml=" + sys.argv[1]])
if os.environ.get("CRASH_ON") == os.environ["WAIVER_REPLAY"]:
    os.kill(os.getpid(), signal.SIGKILL)
sys.exit(code)
"""

IDS = {
    "stable": "tests/test_suite.py::test_stable",
    "flips": "tests/test_suite.py::test_flips",
    "fails": "tests/test_suite.py::test_always_fails",
    "sees": "tests/test_suite.py::test_sees_its_replay",
}


def _timings(text: str) -> str:
    return re.sub(r"\d+\.\d s", "T s", text)


def _pytest(*args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]


def _write_repo(root: Path, properties: str = "def test_holds():\n    assert True\n") -> None:
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_suite.py").write_text(SUITE)
    (root / "properties").mkdir()
    (root / "properties" / "test_props.py").write_text(properties)
    (root / "run_suite.py").write_text(DRIVER)
    (root / "fixtures").mkdir()
    (root / "fixtures" / "data.json").write_text('{"n": 1}\n')
    with contextlib.chdir(root):
        assert main(["lock", "--fixtures", "fixtures", "--property-suite", "properties",
                     "--out", "fixture.lock"]) == 0  # fmt: skip


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CRASH_ON", raising=False)
    _write_repo(tmp_path)
    return tmp_path


def _replay(*extra: str) -> int:
    """Five replays of the suite after the property suite, in the current directory."""
    properties = shlex.join(_pytest("properties", "--junitxml={junit}"))
    return main(["replay", "-n", "5", "--out", "reports", "--properties-first", properties,
                 *extra, "--", sys.executable, "run_suite.py", "{junit}"])  # fmt: skip


def _gate(*extra: str, reports: str = "reports", properties: str = "reports/properties.xml") -> int:
    """The gate in the current directory, on the replays `waiver replay` wrote there."""
    here = Path(".")
    return main(gate_args(here, *extra, reports=reports, properties=properties, known_tests=False,
                          summary=True))  # fmt: skip


def _names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


@pytest.mark.slow
def test_five_replays_leave_five_reports_and_the_gate_classifies_them(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _replay() == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert _timings(out) == (
        "waiver: properties: 1 passed, 0 failed, 0 skipped (exit 0, T s)\n"
        "waiver: replay 1 of 5: 2 passed, 2 failed, 0 skipped (exit 1, T s)\n"
        "waiver: replay 2 of 5: 3 passed, 1 failed, 0 skipped (exit 1, T s)\n"
        "waiver: replay 3 of 5: 2 passed, 2 failed, 0 skipped (exit 1, T s)\n"
        "waiver: replay 4 of 5: 3 passed, 1 failed, 0 skipped (exit 1, T s)\n"
        "waiver: replay 5 of 5: 2 passed, 2 failed, 0 skipped (exit 1, T s)\n"
        "waiver: all 5 replays left a report in reports\n"
    )
    assert _names(repo / "reports") == [
        "properties.log", "properties.xml",
        "run-1.log", "run-1.xml", "run-2.log", "run-2.xml", "run-3.log", "run-3.xml",
        "run-4.log", "run-4.xml", "run-5.log", "run-5.xml",
    ]  # fmt: skip
    # Each replay saw its own number, and {junit} and WAIVER_JUNIT named the same path.
    seen = [line.split(" ", 1) for line in (repo / "tests" / "seen.txt").read_text().splitlines()]
    assert [number for number, _ in seen] == ["1", "2", "3", "4", "5"]
    for number, junit in seen:
        assert re.fullmatch(
            rf"{re.escape(str(repo))}/reports/\.scratch-[^/]+/run-{number}\.xml", junit
        )

    assert _gate("--replays", "5") == 1
    report = load_report(repo / "waiver.json")
    assert classes(report) == {
        IDS["fails"]: "stable_assertion_fail",
        IDS["flips"]: "unstable_assertion",
        IDS["sees"]: "stable_pass",
        IDS["stable"]: "stable_pass",
    }
    assert report["replays"] == {"count": 5, "read": 5, "errors": []}
    assert report["properties"]["cases"] == 1


@pytest.mark.slow
def test_a_replay_that_crashes_leaves_no_report_and_its_tests_are_unknown(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRASH_ON", "3")
    assert _replay() == 2
    out, err = capsys.readouterr()
    assert _timings(out).splitlines()[3:5] == [
        "waiver: replay 3 of 5: no report: crashed (killed by SIGKILL) (T s; log reports/run-3.log)",
        "waiver: replay 4 of 5: 3 passed, 1 failed, 0 skipped (exit 1, T s)",
    ]
    assert err == (
        "waiver: error: reports: 1 of 5 replays left no usable report (replay 3); "
        "the gate will classify their tests unknown_test\n"
    )
    # The crashed replay had written its report before it died: that report is gone too.
    assert _names(repo / "reports") == [
        "properties.log", "properties.xml",
        "run-1.log", "run-1.xml", "run-2.log", "run-2.xml", "run-3.log",
        "run-4.log", "run-4.xml", "run-5.log", "run-5.xml",
    ]  # fmt: skip

    assert _gate("--replays", "5") == 1
    report = load_report(repo / "waiver.json")
    assert classes(report) == dict.fromkeys(
        [IDS["fails"], IDS["flips"], IDS["sees"], IDS["stable"]], "unknown_test"
    )
    assert [row["freeze"] for row in report["rows"]] == [None] * 4
    assert report["replays"] == {
        "count": 5,
        "read": 4,
        "errors": [{"replay": 3, "source": "run-3", "problem": "missing"}],
    }


@pytest.mark.parametrize(
    ("script", "problem", "kept"),
    [
        ("pass", "no report: wrote no JUnit report (exit 0)", False),
        (
            "import sys; open(sys.argv[1], 'w').close(); sys.exit(3)",
            "no report: wrote an empty JUnit report (exit 3)",
            False,
        ),
        (
            "import sys; open(sys.argv[1], 'w').write('<testsuites><testsuite>')",
            "report kept: not well-formed XML: no element found (line 1, column 23)",
            True,
        ),
        (
            "import sys; open(sys.argv[1], 'w').write('<testsuites/>')",
            "report kept: ran no test case",
            True,
        ),
    ],
)
def test_a_replay_without_a_usable_report_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], script: str, problem: str, kept: bool
) -> None:
    out_dir = tmp_path / "reports"
    argv = ["replay", "-n", "1", "--out", str(out_dir), "--", sys.executable, "-c", script]
    assert main([*argv, "{junit}"]) == 2
    out, err = capsys.readouterr()
    assert _timings(out) == f"waiver: replay 1 of 1: {problem} (T s; log {out_dir}/run-1.log)\n"
    assert err.startswith(f"waiver: error: {out_dir}: 1 of 1 replays left no usable report")
    expected = ["run-1.log", "run-1.xml"] if kept else ["run-1.log"]
    assert _names(out_dir) == expected


@pytest.mark.slow
def test_a_replay_past_its_timeout_is_ended_with_everything_it_started(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    survived = tmp_path / "survived"
    # The command starts a grandchild that would write `survived` after 1.5 s, then hangs.
    grandchild = tmp_path / "grandchild.py"
    grandchild.write_text(f"import time\ntime.sleep(1.5)\nopen({str(survived)!r}, 'w')\n")
    script = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, {str(grandchild)!r}])\n"
        "time.sleep(60)\n"
    )
    out_dir = tmp_path / "reports"
    started = time.monotonic()
    code = main(["replay", "-n", "1", "--out", str(out_dir), "--timeout", "0.75", "--",
                 sys.executable, "-c", script])  # fmt: skip
    took = time.monotonic() - started
    assert code == 2
    assert took < 5
    out, _ = capsys.readouterr()
    assert _timings(out) == (
        f"waiver: replay 1 of 1: no report: timed out after 0.75 s (T s; log {out_dir}/run-1.log)\n"
    )
    time.sleep(2)
    assert not survived.exists()
    assert _names(out_dir) == ["run-1.log"]


@pytest.mark.parametrize("registry", [False, True])
@pytest.mark.slow
def test_a_failing_property_suite_stops_every_replay_and_the_gate_says_property_violation(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    registry: bool,
) -> None:
    monkeypatch.chdir(tmp_path)
    _write_repo(tmp_path, properties="def test_holds():\n    assert False\n")
    capsys.readouterr()
    assert _replay() == 1
    out, _ = capsys.readouterr()
    assert _timings(out) == (
        "waiver: properties: 0 passed, 1 failed, 0 skipped (exit 1, T s)\n"
        "waiver: the property suite failed (1 failed); no replay was run, "
        "and the gate will report property_violation\n"
    )
    assert _names(tmp_path / "reports") == ["properties.log", "properties.xml"]
    assert not (tmp_path / "tests" / "counter.txt").exists()

    extra: list[str] = []
    if registry:
        (tmp_path / "known-tests.txt").write_text("\n".join(sorted(IDS.values())) + "\n")
        extra = ["--known-tests", "known-tests.txt"]
    assert _gate(*extra) == 1
    report = load_report(tmp_path / "waiver.json")
    expected = sorted(IDS.values()) if registry else ["properties/test_props.py::test_holds"]
    assert classes(report) == dict.fromkeys(expected, "property_violation")
    assert report["properties"]["failed"] == ["properties/test_props.py::test_holds"]
    assert report["replays"] == {
        "count": 0,
        "read": 0,
        "errors": [],
        "skipped": "property_violation",
        "reason": "1 property case failed, so every test is property_violation whatever "
        "its replays say",
    }
    skipped_blocker = (
        "the replays were skipped because 1 property case failed, and no known-tests "
        "registry names the tests they would have run"
    )
    assert report["run_blockers"] == ([] if registry else [NO_REGISTRY_BLOCKS, skipped_blocker])
    assert report["error"] is None


CHECK_LOCK = ("--lock", "fixture.lock", "--fixtures", "fixtures")
DRIFT_STOP = (
    "waiver: the files listed above drifted from the lock; no replay was run, "
    "and the gate will report fixture_drift\n"
)


def _suite_ran(root: Path) -> bool:
    """Whether the assertion suite ran at all: two of its tests leave a file each time."""
    return (root / "tests" / "counter.txt").exists() or (root / "tests" / "seen.txt").exists()


@pytest.mark.slow
def test_replay_with_the_lock_runs_no_replay_after_drift_and_the_gate_reports_it(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "fixtures" / "data.json").write_text('{"n": 2}\n')
    capsys.readouterr()
    assert _replay(*CHECK_LOCK) == 1
    out, _ = capsys.readouterr()
    assert _timings(out) == (
        "waiver: drift: 1 file differs from the lock (working tree):\n"
        "  fixtures/data.json: changed (fixtures)\n"
        "warning: the lock, registry and freeze store were read from the working tree, which "
        "the change itself can edit; pass --trusted-ref with the base commit to read them "
        "from it\n"
        "waiver: properties: 1 passed, 0 failed, 0 skipped (exit 0, T s)\n" + DRIFT_STOP
    )
    assert _names(repo / "reports") == ["properties.log", "properties.xml"]
    assert not _suite_ran(repo)

    (repo / "known-tests.txt").write_text("\n".join(sorted(IDS.values())) + "\n")
    assert _gate("--replays", "5", "--known-tests", "known-tests.txt") == 1
    report = load_report(repo / "waiver.json")
    assert classes(report) == dict.fromkeys(IDS.values(), "fixture_drift")
    assert report["replays"]["skipped"] == "fixture_drift"
    assert report["run_blockers"] == []


@pytest.mark.slow
def test_replay_with_the_lock_after_drift_and_a_failed_property_names_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _write_repo(tmp_path, properties="def test_holds():\n    assert False\n")
    (tmp_path / "fixtures" / "data.json").write_text('{"n": 2}\n')
    capsys.readouterr()
    assert _replay(*CHECK_LOCK) == 1
    out, _ = capsys.readouterr()
    assert out.endswith(
        "waiver: the property suite failed (1 failed); no replay was run, "
        "and the gate will report property_violation\n" + DRIFT_STOP
    )
    assert not _suite_ran(tmp_path)
    assert _gate() == 1
    report = load_report(tmp_path / "waiver.json")
    # The property outranks the drift, in the rows and in why the replays were skipped.
    assert set(classes(report).values()) == {"property_violation"}
    assert report["replays"]["skipped"] == "property_violation"
    assert report["fixtures"]["drift"] == [
        {"path": "fixtures/data.json", "kind": "changed", "part": "fixtures"}
    ]


@pytest.mark.slow
def test_replay_with_the_lock_and_no_drift_replays_as_before(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _replay(*CHECK_LOCK, "--trusted-ref", _commit_all(repo)) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("waiver: no drift: the fixtures and the test harness match the lock")
    assert "warning:" not in out
    assert _names(repo / "reports")[-2:] == ["run-5.log", "run-5.xml"]
    assert _suite_ran(repo)


def _commit_all(root: Path) -> str:
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return git(root, "rev-parse", "HEAD")


@pytest.mark.slow
def test_replay_checks_the_changes_tree_before_restoring_the_trusted_harness(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The restore would remove the conftest the change adds; the check must see it first."""
    base = _commit_all(repo)
    (repo / "conftest.py").write_text("def pytest_configure(config): pass\n")
    (repo / "fixture.lock").write_text("")  # the change's own lock is never read
    capsys.readouterr()
    assert _replay(*CHECK_LOCK, "--trusted-ref", base, "--harness-from", base) == 1
    out, _ = capsys.readouterr()
    assert out.startswith(
        f"waiver: drift: 1 file differs from the lock (trusted revision {base}):\n"
        "  conftest.py: not_in_lock (harness)\n"
        f"waiver: harness from trusted revision {base}: "
    )
    assert out.endswith(DRIFT_STOP)
    assert not (repo / "conftest.py").exists()  # restored after the check
    assert not _suite_ran(repo)


def test_replay_with_a_bad_lock_is_exit_2_before_anything_runs(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "fixture.lock").write_text("not a lock\n")
    assert _replay(*CHECK_LOCK) == 2
    assert "fixture.lock" in capsys.readouterr().err
    assert _names(repo / "reports") == []
    assert not _suite_ran(repo)


def test_the_property_report_must_exist_before_any_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "reports"
    code = main(["replay", "-n", "3", "--out", str(out_dir),
                 "--properties-first", f"{shlex.quote(sys.executable)} -c pass",
                 "--", sys.executable, "-c", "raise SystemExit('never run')"])  # fmt: skip
    assert code == 2
    _, err = capsys.readouterr()
    assert err == (
        f"waiver: error: {out_dir}/properties.xml: the property suite left no usable report: "
        "wrote no JUnit report (exit 0); no replay was run\n"
    )
    assert _names(out_dir) == ["properties.log"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-n", "0", "--", "true"], "-n must be at least 1, got 0"),
        (["-n", "1", "--timeout", "0", "--", "true"], "--timeout must be positive, got 0"),
        (["-n", "1", "--"], "give the command to replay after --"),
        (["-n", "1", "--properties-first", "'open", "--", "true"], "--properties-first: No closing quotation"),
        (["-n", "1", "--", "no-such-command-here"], "cannot run 'no-such-command-here': No such file or directory"),
    ],
)  # fmt: skip
def test_bad_arguments_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["replay", "--out", str(tmp_path / "reports"), *argv]) == 2
    assert capsys.readouterr().err == f"waiver: error: {message}\n"


def test_an_earlier_run_in_the_output_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "run-6.xml").write_text("<testsuites/>")
    assert main(["replay", "-n", "5", "--out", str(tmp_path / "reports"), "--", "true"]) == 2
    assert capsys.readouterr().err == (
        f"waiver: error: {tmp_path}/reports is not empty: waiver replay writes into a new or "
        "empty folder, so that no report of an earlier run can pass for one of this run\n"
    )


ONE_PASS_SLOWLY = (
    "import sys, time; time.sleep(0.8); open(sys.argv[1], 'w').write("
    '\'<testsuite><testcase classname="t" name="ok"/></testsuite>\')'
)


@pytest.mark.slow
def test_a_terminal_gets_a_live_status_line(tmp_path: Path) -> None:
    out_dir = tmp_path / "reports"
    env = {name: value for name, value in os.environ.items() if name != "CI"}
    main_fd, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "waiver", "replay", "-n", "2", "--out", str(out_dir), "--",
         sys.executable, "-c", ONE_PASS_SLOWLY, "{junit}"],
        stdin=terminal, stdout=terminal, stderr=terminal, env=env, cwd=REPO,
    )  # fmt: skip
    os.close(terminal)
    chunks = []
    while True:
        try:
            chunk = os.read(main_fd, 4096)
        except OSError:  # the terminal's other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main_fd)
    assert process.wait() == 0
    screen = _timings(b"".join(chunks).decode().replace("\r\n", "\n"))
    clear = "\r\x1b[K"
    assert f"{clear}replay 1 of 2 · 0:00 elapsed{clear}" in screen
    assert re.search(
        rf"{re.escape(clear)}replay 2 of 2 · 0:0\d elapsed · last replay: "
        r"1 passed, 0 failed, 0 skipped\r",
        screen,
    )
    assert f"{clear}waiver: replay 1 of 2: 1 passed, 0 failed, 0 skipped (exit 0, T s)\n" in screen
    assert screen.endswith(f"{clear}waiver: all 2 replays left a report in {out_dir}\n")


# The reusable workflow, read as data and its shell steps run as the runner would run them.


def _workflow() -> dict[Any, Any]:
    document: dict[Any, Any] = yaml.safe_load(WORKFLOW.read_text())
    return document


def _step(job: str, name: str) -> dict[str, Any]:
    steps: list[dict[str, Any]] = _workflow()["jobs"][job]["steps"]
    return next(step for step in steps if step.get("name") == name)


def _run_step(job: str, name: str, workspace: Path, cwd: Path, env: dict[str, str]) -> None:
    """A `run:` step under bash -e, as GitHub's Linux runners run one without `shell:`."""
    workspace.mkdir(parents=True, exist_ok=True)
    script = workspace.parent / f"{workspace.name}.sh"
    script.write_text(_step(job, name)["run"])
    subprocess.run(
        ["bash", "-e", str(script)],
        cwd=cwd,
        env={**os.environ, **env, "GITHUB_WORKSPACE": str(workspace)},
        check=True,
        capture_output=True,
    )


def _merge_artifacts(jobs: Path, pattern: str, destination: Path) -> None:
    """actions/download-artifact with `pattern` and `merge-multiple: true`: every matching
    artifact's files are extracted into the one destination, keeping their relative paths."""
    for artifact in sorted(jobs.glob(pattern)):
        shutil.copytree(artifact, destination, dirs_exist_ok=True)


SHARD_SUITES = {
    "tests/shard_1/test_one.py": (
        "from pathlib import Path\n\n\n"
        "def test_stable():\n    assert True\n\n\n"
        "def test_flips():\n"
        "    counter = Path(__file__).with_name('counter.txt')\n"
        "    count = int(counter.read_text()) + 1 if counter.exists() else 1\n"
        "    counter.write_text(str(count))\n"
        "    assert count % 2 == 0\n"
    ),
    "tests/shard_2/test_two.py": "def test_other():\n    assert True\n",
}
SHARD_IDS = {
    "stable": "tests/shard_1/test_one.py::test_stable",
    "flips": "tests/shard_1/test_one.py::test_flips",
    "other": "tests/shard_2/test_two.py::test_other",
}


@pytest.fixture(scope="module")
def matrix_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workflow's property job and its 5 replays by 2 shards matrix jobs, each step run
    with bash in a workspace of its own and each upload kept as an artifact folder."""
    repo = tmp_path_factory.mktemp("matrix")
    _write_repo(repo)
    for relative, text in SHARD_SUITES.items():
        (repo / relative).parent.mkdir(parents=True, exist_ok=True)
        (repo / relative).write_text(text)
    jobs = repo / "jobs"
    job = jobs / "properties"
    _run_step("properties", "Run the property suite once", job, repo, {
        "PROPERTY_COMMAND": shlex.join(_pytest("properties")) + ' --junitxml="$WAIVER_JUNIT"',
    })  # fmt: skip
    # upload-artifact `path: waiver-properties/`: the artifact holds the folder's contents.
    shutil.copytree(job / "waiver-properties", jobs / "waiver-properties")
    command = shlex.join(_pytest()) + ' "tests/shard_$WAIVER_SHARD" --junitxml="$WAIVER_JUNIT"'
    for replay in range(1, 6):
        for shard in (1, 2):
            job = jobs / f"job-{replay}-{shard}"
            _run_step("replays", "Run the assertion suite", job, repo, {
                "TEST_COMMAND": command,
                "WAIVER_REPLAY": str(replay),
                "WAIVER_SHARD": str(shard),
                "WAIVER_SHARDS": "2",
            })  # fmt: skip
            # upload-artifact `path: waiver-junit/`, one artifact per replay and shard.
            artifact = jobs / f"waiver-junit-run-{replay}-shard-{shard}"
            shutil.copytree(job / "waiver-junit", artifact)
            assert sorted(str(p.relative_to(artifact)) for p in artifact.rglob("*.xml")) == [
                f"run-{replay}/shard-{shard}.xml"
            ]
    return repo


@pytest.fixture
def gate_job(matrix_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The gate job's workspace: the change, then both downloads as the workflow does them."""
    work = tmp_path / "gate"
    shutil.copytree(matrix_run, work, ignore=shutil.ignore_patterns("jobs"))
    monkeypatch.chdir(work)
    _merge_artifacts(matrix_run / "jobs", "waiver-properties", work / "waiver-properties")
    _merge_artifacts(matrix_run / "jobs", "waiver-junit-run-*", work / "waiver-reports")
    return work


def _matrix_gate(*extra: str) -> int:
    return _gate(
        "--replays", "5", *extra,
        reports="waiver-reports", properties="waiver-properties/properties.xml",
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.xdist_group("replay_matrix")
def test_the_download_layout_of_the_matrix_is_merged_by_the_gate(gate_job: Path) -> None:
    reports = gate_job / "waiver-reports"
    assert sorted(str(p.relative_to(reports)) for p in reports.rglob("*")) == sorted(
        [f"run-{r}" for r in range(1, 6)]
        + [f"run-{r}/shard-{s}.xml" for r in range(1, 6) for s in (1, 2)]
    )
    (gate_job / "waiver.yml").write_text("registry: none\n")  # the layout, not the registry
    assert _matrix_gate("--shards", "2", "--config", "waiver.yml") == 0
    report = load_report(gate_job / "waiver.json")
    assert classes(report) == {
        SHARD_IDS["flips"]: "unstable_assertion",
        SHARD_IDS["stable"]: "stable_pass",
        SHARD_IDS["other"]: "stable_pass",
    }
    assert [(row["replay_pass"], row["replay_total"]) for row in report["rows"]] == [
        (2, 5), (5, 5), (5, 5)
    ]  # fmt: skip
    assert report["replays"] == {"count": 5, "read": 5, "errors": []}


@pytest.mark.slow
@pytest.mark.xdist_group("replay_matrix")
def test_the_base_matrix_reaches_the_gate_as_base_replays(matrix_run: Path, gate_job: Path) -> None:
    """The base job's steps, run like the change's, downloaded as the gate job does."""
    jobs = gate_job.parent / "base-jobs"
    command = shlex.join(_pytest()) + ' "tests/shard_$WAIVER_SHARD" --junitxml="$WAIVER_JUNIT"'
    for replay in range(1, 6):
        for shard in (1, 2):
            job = jobs / f"job-{replay}-{shard}"
            _run_step("base-replays", "Run the assertion suite at the base", job, gate_job, {
                "TEST_COMMAND": command,
                "WAIVER_REPLAY": str(replay),
                "WAIVER_SHARD": str(shard),
                "WAIVER_SHARDS": "2",
            })  # fmt: skip
            shutil.copytree(
                job / "waiver-base-junit", jobs / f"waiver-base-junit-run-{replay}-shard-{shard}"
            )
    _merge_artifacts(jobs, "waiver-base-junit-run-*", gate_job / "waiver-base-reports")
    (gate_job / "waiver.yml").write_text("registry: none\n")  # the base, not the registry
    base = ["--base-reports", "waiver-base-reports", "--config", "waiver.yml"]
    assert _matrix_gate("--shards", "2", *base) == 0
    report = load_report(gate_job / "waiver.json")
    assert {row["test_id"]: row["base"]["meaning"] for row in report["rows"]} == {
        SHARD_IDS["flips"]: "already_flaky",
        SHARD_IDS["stable"]: "none",
        SHARD_IDS["other"]: "none",
    }
    assert (report["base"]["count"], report["base"]["errors"]) == (5, [])


@pytest.mark.slow
@pytest.mark.xdist_group("replay_matrix")
def test_a_missing_shard_makes_the_tests_unknown_and_is_named(gate_job: Path) -> None:
    (gate_job / "waiver-reports" / "run-4" / "shard-2.xml").unlink()
    assert _matrix_gate("--shards", "2") == 1
    report = load_report(gate_job / "waiver.json")
    # The whole replay is dropped, so the tests of the missing shard and their neighbours
    # are all short of replays.
    assert classes(report) == dict.fromkeys(SHARD_IDS.values(), "unknown_test")
    assert report["replays"]["errors"] == [
        {
            "replay": 4,
            "source": "waiver-reports/run-4/shard-2.xml",
            "problem": "missing: shard 2 of 2, so the replay is not counted",
        }
    ]
    summary = (gate_job / "summary.md").read_text()
    assert "`waiver-reports/run-4/shard-2.xml`" in summary
    assert "`missing: shard 2 of 2, so the replay is not counted`" in summary

    # Without the expected shard count the missing shard's own test is short too, but
    # nothing names the shard.
    assert _matrix_gate() == 1
    report = load_report(gate_job / "waiver.json")
    assert classes(report) == {
        SHARD_IDS["flips"]: "unstable_assertion",
        SHARD_IDS["stable"]: "stable_pass",
        SHARD_IDS["other"]: "unknown_test",
    }
    assert report["replays"]["errors"] == []


@pytest.mark.slow
@pytest.mark.xdist_group("replay_matrix")
def test_a_shard_missing_from_every_replay_cannot_pass_unnoticed(
    gate_job: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for replay in range(1, 6):
        (gate_job / "waiver-reports" / f"run-{replay}" / "shard-2.xml").unlink()
    # Without the shard count its tests simply vanish: only the missing registry blocks.
    assert _matrix_gate() == 1
    report = load_report(gate_job / "waiver.json")
    assert SHARD_IDS["other"] not in classes(report)
    assert report["run_blockers"] == [NO_REGISTRY_BLOCKS]
    capsys.readouterr()
    assert _matrix_gate("--shards", "2") == 2
    report = load_report(gate_job / "waiver.json")
    assert report["blocked"] is True
    assert report["error"] == {
        "source": "waiver-reports",
        "problem": "no test case ran in any replay of the reports folder "
        "(waiver-reports/run-1/shard-2.xml: "
        "missing: shard 2 of 2, so the replay is not counted)",
    }


@pytest.mark.slow
@pytest.mark.xdist_group("replay_matrix")
def test_the_shard_count_is_checked_both_ways(gate_job: Path) -> None:
    extra = gate_job / "waiver-reports" / "run-2" / "shard-3.xml"
    shutil.copy(gate_job / "waiver-reports" / "run-2" / "shard-2.xml", extra)
    assert _matrix_gate("--shards", "2") == 1
    assert load_report(gate_job / "waiver.json")["replays"]["errors"] == [
        {
            "replay": 2,
            "source": "waiver-reports/run-2",
            "problem": "1 report files beyond shard-1.xml … shard-2.xml: shard-3.xml",
        }
    ]
    extra.unlink()
    assert _matrix_gate("--shards", "3") == 2  # every replay lacks shard 3
    assert _matrix_gate("--shards", "0") == 2


def test_the_plan_step_refuses_a_matrix_it_cannot_run(tmp_path: Path) -> None:
    outputs = tmp_path / "outputs"
    outputs.touch()
    _run_step("properties", "Plan the matrix of replays by shards", tmp_path / "w", tmp_path, {
        "REPLAYS": "5", "SHARDS": "2", "BASE_REPLAYS": "0", "GITHUB_OUTPUT": str(outputs),
    })  # fmt: skip
    # No base replays: the base job is skipped, but its matrix still needs a value.
    assert outputs.read_text() == "replays=[1,2,3,4,5]\nshards=[1,2]\nbase-replays=[1]\n"
    outputs.write_text("")
    _run_step("properties", "Plan the matrix of replays by shards", tmp_path / "w", tmp_path, {
        "REPLAYS": "5", "SHARDS": "2", "BASE_REPLAYS": "3", "BASE_SHA": "a" * 40,
        "GITHUB_OUTPUT": str(outputs),
    })  # fmt: skip
    assert outputs.read_text() == "replays=[1,2,3,4,5]\nshards=[1,2]\nbase-replays=[1,2,3]\n"
    for replays, shards, base, base_sha in (
        ("0", "1", "0", ""),
        ("5", "x", "0", ""),
        ("17", "16", "0", ""),
        ("5", "1", "-1", "a" * 40),
        ("5", "16", "17", "a" * 40),
        ("5", "1", "5", ""),  # base replays outside a pull request: no base commit
    ):
        with pytest.raises(subprocess.CalledProcessError):
            _run_step("properties", "Plan the matrix of replays by shards", tmp_path / "w", tmp_path, {
                "REPLAYS": replays, "SHARDS": shards, "BASE_REPLAYS": base, "BASE_SHA": base_sha,
                "GITHUB_OUTPUT": str(outputs),
            })  # fmt: skip


def _run_steps(document: dict[Any, Any]) -> list[tuple[str, str]]:
    """(where, script) of every `run:` step of a workflow or composite action."""
    found = []
    for job_name, job in (document.get("jobs") or {}).items():
        for index, step in enumerate(job.get("steps") or []):
            if "run" in step:
                found.append((f"jobs.{job_name}.steps[{index}]", step["run"]))
    for index, step in enumerate((document.get("runs") or {}).get("steps") or []):
        if "run" in step:
            found.append((f"runs.steps[{index}]", step["run"]))
    return found


def _workflow_files() -> list[Path]:
    files = sorted((REPO / ".github" / "workflows").glob("*.y*ml"))
    return files + [path for path in (REPO / "action.yml",) if path.exists()]


def test_no_run_step_interpolates_an_expression() -> None:
    """Inputs reach shell steps through `env:` only: `${{ }}` in `run:` is script injection."""
    files = _workflow_files()
    assert WORKFLOW in files
    offenders = [
        f"{path.relative_to(REPO)}: {where}"
        for path in files
        for where, script in _run_steps(yaml.safe_load(path.read_text()))
        if "${{" in script
    ]
    assert offenders == []


def test_the_workflow_is_least_privilege_pinned_and_its_gate_runs_no_change_code() -> None:
    document = _workflow()
    assert document["permissions"] == {}
    # PyYAML reads the key `on` as the boolean true.
    inputs = document[True]["workflow_call"]["inputs"]
    assert {"test-command", "property-command", "replays", "shards"} <= inputs.keys()
    for name, job in document["jobs"].items():
        assert job["permissions"] == {"contents": "read"}, name
        for step in job["steps"]:
            uses = step.get("uses", "")
            assert (
                uses == ""
                or uses == "./waiver-action"
                or re.fullmatch(
                    r"actions/(checkout|setup-python|upload-artifact|download-artifact)@[0-9a-f]{40}",
                    uses,
                )
            ), uses
            if uses.startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False
    gate = document["jobs"]["gate"]
    # The gate job's shell steps name waiver and clear the folders it fills; nothing else.
    assert [step["name"] for step in gate["steps"] if "run" in step] == [
        "Name the waiver to check out",
        "Clear the folders this job fills",
    ]
    action_checkout = _step("gate", "Check out waiver")
    assert action_checkout["with"] == {
        "repository": "${{ steps.source.outputs.repository }}",
        "ref": "${{ steps.source.outputs.ref }}",
        "path": "waiver-action",
        "persist-credentials": False,
    }
    download = _step("gate", "Download every replay's shards")["with"]
    assert download == {
        "pattern": "waiver-junit-run-*",
        "merge-multiple": True,
        "path": "change/waiver-reports",
    }
    upload = _step("replays", "Upload this shard's report")["with"]
    assert upload["name"] == "waiver-junit-run-${{ matrix.replay }}-shard-${{ matrix.shard }}"
    assert upload["path"] == "waiver-junit/"
    # The base replays run the base commit's code, never the change's.
    base = document["jobs"]["base-replays"]
    assert base["if"] == (
        "${{ inputs.base-replays > 0 && needs.properties.outputs.fixtures-match == 'true' }}"
    )
    assert _step("base-replays", "Check out the base commit")["with"] == {
        "ref": "${{ github.event.pull_request.base.sha }}",
        "persist-credentials": False,
    }
    base_upload = _step("base-replays", "Upload this base shard's report")["with"]
    assert base_upload["name"] == (
        "waiver-base-junit-run-${{ matrix.replay }}-shard-${{ matrix.shard }}"
    )
    assert _step("gate", "Download every base replay's shards")["with"] == {
        "pattern": "waiver-base-junit-run-*",
        "merge-multiple": True,
        "path": "change/waiver-base-reports",
    }
    classify = _step("gate", "Classify every test id")
    assert classify["with"]["working-directory"] == "change"
    assert classify["with"]["base-reports"] == (
        "${{ inputs.base-replays > 0 && needs.base-replays.result != 'skipped' "
        "&& 'waiver-base-reports' || '' }}"
    )
    assert classify["with"]["reports"] == "waiver-reports"
    assert classify["with"]["shards"] == "${{ inputs.shards }}"
    assert classify["with"]["replays"] == "${{ inputs.replays }}"


def _tool(name: str) -> str:
    found = shutil.which(
        name, path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    )
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed; CI must lint the workflows")
        pytest.skip(f"{name} is not installed here")
    return found


def test_actionlint_passes_on_the_reusable_workflow() -> None:
    completed = subprocess.run(
        [_tool("actionlint"), "-no-color", str(WORKFLOW.relative_to(REPO))],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (completed.returncode, completed.stdout) == (0, "")


def test_zizmor_finds_nothing_in_the_reusable_workflow() -> None:
    completed = subprocess.run(
        [_tool("zizmor"), "--offline", "--no-progress", str(WORKFLOW.relative_to(REPO))],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "No findings to report" in completed.stdout
