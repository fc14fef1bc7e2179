"""Property reports that prove nothing: skipped cases, dummies, registered properties gone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hostile_support import Repo, Run, junit
from waiver.cli import main

HOLDS = '<testcase classname="props" name="holds"/>'
SKIPPED = '<testcase classname="props" name="round_trip"><skipped message="skip"/></testcase>'
DUMMY = '<testcase classname="props" name="dummy"/>'


def report(repo: Repo) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((repo.root / "waiver.json").read_text())
    return document


def register(repo: Repo, *ids: str) -> list[str]:
    path = repo.root / "known-tests.txt"
    path.write_text("".join(f"{test_id}\n" for test_id in ids))
    return ["--known-tests", str(path)]


def test_a_skipped_property_case_is_not_counted_as_run_and_is_listed(
    repo: Repo, run_gate: Run
) -> None:
    (repo.root / "properties.xml").write_text(junit(HOLDS, SKIPPED))
    run_gate(codes=(0,))
    assert report(repo)["properties"] == {
        "report": str(repo.root / "properties.xml"),
        "cases": 1,
        "failed": [],
        "skipped": ["props::round_trip"],
    }
    summary = (repo.root / "summary.md").read_text()
    assert "### Skipped properties (not run, so they prove nothing)" in summary
    assert "| `props::round_trip` |" in summary


def test_a_registered_property_that_ran_and_passed_is_accounted_for(
    repo: Repo, run_gate: Run
) -> None:
    run_gate(*register(repo, "suite.Good::test_ok", "props::holds"), codes=(0,))
    assert [row["test_id"] for row in report(repo)["rows"]] == ["suite.Good::test_ok"]


def test_a_registered_property_that_was_skipped_blocks(repo: Repo, run_gate: Run) -> None:
    (repo.root / "properties.xml").write_text(junit(HOLDS, SKIPPED))
    registry = register(repo, "suite.Good::test_ok", "props::holds", "props::round_trip")
    code, _, _ = run_gate(*registry)
    assert code == 1
    rows = {row["test_id"]: row for row in report(repo)["rows"]}
    assert rows["props::round_trip"]["class"] == "unknown_test"
    assert rows["props::round_trip"]["replay_total"] == 0
    assert "props::holds" not in rows


def test_a_one_case_dummy_property_report_blocks_under_the_registry(
    repo: Repo, run_gate: Run
) -> None:
    (repo.root / "properties.xml").write_text(junit(DUMMY))
    code, _, _ = run_gate(*register(repo, "suite.Good::test_ok", "props::holds"))
    assert code == 1
    assert {row["test_id"]: row["class"] for row in report(repo)["rows"]} == {
        "props::holds": "unknown_test",
        "suite.Good::test_ok": "stable_pass",
    }


def test_baseline_lists_the_property_cases_that_ran(repo: Repo, tmp_path: Path) -> None:
    (repo.root / "properties.xml").write_text(junit(HOLDS, SKIPPED))
    out = tmp_path / "known-tests.txt"
    args = ["baseline", "--reports", str(repo.root / "reports"), "--out", str(out)]
    assert main([*args, "--properties", str(repo.root / "properties.xml")]) == 0
    assert out.read_text() == "props::holds\nsuite.Good::test_ok\n"
