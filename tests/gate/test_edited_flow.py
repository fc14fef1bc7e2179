"""A change that rewrites what a registered test asserts gets no verdict from that test:
the example committed as the base, one change commit that breaks the code and loosens the
test that would catch it, real replays, then the gate with `--trusted-ref BASE`."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.change_support import commit_base, commit_change, replay_and_gate
from helpers.support import EMPTY, KNOWN, ROUND_TRIP, classes

pytestmark = pytest.mark.slow
TEST = "tests/assertions/test_slug.py"


def break_and_loosen(work: Path) -> None:
    code = work / "slugify.py"
    code.write_text(code.read_text().replace('.strip("-")', '.strip("-")[:1] or "untitled"'))
    test = work / TEST
    test.write_text(
        test.read_text().replace(
            'assert slugify(case["text"]) == case["slug"]', 'assert slugify(case["text"])'
        )
    )


def break_only(work: Path) -> None:
    code = work / "slugify.py"
    code.write_text(code.read_text().replace('.strip("-")', '.strip("-")[:1] or "untitled"'))


@pytest.mark.parametrize("tests_from", [False, True], ids=["own tests", "base tests"])
def test_a_loosened_assertion_is_no_evidence_and_blocks_for_review(
    tmp_path: Path, tests_from: bool
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)
    commit_change(work, break_and_loosen)
    replayed, gated, report = replay_and_gate(work, base, tests_from, replays=5)
    assert (replayed, gated, report["verdict"]) == (0, 1, "blocked")
    row = next(row for row in report["rows"] if row["test_id"] == KNOWN)
    # The loosened test passed every replay, and still says nothing about the change.
    assert (row["class"], row["unknown"], row["replay_pass"]) == ("unknown_test", "edited", 5)
    assert report["registry"]["edited"] == [
        {
            "test_id": KNOWN,
            "changes": ["its body"],
            "findings": [{"kind": "comparison_loosened", "detail": "`==` became `truthy`"}],
            # What a reviewer reads: the line as Python reads it, on both sides.
            "diff": [
                "@@ its definition @@",
                "     for case in CASES:",
                "-        assert slugify(case['text']) == case['slug']",
                "+        assert slugify(case['text'])",
            ],
        }
    ]
    # Its untouched neighbours in the same module are judged by their replays.
    assert classes(report)[EMPTY] == "stable_pass"
    assert classes(report)[ROUND_TRIP] == "unstable_assertion"


def test_the_same_break_without_the_edit_is_a_stable_failure(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)
    commit_change(work, break_only)
    _, gated, report = replay_and_gate(work, base, tests_from=True, replays=5)
    assert (gated, classes(report)[KNOWN]) == (1, "stable_assertion_fail")
    assert report["registry"]["edited"] == []
