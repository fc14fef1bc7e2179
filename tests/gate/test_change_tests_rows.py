"""The gate given the change's own tests (`--change-tests`), on reports written by hand: a
base and a change committed, the verdict replays (the base's test tree on the change's
code) and the change's tests' replays (its own tree), and what each row is made of.

Only new, edited and deleted tests take anything from the change's tests: their rows are
`unknown_test`, an edited or deleted one with what its base version did on the change's
code beside it. A registered test the change left alone is judged by the verdict replays
alone, whatever its file's run on the change's tree said."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers.junit_support import PASSING_PROPERTIES, case, junit
from helpers.support import git, load_report, write_tree
from waiver.cli import main
from waiver.write.report.report_types import report_of
from waiver.write.summary.summary import render_summary
from waiver.write.words.terminal import render_terminal

MODULE = "tests.test_calc"
KEPT, EDITED, DELETED, NEW = (f"tests/test_calc.py::test_{n}" for n in "abcd")
FAIL = '<failure message="no"/>'
BASE = {
    "calc.py": "def one():\n    return 1\n",
    "tests/__init__.py": "",
    "tests/test_calc.py": "from calc import one\n\n\n"
    "def test_a():\n    assert one() == 1\n\n\n"
    "def test_b():\n    assert one() == 1\n\n\n"
    "def test_c():\n    assert one() > 0\n",
    "fixtures/limits.json": "{}\n",
    "known-tests.txt": f"{KEPT}\n{EDITED}\n{DELETED}\n",
}
# The code changes what test_b pinned; test_b is updated to it, test_c deleted, test_d added.
CHANGE = {
    "calc.py": "def one():\n    return 2\n",
    "tests/test_calc.py": "from calc import one\n\n\n"
    "def test_a():\n    assert one() == 1\n\n\n"
    "def test_b():\n    assert one() == 2\n\n\n"
    "def test_d():\n    assert one() < 3\n",
    "known-tests.txt": f"{KEPT}\n{EDITED}\n{NEW}\n",
}


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """The base committed with its lock, the change on top: (the checkout, the base)."""
    root = write_tree(tmp_path / "calc", dict(BASE))
    monkeypatch.chdir(root)
    assert main(["lock", "--fixtures", "fixtures"]) == 0
    git(root, "init", "--quiet")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "base")
    base = git(root, "rev-parse", "HEAD")
    write_tree(root, dict(CHANGE))
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "change")
    write_tree(root, {"properties.xml": PASSING_PROPERTIES})
    return root, base


def replays(folder: Path, cases: list[str], name: str = "run-{n}.xml") -> None:
    for n in (1, 2, 3):
        write_tree(folder, {name.format(n=n): junit(*cases)})


def gate(root: Path, base: str, *extra: str) -> tuple[int, dict[str, Any]]:
    code = main(
        ["gate", "--root", str(root), "--reports", str(root / "reports"),
         "--properties", str(root / "properties.xml"), "--fixtures", str(root / "fixtures"),
         "--lock", str(root / "fixture.lock"), "--known-tests", "known-tests.txt",
         "--trusted-ref", base, "--replays", "3", "--min-replays", "3",
         "--out", str(root / "waiver.json"), "--now", "2026-12-01T12:00:00+00:00", *extra]
    )  # fmt: skip
    return code, load_report(root / "waiver.json")


def rows(report: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    return {
        row["test_id"]: (
            row["class"], row["unknown"], row["replay_pass"], row["replay_total"],
            row.get("base_version", {}).get("meaning"),
        )
        for row in report["rows"]
    }  # fmt: skip


# The base's tests on the change's code: test_b pinned 1, which the change breaks.
VERDICT = [case(MODULE, "test_a", FAIL), case(MODULE, "test_b", FAIL), case(MODULE, "test_c")]
# The change's file on its tree: test_a's pass there is not the verdict's business.
OWN = [case(MODULE, "test_a"), case(MODULE, "test_b"), case(MODULE, "test_d")]


def test_only_new_edited_and_deleted_tests_take_anything_from_the_change_s_tests(
    work: tuple[Path, str],
) -> None:
    root, base = work
    replays(root / "reports", VERDICT)
    replays(root / "change-reports", OWN, "run-{n}/file-1.xml")
    code, report = gate(root, base, "--change-tests", str(root / "change-reports"))
    assert code == 1
    assert rows(report) == {
        KEPT: ("stable_assertion_fail", None, 0, 3, None),
        EDITED: ("unknown_test", "edited", 3, 3, "broken"),
        DELETED: ("unknown_test", "vanished", 0, 0, "kept"),
        NEW: ("unknown_test", "new", 3, 3, None),
    }
    assert report["change_tests"] == {
        "reports": str(root / "change-reports"), "count": 3, "read": 3, "errors": [],
        "problem": None,
    }  # fmt: skip
    summary = render_summary(report_of(report))
    assert (
        "| `tests/test_calc.py::test_b` | `the base's version fails on the change's code in 3 "
        "of 3 replays: the change breaks what this test pinned; the change's version passes "
        "3 of 3` |"
    ) in summary
    assert (
        "| `tests/test_calc.py::test_c` | `the change deletes it; the base's version passes on "
        "the change's code in 3 of 3 replays: the change keeps what this test pinned` |"
    ) in summary
    terminal = render_terminal(report_of(report))
    assert "base versions (2): what each edited or deleted test, as the base holds it" in terminal


def test_change_tests_that_cannot_be_read_leave_each_edited_row_not_run(
    work: tuple[Path, str],
) -> None:
    root, base = work
    replays(root / "reports", VERDICT)
    code, report = gate(root, base, "--change-tests", str(root / "missing"))
    assert code == 1
    assert report["change_tests"]["problem"].endswith("the change's tests folder does not exist")
    found = rows(report)
    assert found[EDITED] == ("unknown_test", "edited", 0, 0, "broken")
    assert NEW not in found  # no report of the change's tests names it


def test_without_change_tests_every_row_comes_from_the_reports(work: tuple[Path, str]) -> None:
    root, base = work
    replays(root / "reports", VERDICT)
    code, report = gate(root, base)
    assert code == 1
    assert "change_tests" not in report
    assert rows(report)[EDITED] == ("unknown_test", "edited", 0, 3, None)
