"""A library's first day with the gate: Hypothesis tests beside plain ones in one module, a
strategy imported from another test module relatively, the test dependencies in
`[dependency-groups]`, and no data folder.

`waiver init` runs there with no flag but what a pip install from GitHub records; the
commands it writes run once in a fresh venv of the oldest Python the project supports;
then changes are committed, replayed with real pytest and gated against the base.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from helpers.init_support import (
    BIN,
    commit_as_base,
    copy_to_change,
    gate_written,
    installed_from_github,
    workflow_inputs,
)
from helpers.support import REPO, git, write_tree
from waiver.cli import main
from waiver.runners.pytest.setup.pytest_layout import find_layout
from waiver.runners.pytest.setup.suite_commands import registry_refresh

LIBRARY = """\
def add(a, b):
    return a + b


def describe(count):
    return f"{count} items"
"""
STRATEGIES = """\
from hypothesis import strategies as st

counts = st.integers(min_value=-(10**6), max_value=10**6)
"""
TESTS = """\
from hypothesis import given

from tally import add, describe

from .strategies import counts


@given(counts)
def test_adding_zero_changes_nothing(n):
    assert add(n, 0) == n


def test_add():
    assert add(1, 2) == 3


def test_describe():
    assert describe(3) == "3 items"
"""
FILES = {
    "pyproject.toml": '[project]\nname = "tally"\nversion = "0"\n\n'
    '[dependency-groups]\ntests = ["pytest", "hypothesis"]\n\n'
    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    ".gitignore": "__pycache__/\n.hypothesis/\n*.egg-info/\nreports/\nwaiver.json\n",
    "tally.py": LIBRARY,
    "tests/__init__.py": "",
    "tests/strategies.py": STRATEGIES,
    "tests/test_tally.py": TESTS,
    "tests/test_plain.py": "from tally import add\n\n\ndef test_add_zero():\n"
    "    assert add(0, 0) == 0\n",
}
PROPERTY = "tests/test_tally.py::test_adding_zero_changes_nothing"


@pytest.fixture(scope="module")
def first_day(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The library after `waiver init` with no flags, its files committed as the base."""
    root = write_tree(tmp_path_factory.mktemp("tally"), FILES)
    with pytest.MonkeyPatch.context() as patch:
        installed_from_github(tmp_path_factory.mktemp("site"), patch)
        patch.chdir(root)
        assert main(["init"]) == 0
    return commit_as_base(root)


@pytest.fixture
def change(first_day: Path, tmp_path: Path) -> tuple[Path, str]:
    return copy_to_change(first_day, tmp_path)


def commit(root: Path, files: dict[str, str]) -> None:
    write_tree(root, dict(files))
    git(root, "commit", "--quiet", "-am", "change")


# Slow like the others of this module: its fixture proves the written commands in a fresh
# venv, which installs the library and its test dependencies.
@pytest.mark.slow
def test_init_selects_the_hypothesis_tests_and_locks_the_harness_alone(first_day: Path) -> None:
    inputs = workflow_inputs(first_day)
    assert inputs["setup-command"] == (
        "python -m pip install 'pip>=25.1' && python -m pip install -e . pytest hypothesis "
        "--group tests"
    )
    assert inputs["property-command"] == (
        'python -m pytest --rootdir=. tests -m hypothesis --junitxml="$WAIVER_JUNIT"'
    )
    assert inputs["test-command"] == (
        "python -m pytest --rootdir=. tests -m 'not hypothesis' --junitxml=\"$WAIVER_JUNIT\""
    )
    assert (first_day / "known-tests.txt").read_text().splitlines() == [
        "tests/test_plain.py::test_add_zero", "tests/test_tally.py::test_add",
        PROPERTY, "tests/test_tally.py::test_describe",
    ]  # fmt: skip
    locked = [
        line.rsplit("  ", 1)[1] for line in (first_day / "fixture.lock").read_text().splitlines()
    ]
    assert locked == ["pyproject.toml"]
    policy = (first_day / "waiver.yml").read_text()
    assert "\nfixtures: []\n" in policy and "\nproperty_suite: selected\n" in policy


def oldest_python() -> str:
    """The interpreter of the oldest Python version the project supports."""
    requires = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["requires-python"]
    version = re.fullmatch(r">=\s*(\d+\.\d+)", requires)
    assert version, requires
    found = shutil.which(f"python{version.group(1)}")
    assert found, f"no python{version.group(1)} on PATH to run the written commands with"
    return found


@pytest.mark.slow
def test_the_written_commands_run_in_a_fresh_venv_of_the_oldest_python(
    change: tuple[Path, str], tmp_path: Path
) -> None:
    root, _ = change
    venv = tmp_path / "venv"
    subprocess.run([oldest_python(), "-m", "venv", str(venv)], check=True)
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    inputs = workflow_inputs(root)
    # The red-green job's file: ids of one test file, one a line.
    (tmp_path / "tests.txt").write_text(
        "tests/test_tally.py::test_add\ntests/test_tally.py::test_describe\n"
    )
    env["WAIVER_TESTS"] = str(tmp_path / "tests.txt")
    for name in ("setup-command", "property-command", "test-command", "red-green-command"):
        junit = tmp_path / f"{name}.xml"
        done = subprocess.run(["bash", "-c", inputs[name]], cwd=root, capture_output=True,
                              text=True, check=False, env={**env, "WAIVER_JUNIT": str(junit)})  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
    for name in ("property-command", "test-command", "red-green-command"):
        assert 'errors="0" failures="0"' in (tmp_path / f"{name}.xml").read_text()
    assert not (tmp_path / "setup-command.xml").exists()
    assert 'tests="1"' in (tmp_path / "property-command.xml").read_text()
    assert 'tests="3"' in (tmp_path / "test-command.xml").read_text()
    assert 'tests="2"' in (tmp_path / "red-green-command.xml").read_text()


@pytest.mark.slow
def test_an_honest_change_is_not_blocked(change: tuple[Path, str]) -> None:
    root, base = change
    commit(root, {"tally.py": LIBRARY.replace("return a + b", "total = a + b\n    return total")})
    code, report = gate_written(root, base)
    assert (code, report["verdict"]) == (0, "clean"), report
    assert report["counts"]["stable_pass"] == 3


@pytest.mark.slow
def test_a_break_only_the_property_catches_is_property_violation(change: tuple[Path, str]) -> None:
    root, base = change
    commit(root, {"tally.py": LIBRARY.replace("return a + b", "return a + b + (a > 1000)")})
    code, report = gate_written(root, base)
    assert code == 1
    assert report["properties"]["failed"] == [PROPERTY]
    assert {row["class"] for row in report["rows"]} == {"property_violation"}


@pytest.mark.slow
def test_a_break_a_plain_test_catches_is_stable_assertion_fail(change: tuple[Path, str]) -> None:
    root, base = change
    commit(root, {"tally.py": LIBRARY.replace("{count} items", "{count} item")})
    code, report = gate_written(root, base)
    assert code == 1
    assert {row["test_id"]: row["class"] for row in report["rows"]} == {
        "tests/test_plain.py::test_add_zero": "stable_pass",
        "tests/test_tally.py::test_add": "stable_pass",
        "tests/test_tally.py::test_describe": "stable_assertion_fail",
    }
    # The reviewer reads what failed in the summary, without opening the XML.
    [failed] = [row for row in report["rows"] if row["class"] == "stable_assertion_fail"]
    assert failed["message"].startswith("AssertionError: assert '3 item' == '3 items'")
    assert "AssertionError: assert '3 item' == '3 items'" in (root / "summary.md").read_text()


@pytest.mark.slow
def test_a_property_weakened_through_its_imported_strategy_waits_for_review(
    change: tuple[Path, str],
) -> None:
    root, base = change
    commit(root, {
        "tests/strategies.py": STRATEGIES.replace("st.integers(min_value=-(10**6), max_value=10**6)",
                                                  "st.just(0)"),
        "tally.py": LIBRARY.replace("return a + b", "return a + b + (a > 1000)"),
    })  # fmt: skip
    code, report = gate_written(root, base)
    assert code == 1
    [row] = [row for row in report["rows"] if row["test_id"] == PROPERTY]
    assert (row["class"], row["unknown"]) == ("unknown_test", "edited")
    assert [edit["test_id"] for edit in report["registry"]["edited"]] == [PROPERTY]


@pytest.mark.slow
def test_refreshing_the_registry_leaves_git_status_clean(change: tuple[Path, str]) -> None:
    root, _ = change
    registry = (root / "known-tests.txt").read_text()
    (root / "known-tests.txt").unlink()
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-c", registry_refresh(find_layout(str(root)))], cwd=root,
                          env=env, capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "known-tests.txt").read_text() == registry
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
