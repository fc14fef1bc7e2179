"""`waiver init` on generated repositories, then the gate with the files it wrote.

Each layout is a small real repository (a flat one with fixtures in several folders, a src
layout, one whose conftest names a plugin module). `waiver init` runs in it with real
pytest collection; the files are committed as the pull request's base; then a change is
replayed with real pytest and gated against that base, with the arguments the written
workflow passes.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from helpers.init_support import (
    BIN,
    FILES,
    WAIVER_REF,
    commit_as_base,
    copy_to_change,
    gate_written,
    init,
    installed_from_github,
    workflow_inputs,
)
from helpers.support import REPO, git
from waiver.cli import main

# Every test here runs `waiver init` on a repository it builds, and init runs the suite for
# real (its collection, its registry, often the proof in a fresh venv): seconds each, so the
# module runs with the slow tests; tests/init holds the quick ones of init's parts.
pytestmark = pytest.mark.slow

LIBRARY = "def add(a, b):\n    return a + b\n"
TESTS = """\
import json
from pathlib import Path

import pytest

from {module} import add

HERE = Path(__file__).parent


def test_add():
    assert add(1, 2) == 3


def test_reads_a_fixture():
    assert json.loads((HERE / "{fixture}").read_text()) == {{"x": 1}}


@pytest.mark.skip(reason="never runs")
def test_never_runs():
    pass


class TestParametrized:
    @pytest.mark.parametrize("n", [1, 2])
    def test_identity(self, n):
        assert add(n, 0) == n
"""
PROPERTIES = """\
from hypothesis import given, strategies as st

from {module} import add


@given(st.integers(), st.integers())
def test_add_commutes(a, b):
    assert add(a, b) == add(b, a)
"""
HOOK = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def flat(root: Path) -> Path:
    """A flat layout with fixtures in two folders of tests/ (one nested)."""
    return write(root, {
        "pyproject.toml": '[project]\nname = "lib"\nversion = "0"\n\n'
                          '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        "lib.py": LIBRARY,
        "tests/test_lib.py": TESTS.format(module="lib", fixture="data/x.json"),
        "tests/properties/test_props.py": PROPERTIES.format(module="lib"),
        "tests/data/x.json": '{"x": 1}\n',
        "tests/fixtures/nested/y.json": "{}\n",
        "tests/conftest.py": "",
    })  # fmt: skip


def src(root: Path) -> Path:
    """A src layout with a fixtures/ folder at the root and a tests/property suite."""
    return write(root, {
        "pyproject.toml": '[project]\nname = "pkg"\nversion = "0"\n\n'
                          '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
        "src/pkg/__init__.py": LIBRARY,
        "tests/test_pkg.py": TESTS.format(module="pkg", fixture="../fixtures/x.json"),
        "tests/property/test_props.py": PROPERTIES.format(module="pkg"),
        "fixtures/x.json": '{"x": 1}\n',
    })  # fmt: skip


def plugin(root: Path) -> Path:
    """A conftest that names a plugin module of the repository."""
    return write(flat(root), {
        "tests/conftest.py": 'pytest_plugins = ["helpers.plugin"]\n',
        "helpers/__init__.py": "",
        "helpers/plugin.py": "import pytest\n\n\n@pytest.fixture\ndef one():\n    return 1\n",
    })  # fmt: skip


LAYOUTS: dict[str, Callable[[Path], Path]] = {"flat": flat, "src": src, "plugin": plugin}


# The quick suite inits the flat layout; the other two, each with two pytest collections
# more per init, are slow.
@pytest.fixture(
    scope="module",
    params=["flat", "src", "plugin"],
)
def initialised(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str]:
    """The layout with init's files, committed as the base, and what init printed."""
    root = LAYOUTS[request.param](tmp_path_factory.mktemp(request.param))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert init(root) == 0
    (root / ".gitignore").write_text("reports/\nwaiver.json\n.hypothesis/\n__pycache__/\n")
    return commit_as_base(root), printed.getvalue()


@pytest.fixture
def change(initialised: tuple[Path, str], tmp_path: Path) -> tuple[Path, str]:
    return copy_to_change(initialised[0], tmp_path)


def test_init_writes_the_four_files_and_the_gate_passes_an_honest_change(
    change: tuple[Path, str],
) -> None:
    root, base = change
    for name in FILES:
        assert (root / name).is_file()
    registry = (root / "known-tests.txt").read_text().splitlines()
    assert len(registry) == 5
    assert not any("test_never_runs" in test_id for test_id in registry)
    assert any(test_id.endswith("::TestParametrized::test_identity[2]") for test_id in registry)
    # An honest change: a new helper file beside the tests, and a refactor.
    (root / "tests" / "notes.txt").write_text("not a fixture\n")
    code, report = gate_written(root, base)
    assert (code, report["verdict"]) == (0, "clean"), report
    assert report["counts"]["stable_pass"] == 4
    assert report["fixtures"]["drift"] == []


def test_the_gate_blocks_a_broken_test(change: tuple[Path, str]) -> None:
    root, base = change
    library = root / "lib.py" if (root / "lib.py").exists() else root / "src/pkg/__init__.py"
    library.write_text("def add(a, b):\n    return a + b + (a == 1)\n")
    code, report = gate_written(root, base)
    assert code == 1
    assert {row["class"] for row in report["rows"]} >= {"stable_assertion_fail"}


def test_the_gate_blocks_a_conftest_hook(change: tuple[Path, str]) -> None:
    root, base = change
    (root / "tests" / "conftest.py").write_text(HOOK)
    (root / "lib.py" if (root / "lib.py").exists() else root / "src/pkg/__init__.py").write_text(
        "def add(a, b):\n    return a - b\n"
    )
    code, report = gate_written(root, base)
    assert code == 1
    assert {row["class"] for row in report["rows"]} == {"fixture_drift"}
    assert {d["path"] for d in report["fixtures"]["drift"]} == {"tests/conftest.py"}


def test_a_fixture_edit_in_any_of_the_folders_is_drift(change: tuple[Path, str]) -> None:
    root, base = change
    nested = "tests/fixtures/nested/y.json"
    fixture = nested if (root / nested).exists() else "fixtures/x.json"
    (root / fixture).write_text('{"changed": true}\n')
    code, report = gate_written(root, base)
    assert code == 1
    assert {row["class"] for row in report["rows"]} == {"fixture_drift"}
    assert [d["path"] for d in report["fixtures"]["drift"]] == [fixture]


def test_a_second_init_without_force_changes_nothing_and_says_so(
    change: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = change
    (root / "waiver.yml").write_text("# edited by hand\nregistry: known-tests.txt\n")
    before = {name: (root / name).read_bytes() for name in FILES}
    capsys.readouterr()
    assert init(root) == 0
    assert capsys.readouterr().out == (
        f"waiver: {', '.join(FILES)} exist already; nothing changed (--force rewrites them)\n"
    )
    assert {name: (root / name).read_bytes() for name in FILES} == before
    assert init(root, "--force") == 0
    assert (root / "waiver.yml").read_bytes() != before["waiver.yml"]


def test_the_written_workflow_passes_actionlint_and_zizmor(change: tuple[Path, str]) -> None:
    root, _ = change
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    workflow = root / ".github" / "workflows" / "waiver.yml"
    report = root / ".github" / "workflows" / "waiver-report.yml"
    history = root / ".github" / "workflows" / "waiver-history.yml"
    linted = subprocess.run([str(BIN / "actionlint"), str(workflow), str(report), str(history)], cwd=root,
                            env=env, capture_output=True, text=True, check=False)  # fmt: skip
    assert linted.returncode == 0, linted.stdout + linted.stderr
    for persona in ("regular", "auditor"):
        audited = subprocess.run(
            [str(BIN / "zizmor"), "--offline", f"--persona={persona}", "--format", "plain",
             str(workflow), str(report), str(history)],
            env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert audited.returncode == 0, audited.stdout + audited.stderr
    reporting = yaml.safe_load(report.read_text())["jobs"]["report"]
    assert reporting["uses"] == f"acme/waiver/.github/workflows/waiver-report.yml@{WAIVER_REF}"
    assert reporting["with"]["waiver-ref"] == WAIVER_REF
    assert reporting["with"]["history-workflow"] == ".github/workflows/waiver-history.yml"
    inputs = workflow_inputs(root)
    assert inputs["waiver-repository"] == "acme/waiver"
    assert inputs["waiver-ref"] == WAIVER_REF
    gate = yaml.safe_load(workflow.read_text())
    assert gate["jobs"]["waiver"]["uses"] == (
        f"acme/waiver/.github/workflows/waiver-gate.yml@{WAIVER_REF}"
    )
    # PyYAML reads the key `on` as true. A merge queue waits for the status on its group.
    assert list(gate[True]) == [
        "pull_request", "pull_request_review", "merge_group", "push", "schedule"
    ]  # fmt: skip
    # init ran before the layout was a git clone: the default branch is then main.
    assert gate[True]["push"] == {"branches": ["main"]}
    assert yaml.safe_load(report.read_text())[True]["workflow_run"]["workflows"] == ["waiver"]
    recording = yaml.safe_load(history.read_text())
    assert recording[True]["workflow_run"]["workflows"] == ["waiver"]
    assert recording["jobs"]["history"]["uses"] == (
        f"acme/waiver/.github/workflows/waiver-history.yml@{WAIVER_REF}"
    )
    assert inputs["test-command"].endswith('--junitxml="$WAIVER_JUNIT"')
    assert inputs["property-command"].endswith('--junitxml="$WAIVER_JUNIT"')


def test_without_a_property_suite_nothing_is_written_and_it_says_what_to_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = flat(tmp_path)
    shutil.rmtree(root / "tests" / "properties")
    assert init(root) == 2
    err = capsys.readouterr().err
    assert err.startswith("waiver: error: no property suite found, so nothing was written")
    assert "a folder tests/properties/ of test modules that check invariants" in err
    assert "--property-suite DIR" in err
    assert not any((root / name).exists() for name in FILES)


def test_every_problem_that_stops_init_is_named_at_once_with_its_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = flat(tmp_path)
    shutil.rmtree(root / "tests" / "properties")
    monkeypatch.chdir(root)
    assert main(["init", "--fixtures", "../elsewhere"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "waiver: error: 3 problems, so nothing was written:"
    assert lines[1].startswith(
        "  1. give --waiver-repository OWNER/NAME and --waiver-ref FULL_SHA: "
    )
    assert (
        lines[2] == "  2. --fixtures must name a folder inside the repository, got '../elsewhere'"
    )
    assert lines[3].startswith("  3. no property suite found, so nothing was written: ")
    assert len(lines) == 4
    assert not any((root / name).exists() for name in FILES)


DYNAMIC_CONFTEST = 'pytest_plugins = [name + ".plugin" for name in ["helpers"]]\n'


def test_the_lock_and_the_collection_are_named_beside_every_other_problem_in_readable_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write(plugin(tmp_path), {
        "tests/conftest.py": DYNAMIC_CONFTEST,
        "tests/test_broken.py": "import no_such_module\n",
    })  # fmt: skip
    monkeypatch.chdir(root)
    assert main(["init", "--no-verify", "--fixtures", "../elsewhere"]) == 2
    lines = capsys.readouterr().err.splitlines()
    # What the files say comes first, each problem once, and the suite is not run yet.
    assert lines[0] == "waiver: error: 3 problems, so nothing was written:"
    assert [line[:5] for line in lines[1:4]] == ["  1. ", "  2. ", "  3. "]
    assert lines[3].startswith("  3. tests/conftest.py: sets pytest_plugins to something")
    assert lines[4:] == [
        "The written commands were not run: init runs them once these are settled."
    ]
    # Once those are settled, the run names its own problem.
    pin = ["--waiver-repository", "acme/waiver", "--waiver-ref", WAIVER_REF]
    assert main(["init", "--no-verify", *pin, "--harness", "tests/conftest.py"]) == 2
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[0].startswith("waiver: error: tests: pytest could not run the tests (exit ")
    # pytest's own output keeps its lines, indented under its problem.
    assert "  E   ModuleNotFoundError: No module named 'no_such_module'" in lines
    assert "<U+000A>" not in err
    assert not any((root / name).exists() for name in FILES)


def test_harness_globs_are_kept_in_the_policy_and_lock_what_the_gate_cannot_find(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write(plugin(tmp_path), {"tests/conftest.py": DYNAMIC_CONFTEST})
    assert init(root) == 2
    assert "tests/conftest.py: sets pytest_plugins to something" in capsys.readouterr().err
    assert init(root, "--harness", "tests/conftest.py", "--harness", "helpers/*.py") == 0
    policy = yaml.safe_load((root / "waiver.yml").read_text())
    assert policy["harness"] == ["tests/conftest.py", "helpers/*.py"]
    locked = [line.split("  ", 1)[1] for line in (root / "fixture.lock").read_text().splitlines()
              if not line.startswith("#")]  # fmt: skip
    assert {"tests/conftest.py", "helpers/__init__.py", "helpers/plugin.py"} <= set(locked)


def test_the_printed_registry_refresh_runs_the_commands_init_was_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = flat(tmp_path)
    junit = '--junitxml="$WAIVER_JUNIT"'
    tests = (
        f"python -m pytest --rootdir=. tests --ignore=tests/properties -p no:cacheprovider {junit}"
    )
    properties = f'python -m pytest --rootdir=. -m "" tests/properties {junit}'
    capsys.readouterr()
    assert init(root, "--test-command", tests, "--property-command", properties) == 0
    [refresh] = [
        line.removeprefix("  refresh: ")
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("  refresh: scratch=")
    ]
    assert shlex.join(["sh", "-c", tests]) in refresh
    assert shlex.quote(shlex.join(["sh", "-c", properties])) in refresh
    written = (root / "known-tests.txt").read_text()
    (root / "known-tests.txt").unlink()
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-c", refresh], cwd=root, env=env, capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "known-tests.txt").read_text() == written


def test_a_property_folder_without_a_property_test_is_no_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = flat(tmp_path)
    (root / "tests" / "properties" / "test_props.py").write_text(
        "import pytest\n\n\n@pytest.mark.skip\ndef test_nothing():\n    pass\n"
    )
    assert init(root, "--property-suite", "tests/properties") == 2
    assert "pytest ran no property test in tests/properties" in (capsys.readouterr().err)
    assert not any((root / name).exists() for name in FILES)


def test_hypothesis_tests_among_other_tests_are_the_property_suite_by_their_marker(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = flat(tmp_path)
    (root / "tests" / "properties" / "test_props.py").rename(root / "tests" / "test_props.py")
    assert init(root) == 0
    assert "1 property in the tests that -m hypothesis selects" in capsys.readouterr().out
    inputs = workflow_inputs(root)
    assert inputs["property-command"] == (
        'python -m pytest --rootdir=. tests -m hypothesis --junitxml="$WAIVER_JUNIT"'
    )
    assert inputs["test-command"] == (
        "python -m pytest --rootdir=. tests -m 'not hypothesis' --junitxml=\"$WAIVER_JUNIT\""
    )
    assert "tests/test_props.py::test_add_commutes" in (root / "known-tests.txt").read_text()
    assert "tests/test_props.py" not in (root / "fixture.lock").read_text()
    assert "\nproperty_suite: selected\n" in (root / "waiver.yml").read_text()


@pytest.mark.parametrize(
    ("selection", "property_words", "test_words"),
    [
        ("-m props", "tests -m props", "tests -m 'not props'"),
        ("-k 'commutes or adds'", "-m '' tests -k 'commutes or adds'",
         "tests -k 'not (commutes or adds)'"),
        ("tests/test_props.py::test_add_commutes", "-m '' tests/test_props.py::test_add_commutes",
         "tests --deselect=tests/test_props.py::test_add_commutes"),
    ],
    ids=["marker", "keyword", "ids"],
)  # fmt: skip
def test_a_project_names_its_own_property_selection(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    selection: str,
    property_words: str,
    test_words: str,
) -> None:
    root = flat(tmp_path)
    (root / "tests" / "properties" / "test_props.py").rename(root / "tests" / "test_props.py")
    (root / "pyproject.toml").write_text(
        (root / "pyproject.toml").read_text() + 'markers = ["props: property tests"]\n'
    )
    marked = (
        (root / "tests" / "test_props.py")
        .read_text()
        .replace("@given", "@pytest.mark.props\n@given")
    )
    (root / "tests" / "test_props.py").write_text("import pytest\n" + marked)
    assert init(root, f"--property-select={selection}") == 0
    inputs = workflow_inputs(root)
    assert (
        f"python -m pytest --rootdir=. {property_words} --junitxml=" in inputs["property-command"]
    )
    assert f"python -m pytest --rootdir=. {test_words} --junitxml=" in inputs["test-command"]
    assert "(4 tests, 1 property in the tests that " in capsys.readouterr().out
    assert "tests/test_props.py::test_add_commutes\n" in (root / "known-tests.txt").read_text()


def test_without_a_fixture_folder_the_lock_holds_the_harness_alone_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = flat(tmp_path)
    shutil.rmtree(root / "tests" / "data")
    shutil.rmtree(root / "tests" / "fixtures")
    (root / "tests" / "test_lib.py").write_text("from lib import add\n\n\ndef test_add():\n"
                                               "    assert add(1, 2) == 3\n")  # fmt: skip
    assert init(root) == 0
    out = capsys.readouterr().out
    assert "\n  note: no fixture folder found, so the lock holds the harness alone and " in out
    lock = (root / "fixture.lock").read_text().splitlines()
    assert [line.rsplit("  ", 1)[1] for line in lock] == [
        "pyproject.toml", "tests/conftest.py", "tests/properties/test_props.py"
    ]  # fmt: skip
    assert "\nfixtures: []\n" in (root / "waiver.yml").read_text()
    assert workflow_inputs(root)["fixtures"] == "."


def test_a_dry_run_prints_every_file_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = flat(tmp_path)
    assert init(root, "--dry-run") == 0
    out = capsys.readouterr().out
    for name in FILES:
        assert f"waiver: would write {name}: " in out
    assert "uses: acme/waiver/.github/workflows/waiver-gate.yml@" in out
    assert out.endswith("waiver: dry run; nothing written\n")
    assert not any((root / name).exists() for name in FILES)


@pytest.mark.parametrize(
    ("flags", "problem"),
    [
        (["--waiver-ref", "main"], "--waiver-ref must be a full commit id"),
        (["--waiver-repository", "not a repo"], "--waiver-repository must be OWNER/NAME"),
        (["--app-client-id", "Iv1; rm -rf"],
         "argument --app-client-id: must be the app's client ID (letters and digits)"),
        (["--fixtures", "../elsewhere"], "--fixtures must name a folder inside the repository"),
        # A selection pytest cannot take apart:
        (["--property-select=-x"], "--property-select takes -m EXPR, -k EXPR or test ids"),
        (["--property-select", "tests/test_props.py"], "--property-select takes -m EXPR"),
        (["--property-select=-m hypothesis", "--property-suite", "tests/properties"],
         "give --property-suite or --property-select, not both"),
    ],
)  # fmt: skip
def test_bad_flags_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], problem: str
) -> None:
    root = flat(tmp_path)
    assert init(root, *flags) == 2
    assert problem in capsys.readouterr().err
    assert not any((root / name).exists() for name in FILES)


PROJECT = '[project]\nname = "lib"\nversion = "0"\n'
PYTEST_TABLE = '\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
EXTRAS = "project.optional-dependencies"
REQUIREMENTS = "an array of requirement strings"
GROUP_ITEMS = f"{REQUIREMENTS} and include-group tables"


@pytest.mark.parametrize(
    ("pyproject", "problem"),
    [
        (f'{PROJECT}optional-dependencies = "test"\n', f"[{EXTRAS}] must be a table, not a string"),
        (f'{PROJECT}optional-dependencies = ["pytest"]\n', f"[{EXTRAS}] must be a table, not an array"),
        (f"{PROJECT}optional-dependencies = 3\n", f"[{EXTRAS}] must be a table, not a number"),
        (f'{PROJECT}\n[{EXTRAS}]\ntest = "pytest"\n', f"[{EXTRAS}] test must be {REQUIREMENTS}, not a string"),
        (f"{PROJECT}\n[{EXTRAS}]\ntest = [1, 2]\n", f"[{EXTRAS}] test must be {REQUIREMENTS}; it holds a number"),
        (f'{PROJECT}\n[{EXTRAS}]\ntest = [{{include-group = "x"}}]\n', f"[{EXTRAS}] test must be {REQUIREMENTS}; it holds a table"),
        (f'dependency-groups = "test"\n{PROJECT}', "[dependency-groups] must be a table, not a string"),
        (f'dependency-groups = ["pytest"]\n{PROJECT}', "[dependency-groups] must be a table, not an array"),
        (f"dependency-groups = true\n{PROJECT}", "[dependency-groups] must be a table, not a boolean"),
        (f'{PROJECT}\n[dependency-groups]\ntest = "pytest"\n', f"[dependency-groups] test must be {GROUP_ITEMS}, not a string"),
        (f"{PROJECT}\n[dependency-groups]\ntest = [1979-05-27]\n", f"[dependency-groups] test must be {GROUP_ITEMS}; it holds a date or time"),
        (f'{PROJECT}\n[dependency-groups]\ntest = [["pytest"]]\n', f"[dependency-groups] test must be {GROUP_ITEMS}; it holds an array"),
        ('project = "lib"\n', "[project] must be a table, not a string"),
    ],
    ids=[
        "extras a string", "extras an array", "extras a number", "an extra a string",
        "an extra of numbers", "an extra including a group", "groups a string", "groups an array",
        "groups a boolean", "a group a string", "a group of dates", "a group of arrays",
        "project a string",
    ],
)  # fmt: skip
def test_a_pyproject_whose_install_tables_are_malformed_is_an_input_error_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pyproject: str, problem: str
) -> None:
    root = flat(tmp_path)
    (root / "pyproject.toml").write_text(pyproject + PYTEST_TABLE)
    assert init(root) == 2
    assert capsys.readouterr().err == f"waiver: error: pyproject.toml: {problem}\n"
    assert not any((root / name).exists() for name in FILES)


def test_a_pyproject_that_is_not_utf_8_is_an_input_error_beside_another_pytest_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = flat(tmp_path)
    (root / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n")
    (root / "pyproject.toml").write_bytes(b'[project]\nname = "\xff"\n')
    assert init(root) == 2
    assert capsys.readouterr().err.startswith("waiver: error: pyproject.toml: not valid TOML: ")
    assert not any((root / name).exists() for name in FILES)


DEV_GROUPS = (
    '[dependency-groups]\nlint = ["ruff"]\ndev = ["hypothesis", {include-group = "lint"}]\n'
)


@pytest.mark.parametrize(
    ("tables", "step"),
    [
        # Each test job pays for what the step installs: the dev set's linters are no test's.
        (f'[{EXTRAS}]\ntest = ["pytest"]\n\n{DEV_GROUPS}',
         "python -m pip install -e '.[test]' pytest hypothesis"),
        # Nothing names the tests' dependencies: the dev group stands in.
        (DEV_GROUPS,
         "python -m pip install 'pip>=25.1' && python -m pip install -e . pytest hypothesis "
         "--group dev"),
    ],
)  # fmt: skip
def test_the_install_step_takes_the_test_extra_and_the_dev_group_only_in_its_place(
    tables: str, step: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = flat(tmp_path)
    (root / "pyproject.toml").write_text(f"{PROJECT}\n{tables}{PYTEST_TABLE}")
    assert init(root, "--dry-run") == 0
    assert f'      setup-command: "{step}"\n' in capsys.readouterr().out


def test_the_install_step_takes_a_test_environment_but_its_tools_and_not_the_dev_group(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Redis-backed library's hatch test environment, as rq's: its linters, type
    checkers, stubs, tox and the coverage uploader cost every test job their install, and
    no test imports them; pytest's coverage plugin stays (a configuration may use it)."""
    root = flat(tmp_path)
    (root / "pyproject.toml").write_text(
        f'{PROJECT}\n[dependency-groups]\ndev = ["ruff", "mypy", "redis"]\n\n'
        "[tool.hatch.envs.test]\ndependencies = [\n"
        '  "codecov", "psutil", "pytest", "pytest-cov", "coverage", "mypy>=1.0",\n'
        '  "packaging", "Ruff", "tox<5", "types-redis", "types_setuptools", "django-stubs",\n'
        '  "flake8-bugbear",\n]\n' + PYTEST_TABLE
    )
    assert init(root, "--dry-run") == 0
    assert (
        '      setup-command: "python -m pip install -e . psutil pytest pytest-cov coverage '
        'packaging hypothesis"\n'
    ) in capsys.readouterr().out


def printed_refresh(printed: str, command: str) -> str:
    """The refresh command init printed for the file that `command` writes."""
    [refresh] = [
        line.removeprefix("  refresh: ")
        for line in printed.splitlines()
        if line.startswith(f"  refresh: {command}")
    ]
    return refresh


def test_the_printed_lock_refresh_writes_the_same_lock(
    change: tuple[Path, str], initialised: tuple[Path, str]
) -> None:
    root, _ = change
    refresh = printed_refresh(initialised[1], "waiver lock ")
    written = (root / "fixture.lock").read_bytes()
    (root / "fixture.lock").unlink()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        assert main(shlex.split(refresh)[1:]) == 0
    finally:
        os.chdir(cwd)
    assert (root / "fixture.lock").read_bytes() == written


def test_without_flags_the_waiver_pip_installed_from_github_is_pinned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    installed_from_github(tmp_path / "site", monkeypatch)
    root = flat(tmp_path / "repo")
    monkeypatch.chdir(root)
    assert main(["init", "--no-verify", "--dry-run"]) == 0
    assert f"uses: acme/waiver/.github/workflows/waiver-gate.yml@{WAIVER_REF}\n" in (
        capsys.readouterr().out
    )


def test_without_flags_a_waiver_not_installed_from_github_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # This checkout is installed in editable mode from a folder: no repository, no commit.
    monkeypatch.chdir(flat(tmp_path))
    assert main(["init", "--no-verify", "--dry-run"]) == 2
    assert capsys.readouterr().err.startswith(
        "waiver: error: give --waiver-repository OWNER/NAME and --waiver-ref FULL_SHA"
    )


def test_the_printed_registry_refresh_from_a_real_replay_lists_the_same_ids(
    change: tuple[Path, str], initialised: tuple[Path, str]
) -> None:
    """The ids init takes from pytest's collection are the ids the gate reads from JUnit."""
    root, _ = change
    refresh = printed_refresh(initialised[1], "scratch=")
    collected = (root / "known-tests.txt").read_text()
    (root / "known-tests.txt").unlink()
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-c", refresh], cwd=root, env=env, capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "known-tests.txt").read_text() == collected
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""


def test_actionlint_finds_every_input_of_the_written_workflow_in_the_reusable_workflow(
    change: tuple[Path, str], tmp_path: Path
) -> None:
    """The written workflow, pointed at this checkout's waiver-gate.yml as a local reusable
    workflow, so that actionlint checks each input's name and type against it."""
    root, _ = change
    repo = tmp_path / "lint"
    (repo / ".github" / "workflows").mkdir(parents=True)
    # Each written workflow, beside the reusable one it calls, under a name of its own.
    for reusable, written_name, caller in (
        ("waiver-gate.yml", "waiver.yml", "waiver.yml"),
        ("waiver-report.yml", "waiver-report.yml", "report.yml"),
        ("waiver-history.yml", "waiver-history.yml", "history.yml"),
    ):
        shutil.copy(REPO / ".github" / "workflows" / reusable, repo / ".github" / "workflows")
        written = (root / ".github" / "workflows" / written_name).read_text()
        local = written.replace(
            f"acme/waiver/.github/workflows/{reusable}@{WAIVER_REF}",
            f"./.github/workflows/{reusable}",
        )
        assert local != written
        (repo / ".github" / "workflows" / caller).write_text(local)
    local = (repo / ".github" / "workflows" / "waiver.yml").read_text()
    subprocess.run(["git", "init", "--quiet"], cwd=repo, check=True)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    linted = subprocess.run([str(BIN / "actionlint")], cwd=repo, env=env, capture_output=True,
                            text=True, check=False)  # fmt: skip
    assert linted.returncode == 0, linted.stdout + linted.stderr
    broken = local.replace("known-tests:", "known-test:")
    (repo / ".github" / "workflows" / "waiver.yml").write_text(broken)
    linted = subprocess.run([str(BIN / "actionlint")], cwd=repo, env=env, capture_output=True,
                            text=True, check=False)  # fmt: skip
    assert linted.returncode == 1
    assert 'input "known-test" is not defined' in linted.stdout


def test_an_existing_policy_file_is_kept_and_completed_not_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write(plugin(tmp_path), {"tests/conftest.py": DYNAMIC_CONFTEST})
    ours = (
        "# Our own policy, written by hand.\n"
        'harness:\n  - "tests/conftest.py"\n\n'
        'strict:\n  - "tests/test_lib.py::*"\n'
    )
    (root / "waiver.yml").write_text(ours)
    assert init(root, "--harness", "helpers/*.py") == 0
    merged = (root / "waiver.yml").read_text()
    # What the file said stays, line for line; init adds its glob and the keys it lacks.
    assert merged.startswith(
        '# Our own policy, written by hand.\nharness:\n  - "tests/conftest.py"\n  - "helpers/*.py"\n'
    )
    policy = yaml.safe_load(merged)
    assert policy["strict"] == ["tests/test_lib.py::*"]
    assert policy["harness"] == ["tests/conftest.py", "helpers/*.py"]
    assert policy["registry"] == "known-tests.txt"
    assert "min_replays" not in policy
    assert "helpers/plugin.py" in (root / "fixture.lock").read_text()
    assert "waiver: wrote waiver.yml: the policy file as it was, with the registry" in (
        capsys.readouterr().out
    )


def test_a_harness_list_init_cannot_add_to_is_a_problem_that_names_the_globs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write(plugin(tmp_path), {"tests/conftest.py": DYNAMIC_CONFTEST})
    (root / "waiver.yml").write_text('harness: ["tests/conftest.py"]\n')
    assert init(root, "--harness", "helpers/*.py") == 2
    err = capsys.readouterr().err
    assert "waiver.yml: init adds globs only to a block list under a plain `harness:` line" in err
    assert "helpers/*.py" in err
    assert (root / "waiver.yml").read_text() == 'harness: ["tests/conftest.py"]\n'
    assert not (root / "fixture.lock").exists()


def test_the_registry_comes_from_a_real_run_so_a_test_that_skips_itself_is_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write(flat(tmp_path), {
        "tests/test_runtime.py": "import pytest\n\n\ndef test_skips_itself():\n"
                                 "    pytest.skip('no service here')\n\n\n"
                                 "def test_fails():\n    assert 100 == 2000\n",
    })  # fmt: skip
    capsys.readouterr()
    assert init(root) == 0
    registry = (root / "known-tests.txt").read_text().splitlines()
    assert "tests/test_runtime.py::test_fails" in registry
    assert not any("test_skips_itself" in test_id for test_id in registry)
    out = capsys.readouterr().out
    assert "2 skipped tests left out" in out
    assert (
        "  note: 1 test failed in this run of your tree: tests/test_runtime.py::test_fails. A "
        "base with stable failures blocks every pull request until they are fixed or "
        "deselected in the commands\n"
    ) in out


@pytest.mark.parametrize(
    ("files", "taken"),
    [
        # The files of the tests' dependencies; the developers' tools are left.
        ({"requirements-dev.txt": "pytest-timeout\nruff\n", "requirements/tests.txt": "freezegun\n",
          "test-requirements.txt": "pytest-timeout\n", "requirements/docs.txt": "sphinx\n"},
         "-r test-requirements.txt -r requirements/tests.txt"),
        # None names them: the developers' files stand in.
        ({"requirements-dev.txt": "pytest-timeout\n", "requirements/dev.txt": "freezegun\n",
          "requirements/docs.txt": "sphinx\n"},
         "-r requirements-dev.txt -r requirements/dev.txt"),
    ],
)  # fmt: skip
def test_the_install_step_takes_the_requirements_files_of_the_test_dependencies(
    files: dict[str, str], taken: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write(flat(tmp_path), files)
    assert init(root, "--dry-run") == 0
    assert (
        f'      setup-command: "python -m pip install -e . {taken} pytest hypothesis"\n'
    ) in capsys.readouterr().out


NEEDS_A_PLUGIN = "import xdist\n\n\ndef test_has_the_plugin():\n    assert xdist\n"


def test_the_written_commands_are_proved_in_a_fresh_venv_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The suite needs a plugin that only requirements-dev.txt names: in the environment
    init runs in it is there, in a fresh venv only through the install step."""
    root = write(flat(tmp_path), {"tests/test_plugin.py": NEEDS_A_PLUGIN})
    proving = ["--waiver-repository", "acme/waiver", "--waiver-ref", WAIVER_REF]
    cwd = os.getcwd()
    os.chdir(root)
    try:
        # A command that cannot run in a fresh venv stops init, named, with pytest's output.
        (root / "requirements-dev.txt").write_text("")
        assert main(["init", *proving]) == 2
        err = capsys.readouterr().err
        assert err.startswith("waiver: error: --test-command: the written command cannot run in "
                              "a fresh venv (exit 2, a report): ")  # fmt: skip
        assert "  E   ModuleNotFoundError: No module named 'xdist'" in err.splitlines()
        assert not any((root / name).exists() for name in FILES)
        # With the plugin in requirements-dev.txt the install step brings it, and init writes.
        (root / "requirements-dev.txt").write_text("pytest-xdist\n")
        assert main(["init", *proving]) == 0
    finally:
        os.chdir(cwd)
    registry = (root / "known-tests.txt").read_text()
    assert "tests/test_plugin.py::test_has_the_plugin\n" in registry
