"""`waiver change-tests` on a base and a change built from scratch: each of the change's test
files run whole on its tree, once per replay, into `run-<r>/file-<j>.xml`; and what it
refuses."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from helpers.red_green_support import BASE, CHANGE, commit
from helpers.support import git
from waiver.cli import main

REGISTRY = "known-tests.txt"
KNOWN = "tests/test_calc.py::test_add_small"


def repository(work: Path) -> str:
    git(work, "init", "--quiet")
    base = commit(work, {**BASE, REGISTRY: f"{KNOWN}\n"}, "base")
    commit(work, {**CHANGE, "conftest.py": ""}, "change")
    return base


@pytest.mark.slow
def test_each_test_file_of_the_change_runs_whole_once_per_replay(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = repository(work)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml={junit}"]
    assert main(["change-tests", "--base", base, "-n", "2", "--out", "out",
                 "--known-tests", REGISTRY, "--", *command]) == 0  # fmt: skip
    # The edited tests/test_calc.py and the new tests/test_mul.py, in the plan's order.
    for replay in (1, 2):
        assert sorted(p.name for p in (work / "out" / f"run-{replay}").glob("*.xml")) == [
            "file-1.xml", "file-2.xml",
        ]  # fmt: skip
    report = (work / "out" / "run-1" / "file-1.xml").read_text()
    assert 'name="test_add_big"' in report and 'name="test_add_zero"' in report
    assert "2 test files of the change replayed 2 times on its tree" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        (["--base", "main"], "give the base's full commit id"),
        (["--out", "taken"], "taken is not empty: waiver change-tests writes into a new folder"),
    ],
)
def test_a_branch_or_a_folder_that_is_not_empty_is_a_usage_error(
    work: Path, arguments: list[str], problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = repository(work)
    (work / "taken").mkdir()
    (work / "taken" / "run-1.xml").write_text("")
    flags = {
        "--base": base,
        "--out": "out",
        **dict(zip(arguments[::2], arguments[1::2], strict=True)),
    }
    given = [part for flag, value in flags.items() for part in (flag, value)]
    assert main(["change-tests", *given, "-n", "1", "--", "true"]) == 2
    assert problem in capsys.readouterr().err
