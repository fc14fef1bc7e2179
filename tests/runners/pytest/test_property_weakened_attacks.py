"""The code under test weakening the property suite from inside its run, built from scratch
as an attacker would: a small `calc` project committed as the base and locked by `waiver
lock`, one change commit, `waiver replay` with the base's harness (`--tests-from BASE`),
then the gate with `--trusted-ref BASE`.

The change breaks `add` for every number but the small ones and, at import time, registers
and loads a Hypothesis profile of one derandomized example. The property modules, the lock
and the harness are untouched, and the property report says one case, none failed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers.change_support import approved, commit_change, commit_locked, replay_and_gate
from helpers.support import git, write_tree
from waiver.write.summary.summary import render_summary

# Every test commits a base and a change and replays it with real pytest.
pytestmark = pytest.mark.slow

CALC = "def add(a: int, b: int) -> int:\n    return a + b\n"
PROPERTY = "tests/properties/test_add.py::test_add_is_plus"
ASSERTION = "tests/assertions/test_calc.py::test_small_sums"
BASE = {
    "calc.py": CALC,
    "pytest.ini": "[pytest]\naddopts = -p no:cacheprovider\n",
    "fixtures/sums.json": "[[2, 3, 5]]\n",
    "tests/properties/test_add.py": (
        "from hypothesis import given, strategies\n\nfrom calc import add\n\n\n"
        "@given(strategies.integers(), strategies.integers())\n"
        "def test_add_is_plus(a: int, b: int) -> None:\n    assert add(a, b) == a + b\n"
    ),
    "tests/assertions/test_calc.py": (
        "from calc import add\n\n\ndef test_small_sums() -> None:\n    assert add(2, 3) == 5\n"
    ),
    "known-tests.txt": ASSERTION + "\n",
}
# Attack 1 of issue 39: one example, always the simplest, for every property after this import.
ONE_EXAMPLE = """\
from hypothesis import settings as _settings

_settings.register_profile("quick", max_examples=1, derandomize=True, database=None)
_settings.load_profile("quick")


"""
# Wrong for every `a` outside -9..9, which the simplest example never is.
BROKEN_ADD = "    return a + b if abs(a) < 10 else a - b\n"


def commit_calc(work: Path) -> str:
    write_tree(work, BASE)
    return commit_locked(work)


def weakened(work: Path) -> None:
    (work / "calc.py").write_text(ONE_EXAMPLE + CALC.replace("    return a + b\n", BROKEN_ADD))


def broken_alone(work: Path) -> None:
    (work / "calc.py").write_text(CALC.replace("    return a + b\n", BROKEN_ADD))


def honest(work: Path) -> None:
    (work / "calc.py").write_text(CALC + "\n\ndef sub(a: int, b: int) -> int:\n    return a - b\n")


def gated(tmp_path: Path, change: Any) -> tuple[Path, str, int, dict[str, Any]]:
    work = tmp_path / "calc"
    base = commit_calc(work)
    commit_change(work, change)
    replayed, code, report = replay_and_gate(work, base, tests_from=True, replays=5)
    assert replayed in (0, 1)
    return work, base, code, report


def test_a_profile_of_one_example_loaded_by_the_code_under_test_blocks_and_is_named(
    tmp_path: Path,
) -> None:
    work, base, code, report = gated(tmp_path, weakened)
    properties = report["properties"]
    # The run was weakened for real: the broken `add` passed its property.
    assert (properties["cases"], properties["failed"]) == (1, [])
    assert report["rows"] == [{**report["rows"][0], "test_id": ASSERTION, "class": "stable_pass"}]
    assert (code, report["verdict"]) == (1, "blocked")
    assert properties["settings_changes"] == [
        {"path": "calc.py", "line": 3, "what": "registers a Hypothesis profile (register_profile)"},
        {"path": "calc.py", "line": 3, "what": "sets derandomize"},
        {"path": "calc.py", "line": 3, "what": "sets max_examples"},
        {"path": "calc.py", "line": 4, "what": "loads a Hypothesis profile (load_profile)"},
    ]
    assert properties["few_cases"] == [
        {"test_id": PROPERTY, "generated": 1, "stopped_because": "settings.max_examples=1"}
    ]
    reach, weak = report["run_blockers"]
    assert "calc.py line 1 names hypothesis" in reach
    assert "the lines that name Hypothesis can weaken the property suite's run" in reach
    assert weak.startswith("the property suite may have run weakened")
    assert "calc.py line 3 registers a Hypothesis profile (register_profile)" in weak
    assert f"{PROPERTY} generated 1 case(s), stopped because settings.max_examples=1" in weak
    assert "the property suite may have run weakened" in render_summary(report)
    # A reviewer's approval admits the reach-in, never the weakened property suite.
    head = git(work, "rev-parse", "HEAD")
    code, report = approved(work, base, head)
    assert report["fixtures"]["runner_reach_admitted_by"] is not None
    assert (code, report["verdict"]) == (1, "blocked")
    assert [b[:40] for b in report["run_blockers"]] == [weak[:40]]


def test_the_same_break_without_the_profile_is_a_property_violation(tmp_path: Path) -> None:
    _, _, code, report = gated(tmp_path, broken_alone)
    assert (code, report["verdict"]) == (1, "blocked")
    assert report["properties"]["failed"] == [PROPERTY]
    assert report["properties"]["settings_changes"] == []
    assert report["properties"]["few_cases"] == []


def test_an_honest_change_stays_clean(tmp_path: Path) -> None:
    _, _, code, report = gated(tmp_path, honest)
    assert (code, report["verdict"], report["run_blockers"]) == (0, "clean", [])
    assert report["properties"]["settings_changes"] == []
    assert report["properties"]["few_cases"] == []
