"""Red-green evidence end to end: the example committed as the base with a policy that
requires it, one change that fixes a bug and adds two tests, real replays of the change,
`waiver red-green` replays of the new tests on the base's code, then the gate with an
approval of the head."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from helpers.change_support import (
    approved,
    commit_base,
    commit_change,
    fix_slugify,
    replay_and_gate,
)
from helpers.support import git, rows
from waiver.cli import main

pytestmark = pytest.mark.slow

TEST = "tests/assertions/test_slug.py"
# Fails without the fix (the base gives an empty slug): red on the base, green with it.
RED = f"{TEST}::test_punctuation_only"
# Passes with or without the fix: it proves nothing about the change.
GREEN = f"{TEST}::test_spaces"
NEW_TESTS = """

def test_punctuation_only() -> None:
    assert slugify("!!!") == "untitled"


def test_spaces() -> None:
    assert slugify("a  b") == "a-b"
"""
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]


def policy(work: Path) -> None:
    (work / "waiver.yml").write_text("review_requires: [red_green]\n")


def fix_and_add_tests(work: Path) -> None:
    fix_slugify(work)
    test = work / TEST
    test.write_text(test.read_text() + NEW_TESTS)
    registry = work / "known-tests.txt"
    registry.write_text(registry.read_text() + f"{RED}\n{GREEN}\n")


def test_an_approval_admits_a_red_green_test_and_not_one_that_passes_on_the_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work, policy)
    commit_change(work, fix_and_add_tests)
    replayed, _, _ = replay_and_gate(work, base, tests_from=True, replays=5)
    assert replayed == 0
    monkeypatch.chdir(work)
    outcomes = work.parent / "red-green"
    # The new tests that passed every replay of the change, picked from its gate run.
    args = ["red-green", "--base", base, "-n", "5", "--out", str(outcomes)]
    args += ["--from-report", "waiver.json", "--", *PYTEST, "--junitxml={junit}"]
    assert main(args) == 0
    evidence = str(outcomes / "red-green.json")
    assert [row["test_id"] for row in json.loads(Path(evidence).read_text())["rows"]] == [
        RED,
        GREEN,
    ]

    # Without the policy the evidence sits beside the rows and changes nothing.
    head = git(work, "rev-parse", "HEAD")
    code, plain = approved(work, base, head)
    code_with, beside = approved(work, base, head, "--red-green", evidence)
    assert (code, plain["verdict"]) == (code_with, beside["verdict"]) == (0, "review")
    assert {t: r["class"] for t, r in rows(plain).items()} == {
        t: r["class"] for t, r in rows(beside).items()
    }
    assert [r.get("admitted_by") for r in rows(plain).values()] == [
        r.get("admitted_by") for r in rows(beside).values()
    ]
    assert "red_green" not in rows(plain)[RED]
    assert rows(beside)[RED]["red_green"] == {
        "outcome": "red_green", "base_pass": 0, "base_total": 5, "why": None, "blocks": False,
    }  # fmt: skip
    assert rows(beside)[GREEN]["red_green"]["outcome"] == "green_green"

    # With `review_requires: red_green` the green-green test stays blocked, and says why.
    code, report = approved(work, base, head, "--red-green", evidence, "--config", "waiver.yml")
    assert (code, report["verdict"]) == (1, "blocked")
    red, green = rows(report)[RED], rows(report)[GREEN]
    assert (red["class"], red["unknown"], red["red_green"]["outcome"]) == (
        "unknown_test", "new", "red_green",
    )  # fmt: skip
    assert red["admitted_by"]["login"] == "maintainer"
    assert "admitted_by" not in green
    assert green["red_green"] == {
        "outcome": "green_green", "base_pass": 5, "base_total": 5, "why": None, "blocks": True,
    }  # fmt: skip
    assert report["policy"]["review_requires"] == ["red_green"]
    # Without the evidence, nothing new or edited is admitted under that policy.
    code, report = approved(work, base, head, "--config", "waiver.yml")
    assert code == 1
    assert rows(report)[RED]["red_green"]["outcome"] == "not_run"
    assert "admitted_by" not in rows(report)[RED]
