"""`waiver replay` on real pytest runs: reports, crashes, timeouts, the property suite first,
the lock checked before any replay, and the live status line."""

from __future__ import annotations

import os
import pty
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers.replay_support import gate_here, pytest_words, write_repo
from helpers.support import REPO, classes, git, load_report
from waiver.cli import main
from waiver.gate.pipeline import NO_REGISTRY_BLOCKS

IDS = {
    "stable": "tests/test_suite.py::test_stable",
    "flips": "tests/test_suite.py::test_flips",
    "fails": "tests/test_suite.py::test_always_fails",
    "sees": "tests/test_suite.py::test_sees_its_replay",
}


def _timings(text: str) -> str:
    return re.sub(r"\d+\.\d s", "T s", text)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CRASH_ON", raising=False)
    write_repo(tmp_path)
    return tmp_path


def _replay(*extra: str) -> int:
    """Five replays of the suite after the property suite, in the current directory."""
    properties = shlex.join(pytest_words("properties", "--junitxml={junit}"))
    return main(["replay", "-n", "5", "--out", "reports", "--properties-first", properties,
                 *extra, "--", sys.executable, "run_suite.py", "{junit}"])  # fmt: skip


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

    assert gate_here("--replays", "5") == 1
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

    assert gate_here("--replays", "5") == 1
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
    write_repo(tmp_path, properties="def test_holds():\n    assert False\n")
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
    assert gate_here(*extra) == 1
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
    assert gate_here("--replays", "5", "--known-tests", "known-tests.txt") == 1
    report = load_report(repo / "waiver.json")
    assert classes(report) == dict.fromkeys(IDS.values(), "fixture_drift")
    assert report["replays"]["skipped"] == "fixture_drift"
    assert report["run_blockers"] == []


@pytest.mark.slow
def test_replay_with_the_lock_after_drift_and_a_failed_property_names_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_repo(tmp_path, properties="def test_holds():\n    assert False\n")
    (tmp_path / "fixtures" / "data.json").write_text('{"n": 2}\n')
    capsys.readouterr()
    assert _replay(*CHECK_LOCK) == 1
    out, _ = capsys.readouterr()
    assert out.endswith(
        "waiver: the property suite failed (1 failed); no replay was run, "
        "and the gate will report property_violation\n" + DRIFT_STOP
    )
    assert not _suite_ran(tmp_path)
    assert gate_here() == 1
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
    assert _replay(*CHECK_LOCK, "--trusted-ref", base, "--tests-from", base) == 1
    out, _ = capsys.readouterr()
    assert out.startswith(
        f"waiver: drift: 1 file differs from the lock (trusted revision {base}):\n"
        "  conftest.py: not_in_lock (harness)\n"
        f"waiver: tests from trusted revision {base}: "
    )
    assert out.endswith(DRIFT_STOP)
    # Taken out after the check, and put back once no replay was to run.
    assert (repo / "conftest.py").exists()
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


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-n", "0", "--", "true"], "argument -n: must be at least 1, got 0"),
        (["-n", "x", "--", "true"], "argument -n: not a whole number: 'x'"),
        (["-n", "1", "--timeout", "0", "--", "true"], "argument --timeout: must be more than 0 seconds, got 0"),
    ],
)  # fmt: skip
def test_numbers_out_of_range_stop_at_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["replay", "--out", str(tmp_path / "reports"), *argv]) == 2
    assert capsys.readouterr().err.endswith(f"waiver replay: error: {message}\n")
    assert not (tmp_path / "reports").exists()


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


def _alive(pid: int) -> bool:
    """Whether `pid` still runs: a zombie no one has reaped yet has ended."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_replay_ends_every_process_its_command_started(
    tmp_path: Path, sig: signal.Signals
) -> None:
    pids = tmp_path / "pids"
    # The command starts a grandchild in its own process group's reach, writes both pids,
    # then hangs: either would run on for a minute if nothing ended it.
    script = (
        "import os, subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pids)!r} + '.tmp', 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
        f"os.rename({str(pids)!r} + '.tmp', {str(pids)!r})\n"
        "child.wait()\n"
    )
    out_dir = tmp_path / "reports"
    argv = [sys.executable, "-m", "waiver", "replay", "-n", "3", "--out", str(out_dir), "--",
            sys.executable, "-c", script]  # fmt: skip
    waiver = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        deadline = time.monotonic() + 30
        while not pids.exists():
            assert waiver.poll() is None, waiver.communicate()
            assert time.monotonic() < deadline, "the command never started"
            time.sleep(0.05)
        started = [int(pid) for pid in pids.read_text().split()]
        assert all(_alive(pid) for pid in started)
        waiver.send_signal(sig)
        out, err = waiver.communicate(timeout=20)
    finally:
        waiver.kill()
        waiver.wait()
    assert waiver.returncode == 128 + sig
    assert err == ""
    assert out.endswith(
        f"waiver: stopped by {sig.name}; the running command and every process it started "
        "were ended, and no further replay was run\n"
    )
    deadline = time.monotonic() + 5
    while any(_alive(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in started if _alive(pid)] == []
    assert _names(out_dir) == ["run-1.log"]
