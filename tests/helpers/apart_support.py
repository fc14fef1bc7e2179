"""A small pytest project built from scratch, one change on top, and the gate's flow of SPEC
3.11: the change's new and edited tests replayed on its own tree (`waiver change-tests`),
then the verdict replays of the base's test tree against the change's code (`waiver replay
--tests-from BASE`), then the gate with `--change-tests`, as a user runs them locally (the
reusable workflow runs the same in jobs of its own)."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from helpers.change_support import approvals_file
from helpers.support import git, load_report, write_tree
from waiver.cli import main

PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
NOW = "2026-12-01T12:00:00+00:00"
REPLAYS = 3

CALC = """\
def clamp(value, low, high):
    return max(low, min(value, high))


def add(a, b):
    return a + b
"""
# The bug the attacks hide: clamp no longer clamps from above.
BROKEN_CALC = CALC.replace("min(value, high)", "value")
BASE: dict[str, str | bytes] = {
    "pytest.ini": "[pytest]\ntestpaths = tests\n",
    "calc.py": CALC,
    "fixtures/limits.json": '{"low": 0, "high": 10}\n',
    "tests/__init__.py": "",
    "tests/helpers.py": """\
def check(value, expected):
    assert value == expected
""",
    "tests/data/expected.json": '{"clamped": 10}\n',
    "tests/test_calc.py": """\
import json
from pathlib import Path

from calc import add, clamp
from tests.helpers import check

EXPECTED = json.loads((Path(__file__).parent / "data" / "expected.json").read_text())


def test_clamp_high():
    check(clamp(99, 0, 10), EXPECTED["clamped"])


def test_clamp_low():
    assert clamp(-5, 0, 10) == 0


def test_add():
    assert add(2, 3) == 5
""",
    "tests/properties/__init__.py": "",
    "tests/properties/test_props.py": """\
from calc import clamp


def test_clamp_stays_in_range():
    for value in range(-20, 20):
        assert 0 <= clamp(value, 0, 10) <= 10 or value > 10
""",
}
HIGH = "tests/test_calc.py::test_clamp_high"
LOW = "tests/test_calc.py::test_clamp_low"
ADD = "tests/test_calc.py::test_add"


def commit_project(work: Path, files: Mapping[str, str | bytes] = BASE) -> str:
    """The project committed with its lock and its registry (written from one run): the
    base commit's id."""
    write_tree(work, dict(files))
    (work / ".gitignore").write_text("reports/\nchange-reports/\nwaiver.json\n")
    git(work, "init", "--quiet")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(work)
        assert main(["lock", "--fixtures", "fixtures", "--property-suite", "tests/properties"]) == 0
        scratch = work / "reports"
        assert main(["replay", "-n", "1", "--out", str(scratch), "--", *PYTEST, "tests",
                     "--junitxml={junit}"]) == 0  # fmt: skip
        assert main(["baseline", "--reports", str(scratch), "--out", "known-tests.txt"]) == 0
    for path in scratch.iterdir():
        path.unlink()
    scratch.rmdir()
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "base")
    return git(work, "rev-parse", "HEAD")


def commit_change(work: Path, files: Mapping[str, str | bytes], *deleted: str) -> str:
    write_tree(work, dict(files))
    for path in deleted:
        (work / path).unlink()
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "change")
    return git(work, "rev-parse", "HEAD")


def register(work: Path, *test_ids: str) -> dict[str, str]:
    """The registry with `test_ids` added, as a change writes it."""
    known = (work / "known-tests.txt").read_text()
    return {"known-tests.txt": known + "".join(f"{test_id}\n" for test_id in test_ids)}


def replay_apart(work: Path, base: str, replays: int = REPLAYS) -> None:
    """The change's tests on its own tree, then the base's test tree on its code."""
    properties = shlex.join([*PYTEST, "tests/properties", "--junitxml={junit}"])
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(work)
        assert main(["change-tests", "--base", base, "-n", str(replays), "--out",
                     "change-reports", "--known-tests", "known-tests.txt", "--",
                     *PYTEST, "--junitxml={junit}"]) == 0  # fmt: skip
        main(["replay", "-n", str(replays), "--out", "reports", "--tests-from", base,
              "--properties-first", properties, "--", *PYTEST, "tests",
              "--ignore=tests/properties", "--junitxml={junit}"])  # fmt: skip


def gate_apart(
    work: Path, base: str, approved: bool = False, replays: int = REPLAYS
) -> tuple[int, dict[str, Any]]:
    """The gate on what `replay_apart` left, with an approval of the head when `approved`."""
    review = []
    if approved:
        review = ["--approvals", str(approvals_file(work, git(work, "rev-parse", "HEAD")))]
    code = main(
        ["gate", "--root", str(work), "--reports", str(work / "reports"),
         "--properties", str(work / "reports" / "properties.xml"),
         "--change-tests", str(work / "change-reports"),
         "--fixtures", str(work / "fixtures"), "--lock", str(work / "fixture.lock"),
         "--known-tests", str(work / "known-tests.txt"), "--min-replays", str(replays),
         "--replays", str(replays), "--out", str(work / "waiver.json"),
         "--trusted-ref", base, "--now", NOW, *review]
    )  # fmt: skip
    return code, load_report(work / "waiver.json")


Files = Mapping[str, str | bytes]


def change_and_gate(
    work: Path, change: Files | Callable[[Path], Files], *deleted: str, approved: bool = False
) -> tuple[int, dict[str, Any]]:
    """The base project, `change` (its files, or what makes them from the base's tree)
    committed on top, replayed apart and gated."""
    base = commit_project(work)
    commit_change(work, change(work) if callable(change) else change, *deleted)
    replay_apart(work, base)
    return gate_apart(work, base, approved)


def unknown_rows(report: Mapping[str, Any]) -> dict[str, tuple[str, int, int]]:
    """Each unknown_test row: (why, replays passed, replays)."""
    return {
        row["test_id"]: (row["unknown"], row["replay_pass"], row["replay_total"])
        for row in report["rows"]
        if row["class"] == "unknown_test"
    }


def dumped(report: Mapping[str, Any]) -> str:
    return json.dumps(report, indent=1)[:4000]
