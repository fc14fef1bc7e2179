"""The test harness is locked with the fixtures: a change cannot edit what judges it.

Each patch below is applied to the bundled example as a commit on top of a base commit,
replayed with real pytest runs (so a hook the patch adds really changes the reports), and
gated with the documented gate command plus `--trusted-ref <base>`.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.change_support import PASSING_HOOK
from helpers.junit_support import case, suite
from helpers.support import (
    EMPTY,
    EXAMPLE,
    ROUND_TRIP,
    classes,
    gate_args,
    git,
    load_report,
    replay_example,
    run_gate,
)
from waiver.cli import main
from waiver.errors import InputError
from waiver.read.lock.lock_file import LockEntry, format_lock, parse_lock, table_digest
from waiver.runners import LOCK_TABLES
from waiver.write.summary.summary import render_summary

COMMITTED = [
    "fixtures", "tests", "fixture.lock", "known-tests.txt", "slugify.py", "pytest.ini",
    "freezes.json",
]  # fmt: skip


@pytest.fixture
def base(tmp_path: Path) -> tuple[Path, str]:
    """The example committed as the base of a pull request: (work tree, base commit)."""
    work = tmp_path / "demo"
    shutil.copytree(EXAMPLE, work, ignore=shutil.ignore_patterns("run.sh", "__pycache__"))
    git(work, "init", "--quiet")
    git(work, "add", "--", *COMMITTED)
    git(work, "commit", "--quiet", "-m", "base")
    return work, git(work, "rev-parse", "HEAD")


def patched(work: Path, base: str, patch: Callable[[Path], None]) -> tuple[int, dict[str, Any]]:
    """Commit the patch, replay the patched tree with pytest, gate against the base."""
    patch(work)
    git(work, "add", "-A", "--", ".", ":!reports", ":!properties.xml")
    git(work, "commit", "--quiet", "--allow-empty", "-m", "change")
    shutil.rmtree(work / "reports", ignore_errors=True)
    (work / ".demo-counter").unlink(missing_ok=True)
    replay_example(work)
    code = main(gate_args(work, "--freezes", str(work / "freezes.json"), "--trusted-ref", base))
    return code, load_report(work / "waiver.json")


def root_conftest(work: Path) -> None:
    (work / "conftest.py").write_text(PASSING_HOOK)


def assertions_conftest(work: Path) -> None:
    (work / "tests" / "assertions" / "conftest.py").write_text(PASSING_HOOK)


def local_plugin(work: Path) -> None:
    (work / "some_local_plugin.py").write_text(PASSING_HOOK)
    (work / "pytest.ini").write_text(
        "[pytest]\naddopts = -p no:cacheprovider -p some_local_plugin\n"
    )


def options_moved_to_pyproject(work: Path) -> None:
    (work / "pytest.ini").unlink()
    (work / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n\n[tool.pytest.ini_options]\naddopts = "-p no:cacheprovider"\n'
    )


def vacuous_properties(work: Path) -> None:
    module = work / "tests" / "properties" / "test_slug_properties.py"
    module.write_text("def test_slug_is_idempotent() -> None:\n    assert True\n")


HARNESS_PATCHES = {
    "root conftest.py hook": (root_conftest, [("conftest.py", "not_in_lock")]),
    "new tests/assertions/conftest.py": (
        assertions_conftest,
        [("tests/assertions/conftest.py", "not_in_lock")],
    ),
    "pytest.ini loads a local plugin": (
        local_plugin,
        [("pytest.ini", "changed"), ("some_local_plugin.py", "not_in_lock")],
    ),
    "pytest.ini moved into pyproject.toml": (
        options_moved_to_pyproject,
        [("pyproject.toml", "not_in_lock"), ("pytest.ini", "missing")],
    ),
    "vacuous property test": (
        vacuous_properties,
        [("tests/properties/test_slug_properties.py", "changed")],
    ),
}


@pytest.mark.parametrize("name", HARNESS_PATCHES)
@pytest.mark.slow
def test_a_patch_to_the_harness_is_blocked_and_named(base: tuple[Path, str], name: str) -> None:
    work, base_commit = base
    patch, drift = HARNESS_PATCHES[name]
    code, report = patched(work, base_commit, patch)
    assert (code, report["verdict"]) == (1, "blocked")
    assert set(classes(report).values()) == {"fixture_drift"}
    assert all(row["freeze"] is None for row in report["rows"])
    assert [(d["path"], d["kind"], d["part"]) for d in report["fixtures"]["drift"]] == [
        (path, kind, "harness") for path, kind in drift
    ]
    assert "**The change edits the test harness**" in render_summary(report)


@pytest.mark.slow
def test_the_hook_really_turns_the_stable_failure_into_passes(base: tuple[Path, str]) -> None:
    # What the lock is for: the replays of a patched harness report the red test as green.
    work, base_commit = base
    _, report = patched(work, base_commit, root_conftest)
    row = next(row for row in report["rows"] if row["test_id"] == EMPTY)
    assert (row["replay_pass"], row["replay_total"]) == (5, 5)


@pytest.mark.slow
def test_a_patch_to_the_code_alone_is_not_blocked_by_the_harness(base: tuple[Path, str]) -> None:
    def fix_slugify(work: Path) -> None:
        code = work / "slugify.py"
        code.write_text(code.read_text().replace('.strip("-")', '.strip("-") or "untitled"'))

    work, base_commit = base
    code, report = patched(work, base_commit, fix_slugify)
    assert (code, report["verdict"]) == (0, "review")
    assert report["fixtures"]["drift"] == []
    assert classes(report) == {
        EMPTY: "stable_pass",
        ROUND_TRIP: "unstable_assertion",
        "tests/assertions/test_slug.py::test_known_slugs": "stable_pass",
    }


@pytest.mark.slow
def test_a_change_that_also_rewrites_the_lock_is_still_harness_drift(
    base: tuple[Path, str],
) -> None:
    def conftest_and_lock(work: Path) -> None:
        root_conftest(work)
        lock = ["lock", "--root", str(work), "--fixtures", str(work / "fixtures"),
                "--property-suite", str(work / "tests" / "properties"),
                "--out", str(work / "fixture.lock")]  # fmt: skip
        assert main(lock) == 0
        assert "  conftest.py\n" in (work / "fixture.lock").read_text()

    work, base_commit = base
    code, report = patched(work, base_commit, conftest_and_lock)
    assert code == 1
    assert report["fixtures"]["working_tree_lock_differs"] is True
    assert [d["path"] for d in report["fixtures"]["drift"]] == ["conftest.py"]


# --- writing the lock ------------------------------------------------------------------


def test_waiver_lock_covers_the_harness_and_sha256sum_checks_it(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "demo", ignore=shutil.ignore_patterns("__pycache__"))
    work = tmp_path / "demo"
    (work / "tests" / "assertions" / "conftest.py").write_text("")
    (work / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n\n[tool.pytest.ini_options]\nminversion = "8"\n'
    )
    packages = work / ".venv" / "lib" / "python3.12" / "site-packages" / "numpy"
    packages.mkdir(parents=True)
    (work / ".venv" / "pyvenv.cfg").write_text("home = /usr\n")
    (work / ".venv" / "bin").mkdir()
    (work / ".venv" / "bin" / "python").symlink_to(sys.executable)
    (packages / "conftest.py").write_text("")
    lock = ["lock", "--fixtures", "fixtures", "--property-suite", "tests/properties"]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(work)
        assert main(lock) == 0
    text = (work / "fixture.lock").read_text()
    assert [line.rsplit("  ", 1)[1] for line in text.splitlines()] == [
        "fixtures/inputs.json",
        "fixtures/slugs.json",
        "pyproject.toml",
        "pytest.ini",
        "tests/assertions/conftest.py",
        "tests/properties/test_slug_properties.py",
    ]
    assert text.splitlines()[2].startswith("# [tool.pytest] ")
    checked = subprocess.run(
        ["sha256sum", "-c", "--strict", "fixture.lock"], cwd=work, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count(": OK") == 5


def test_a_table_line_round_trips_and_other_comment_lines_are_refused() -> None:
    entries = (
        LockEntry("pyproject.toml", "1" * 64, "tool.pytest"),
        LockEntry("sub/odd\nname/pyproject.toml", "2" * 64, "tool.pytest"),
        LockEntry("pyproject.toml", "3" * 64),
    )
    text = format_lock(entries)
    assert text == (
        f"{'3' * 64}  pyproject.toml\n"
        f"# [tool.pytest] {'1' * 64}  pyproject.toml\n"
        f"# [tool.pytest] \\{'2' * 64}  sub/odd\\nname/pyproject.toml\n"
    )
    assert set(parse_lock(text.encode(), "lock", LOCK_TABLES)) == set(entries)
    for line in ("# a comment", f"# [project] {'1' * 64}  pyproject.toml"):
        with pytest.raises(InputError, match="line 1: a line starting with '#' must be a table"):
            parse_lock(f"{line}\n".encode(), "lock", LOCK_TABLES)


PYTEST_TABLE = '[tool.pytest.ini_options]\naddopts = "-q"\ntestpaths = ["tests"]\n'


@pytest.mark.parametrize(
    ("other", "same"),
    [
        ('[project]\nname = "x"\ndependencies = ["a>=2"]\n\n' + PYTEST_TABLE, True),
        ("# a comment\n" + PYTEST_TABLE.replace('"-q"', "'-q'"), True),
        ('[tool.pytest]\nini_options = {addopts = "-q", testpaths = ["tests"]}\n', True),
        (PYTEST_TABLE.replace('"-q"', '"-q -p evil"'), False),
        (PYTEST_TABLE + "[tool.pytest.other]\nx = 1\n", False),
        ('[project]\nname = "x"\n', None),
    ],
    ids=["dependency bump", "spelling", "inline table", "addopts", "new key", "no table"],
)
def test_the_pytest_table_digest_follows_what_pytest_reads(
    tmp_path: Path, other: str, same: bool | None
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n' + PYTEST_TABLE)
    before = table_digest(str(tmp_path), "pyproject.toml", "tool.pytest", LOCK_TABLES)
    (tmp_path / "pyproject.toml").write_text(other)
    after = table_digest(str(tmp_path), "pyproject.toml", "tool.pytest", LOCK_TABLES)
    assert before is not None
    if same is None:
        assert after is None
    else:
        assert (after == before) is same


def test_a_pyproject_that_is_not_toml_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.pytest\n")
    with pytest.raises(InputError, match=r"^pyproject\.toml: not valid TOML"):
        table_digest(str(tmp_path), "pyproject.toml", "tool.pytest", LOCK_TABLES)


# --- the gate on a small repository --------------------------------------------------


def small_repo(root: Path, policy: str | None = None, files: tuple[str, ...] = ()) -> Path:
    """Fixtures, a pytest.ini, a property module, five synthetic replays and `files`,
    locked."""
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n")
    (root / "fixtures").mkdir(parents=True)
    (root / "fixtures" / "a.json").write_text("{}\n")
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "tests" / "properties").mkdir(parents=True)
    (root / "tests" / "properties" / "test_p.py").write_text("def test_p():\n    pass\n")
    (root / "tests" / "test_a.py").write_text("def test_a():\n    pass\n")
    (root / "properties.xml").write_text(
        suite(case("tests.properties.test_p", "test_p"), name="pytest")
    )
    (root / "reports").mkdir()
    for replay in range(1, 6):
        (root / "reports" / f"run-{replay}.xml").write_text(
            suite(case("tests.test_a", "test_a"), name="pytest")
        )
    (root / "known-tests.txt").write_text("tests/test_a.py::test_a\n")
    lock = ["lock", "--root", str(root), "--fixtures", str(root / "fixtures"),
            "--property-suite", str(root / "tests" / "properties"),
            "--out", str(root / "fixture.lock")]  # fmt: skip
    if policy is not None:
        (root / "waiver.yml").write_text(policy)
        lock += ["--config", str(root / "waiver.yml")]
    assert main(lock) == 0
    return root


def small_gate(root: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    return run_gate(root, "--replays", "5", *extra)


def test_a_symlinked_conftest_is_an_input_error(tmp_path: Path) -> None:
    root = small_repo(tmp_path)
    (root / "tests" / "conftest.py").symlink_to(root / "fixtures" / "a.json")
    code, report = small_gate(root)
    assert (code, report["blocked"]) == (2, True)
    assert report["error"] == {
        "source": "tests/conftest.py",
        "problem": "a symlink in the test harness",
    }


def test_policy_harness_globs_add_files_and_bindings_cannot_exempt_a_test(tmp_path: Path) -> None:
    policy = (
        'harness: ["jest.config.*", "ci/*.cfg"]\n'
        'bindings:\n  - tests: ["tests/*"]\n    fixtures: ["fixtures/*"]\n'
    )
    root = small_repo(tmp_path, policy, files=("web/jest.config.js", "ci/runner.cfg"))
    assert small_gate(root, "--config", str(root / "waiver.yml"))[0] == 0
    (root / "web" / "jest.config.js").write_text("module.exports = {}\n")
    (root / "ci" / "other.cfg").write_text("x\n")
    (root / "conftest.py").write_text("")
    code, report = small_gate(root, "--config", str(root / "waiver.yml"))
    assert code == 1
    assert classes(report) == {"tests/test_a.py::test_a": "fixture_drift"}
    assert [(d["path"], d["kind"], d["part"]) for d in report["fixtures"]["drift"]] == [
        ("ci/other.cfg", "not_in_lock", "harness"),
        ("conftest.py", "not_in_lock", "harness"),
        ("web/jest.config.js", "changed", "harness"),
    ]


def test_a_property_module_the_lock_does_not_list_is_drift(tmp_path: Path) -> None:
    root = small_repo(tmp_path)
    (root / "tests" / "more").mkdir()
    (root / "tests" / "more" / "test_q.py").write_text("def test_q():\n    pass\n")
    properties = suite(case("tests.properties.test_p", "test_p"), name="pytest").replace(
        "</testsuite>", '<testcase classname="tests.more.test_q" name="test_q"/></testsuite>'
    )
    (root / "properties.xml").write_text(properties)
    code, report = small_gate(root)
    assert code == 1
    assert report["fixtures"]["drift"] == [
        {"path": "tests/more/test_q.py", "kind": "not_in_lock", "part": "harness"}
    ]


VERDICTS = {"clean": 0, "review": 1, "blocked": 2}
HARNESS_NAMES = ["conftest.py", "pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg"]
TOML_NAMES = {"pyproject.toml": "[tool.pytest.ini_options]", "pytest.toml": "[pytest]"}
# Modules Python would import in pytest's place: harness at an import root.
SHADOWS = ["pytest.py", "py.py", "sitecustomize.py", "usercustomize.py", "site.pth",
           "_pytest/__init__.py", "pluggy/__init__.py", "pytest.cpython-312-x86_64-linux-gnu.so"]  # fmt: skip
PLUGIN_CONFTEST = 'pytest_plugins = ["support_plugin"]\n'


@st.composite
def harness_edits(draw: st.DrawFn) -> tuple[str, str, bytes]:
    """("add", path, bytes) for a new harness file, or ("flip", path, position) as bytes."""
    if draw(st.booleans()):
        body = draw(st.binary(max_size=40))
        if draw(st.booleans()):
            folder = draw(st.sampled_from(["", "src/"]))
            return "add", folder + draw(st.sampled_from(SHADOWS)), body
        folder = draw(st.sampled_from(["", "tests/", "tests/deep/er/", "fixtures/", "docs/"]))
        name = draw(st.sampled_from([*HARNESS_NAMES, *TOML_NAMES, ".pytest.toml"]))
        if name.endswith(".toml"):
            table = TOML_NAMES.get(name, "[pytest]").encode()
            body = table + b'\naddopts = "' + body.hex().encode() + b'"\n'
        return "add", folder + name, body
    path = draw(st.sampled_from(["pytest.ini", "tests/properties/test_p.py", "support_plugin.py"]))
    return "flip", path, bytes([draw(st.integers(0, 9)), draw(st.integers(1, 255))])


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edit=harness_edits())
@pytest.mark.slow
def test_a_harness_edit_never_lowers_the_verdict(
    tmp_path_factory: pytest.TempPathFactory, edit: tuple[str, str, bytes]
) -> None:
    folder = tmp_path_factory.mktemp("harness")
    # A conftest that names a plugin module of the repository: both are harness.
    (folder / "conftest.py").write_text(PLUGIN_CONFTEST)
    (folder / "support_plugin.py").write_text("def pytest_configure(config):\n    pass\n")
    root = small_repo(folder)
    code, before = small_gate(root)
    how, path, data = edit
    target = root / path
    original = target.read_bytes() if target.exists() else None
    if how == "add":
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    else:
        assert original is not None
        content = bytearray(original)
        content[data[0] % len(content)] ^= data[1]
        target.write_bytes(bytes(content))
    code, after = small_gate(root)
    assert VERDICTS[after["verdict"]] >= VERDICTS[before["verdict"]]
    if target.read_bytes() != original:
        # Every edit drawn here is one pytest would see, so it blocks as drift.
        assert (code, after["verdict"]) == (1, "blocked")
        assert set(classes(after).values()) == {"fixture_drift"}


# --- replays with the trusted harness ------------------------------------------------


def replay_from_base(work: Path, base_commit: str) -> int:
    pytest_command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    properties = shlex.join([*pytest_command, "tests/properties", "--junitxml={junit}"])
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(work)
        patch.setenv("DEMO_COUNTER", str(work / ".demo-counter"))
        return main(
            ["replay", "-n", "5", "--out", "reports", "--tests-from", base_commit,
             "--properties-first", properties, "--", *pytest_command, "tests/assertions",
             "--junitxml={junit}"]
        )  # fmt: skip


@pytest.mark.slow
def test_replays_from_the_base_harness_are_written_by_the_base_harness(
    base: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    work, base_commit = base
    for patch in (root_conftest, assertions_conftest, local_plugin, vacuous_properties):
        patch(work)
    properties = work / "tests" / "properties" / "test_slug_properties.py"
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "change")
    assert replay_from_base(work, base_commit) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        f"waiver: tests from trusted revision {base_commit}: 2 files restored, "
        "pytest.ini, tests/properties/test_slug_properties.py; "
        "2 removed, conftest.py, tests/assertions/conftest.py\n"
    )
    # The replays over, the work tree is the change's again, for the gate to read.
    assert properties.read_bytes() != (EXAMPLE / properties.relative_to(work)).read_bytes()
    assert (work / "conftest.py").exists()
    # The reports are the base harness's: the failure the hooks hid is there again.
    properties_report = str(work / "reports" / "properties.xml")
    code = main(gate_args(work, "--trusted-ref", base_commit, "--properties", properties_report))
    report = load_report(work / "waiver.json")
    row = next(row for row in report["rows"] if row["test_id"] == EMPTY)
    assert (row["replay_pass"], row["replay_total"]) == (0, 5)
    assert report["properties"]["cases"] == 6  # the vacuous module would have run one
    # What the restore took out of the work tree, the change still committed: named, blocked.
    assert code == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert [(c["path"], c["change"]) for c in report["fixtures"]["committed_changes"]] == [
        ("conftest.py", "added"),
        ("pytest.ini", "edited"),
        ("some_local_plugin.py", "added"),
        ("tests/assertions/conftest.py", "added"),
        ("tests/properties/test_slug_properties.py", "edited"),
    ]


def test_a_symlinked_folder_in_the_change_stops_the_restore(
    base: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work, base_commit = base
    elsewhere = tmp_path / "elsewhere"
    shutil.move(work / "tests" / "properties", elsewhere)
    (work / "tests" / "properties").symlink_to(elsewhere, target_is_directory=True)
    (elsewhere / "test_slug_properties.py").write_text("def test_p():\n    assert True\n")
    assert replay_from_base(work, base_commit) == 2
    assert capsys.readouterr().err == (
        "waiver: error: fixture.lock: tests/properties/test_slug_properties.py: "
        "a parent folder is a symlink or not a folder\n"
    )
    assert (elsewhere / "test_slug_properties.py").read_text().endswith("assert True\n")
    assert not (work / "reports" / "run-1.xml").exists()
