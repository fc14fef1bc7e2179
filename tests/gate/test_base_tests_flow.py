"""The verdict comes from the base's tests (SPEC 3.11), end to end with real pytest: a small
project built from scratch, each change replayed as a user runs it (the change's new and
edited tests apart on its tree, then the base's test tree against its code) and gated.

Every way a change could write around its tests to hide a real bug gives `blocked`, never
`clean`; an honest change, an honest refactor of test helpers with the tests that use them,
a new test, an intentional change of behaviour with its test updated and a deleted test keep
the verdicts they had (clean, or review once approved), with what the base's version of
each edited or deleted test did on the change's code beside its row."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from helpers.apart_support import (
    ADD,
    BASE,
    BROKEN_CALC,
    CALC,
    HIGH,
    LOW,
    change_and_gate,
    dumped,
    register,
    unknown_rows,
)

pytestmark = pytest.mark.slow

TEST_CALC = str(BASE["tests/test_calc.py"])
NEW = "tests/test_more.py::test_add_negative"
NEW_TEST = "from calc import add\n\n\ndef test_add_negative():\n    assert add(-1, -2) == -3\n"


def base_version(report: Mapping[str, Any], test_id: str) -> dict[str, Any] | None:
    row = next(row for row in report["rows"] if row["test_id"] == test_id)
    found: dict[str, Any] | None = row.get("base_version")
    return found


# --- honest changes keep their verdicts ---------------------------------------------------


def test_an_honest_change_of_the_code_alone_is_clean(tmp_path: Path) -> None:
    code, report = change_and_gate(
        tmp_path / "calc", {"calc.py": CALC.replace("return a + b", "return b + a")}
    )
    assert (code, report["verdict"]) == (0, "clean"), dumped(report)
    assert report["change_tests"]["problem"] is not None  # no test of its own ran


def test_a_helper_refactored_with_the_tests_that_use_it_awaits_review(tmp_path: Path) -> None:
    change = {
        "tests/helpers.py": "def check(value, expected, what=''):\n    assert value == expected, what\n",
        "tests/test_calc.py": TEST_CALC.replace(
            'check(clamp(99, 0, 10), EXPECTED["clamped"])',
            'check(clamp(99, 0, 10), EXPECTED["clamped"], "high")',
        ),
    }
    code, report = change_and_gate(tmp_path / "calc", change)
    assert (code, report["verdict"]) == (1, "blocked")
    assert unknown_rows(report) == {HIGH: ("edited", 3, 3)}
    assert base_version(report, HIGH) == {"replay_pass": 3, "replay_total": 3, "meaning": "kept"}
    code, report = change_and_gate(tmp_path / "approved", change, approved=True)
    assert (code, report["verdict"]) == (0, "review")


def test_a_new_test_runs_apart_and_an_approval_admits_it(tmp_path: Path) -> None:
    def change(work: Path) -> dict[str, str | bytes]:
        return {**register(work, NEW), "tests/test_more.py": NEW_TEST}

    code, report = change_and_gate(tmp_path / "calc", change)
    assert (code, report["verdict"]) == (1, "blocked")
    assert unknown_rows(report) == {NEW: ("new", 3, 3)}
    assert base_version(report, NEW) is None
    code, report = change_and_gate(tmp_path / "approved", change, approved=True)
    assert (code, report["verdict"]) == (0, "review")


def test_an_intentional_change_of_behaviour_with_its_test_shows_what_the_base_pinned(
    tmp_path: Path,
) -> None:
    change = {
        "calc.py": CALC.replace("return a + b", "return a + b + 1"),
        "tests/test_calc.py": TEST_CALC.replace("add(2, 3) == 5", "add(2, 3) == 6"),
    }
    code, report = change_and_gate(tmp_path / "calc", change, approved=True)
    assert (code, report["verdict"]) == (0, "review"), dumped(report)
    assert unknown_rows(report) == {ADD: ("edited", 3, 3)}
    assert base_version(report, ADD) == {"replay_pass": 0, "replay_total": 3, "meaning": "broken"}


def test_a_deleted_test_still_runs_from_the_base_and_says_whether_the_change_broke_it(
    tmp_path: Path,
) -> None:
    high = 'def test_clamp_high():\n    check(clamp(99, 0, 10), EXPECTED["clamped"])\n\n\n'
    code, report = change_and_gate(
        tmp_path / "calc",
        {"calc.py": BROKEN_CALC, "tests/test_calc.py": TEST_CALC.replace(high, "")},
    )
    assert (code, report["verdict"]) == (1, "blocked")
    assert unknown_rows(report) == {HIGH: ("vanished", 0, 0)}
    assert base_version(report, HIGH) == {"replay_pass": 0, "replay_total": 3, "meaning": "broken"}


# --- what a change writes around its tests never hides a bug ------------------------------

PATCHING_MODULE = """\
import calc

calc.clamp = lambda value, low, high: max(low, min(value, high))
"""
PASSING_REPORTS = """\
from _pytest.reports import TestReport

_init = TestReport.__init__


def _passed(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    self.outcome = "passed"


TestReport.__init__ = _passed
"""
# A default argument, evaluated when the module is imported, that gives clamp back its
# clamping body through the function type's descriptor.
CODE_REWRITE = (
    "def test_clamp_low(_=type(clamp).__code__.__set__(clamp, "
    "(lambda value, low, high: max(low, min(value, high))).__code__)):"
)

ATTACKS: dict[str, dict[str, str | bytes]] = {
    "a new module that patches the code at import": {"tests/test_zz_patch.py": PATCHING_MODULE},
    "a new module that patches pytest's reports": {"tests/test_aa_reports.py": PASSING_REPORTS},
    "a default argument that rewrites clamp's code": {
        "tests/test_calc.py": TEST_CALC.replace("def test_clamp_low():", CODE_REWRITE)
    },
    "a helper emptied": {"tests/helpers.py": "def check(value, expected):\n    pass\n"},
    "expected values in data beside the tests": {"tests/data/expected.json": '{"clamped": 99}\n'},
}


@pytest.mark.parametrize("attack", ATTACKS)
def test_what_a_change_writes_around_its_tests_runs_in_no_verdict_replay(
    tmp_path: Path, attack: str
) -> None:
    code, report = change_and_gate(tmp_path / "calc", {"calc.py": BROKEN_CALC, **ATTACKS[attack]})
    assert (code, report["verdict"]) == (1, "blocked"), dumped(report)
    # The base's test of clamp ran against the broken code, and failed every replay: its
    # row says so, or, where the change edited the test, its base version does.
    row = next(row for row in report["rows"] if row["test_id"] == HIGH)
    if row["class"] == "unknown_test":
        assert row["unknown"] == "edited"
        assert base_version(report, HIGH) == {
            "replay_pass": 0, "replay_total": 3, "meaning": "broken",
        }  # fmt: skip
    else:
        assert row["class"] in ("stable_assertion_fail", "fixture_drift")
        assert (row["replay_pass"], row["replay_total"]) == (0, 3), dumped(report)
    # The rest of the base's tests pass on the change.
    low = next(row for row in report["rows"] if row["test_id"] == LOW)
    assert (low["replay_pass"], low["replay_total"]) == (3, 3)
