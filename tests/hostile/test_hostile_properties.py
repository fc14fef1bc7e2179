"""Property reports that prove nothing: skipped cases, dummies, registered properties gone."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from helpers.hostile_support import GOOD_CASE, Repo, Run
from helpers.junit_support import junit
from helpers.support import gate_args, load_report
from waiver.cli import main

HOLDS = '<testcase classname="props" name="holds"/>'
SKIPPED = '<testcase classname="props" name="round_trip"><skipped message="skip"/></testcase>'
DUMMY = '<testcase classname="props" name="dummy"/>'


def register(repo: Repo, *ids: str) -> list[str]:
    path = repo.root / "known-tests.txt"
    path.write_text("".join(f"{test_id}\n" for test_id in ids))
    return ["--known-tests", str(path)]


def test_a_skipped_property_case_is_not_counted_as_run_and_is_listed(
    repo: Repo, checked_gate: Run
) -> None:
    (repo.root / "properties.xml").write_text(junit(HOLDS, SKIPPED))
    checked_gate(codes=(0,))
    assert load_report(repo.root / "waiver.json")["properties"] == {
        "report": str(repo.root / "properties.xml"),
        "cases": 1,
        "failed": [],
        "skipped": ["props::round_trip"],
    }
    summary = (repo.root / "summary.md").read_text()
    assert "### Skipped properties (not run, so they prove nothing)" in summary
    assert "| `props::round_trip` |" in summary


def test_a_registered_property_that_ran_and_passed_is_accounted_for(
    repo: Repo, checked_gate: Run
) -> None:
    checked_gate(*register(repo, "suite.Good::test_ok", "props::holds"), codes=(0,))
    assert [row["test_id"] for row in load_report(repo.root / "waiver.json")["rows"]] == [
        "suite.Good::test_ok"
    ]


def test_a_registered_property_that_was_skipped_blocks(repo: Repo, checked_gate: Run) -> None:
    (repo.root / "properties.xml").write_text(junit(HOLDS, SKIPPED))
    registry = register(repo, "suite.Good::test_ok", "props::holds", "props::round_trip")
    code, _, _ = checked_gate(*registry)
    assert code == 1
    rows = {row["test_id"]: row for row in load_report(repo.root / "waiver.json")["rows"]}
    assert rows["props::round_trip"]["class"] == "unknown_test"
    assert rows["props::round_trip"]["replay_total"] == 0
    assert "props::holds" not in rows


def test_a_one_case_dummy_property_report_blocks_under_the_registry(
    repo: Repo, checked_gate: Run
) -> None:
    (repo.root / "properties.xml").write_text(junit(DUMMY))
    code, _, _ = checked_gate(*register(repo, "suite.Good::test_ok", "props::holds"))
    assert code == 1
    assert {
        row["test_id"]: row["class"] for row in load_report(repo.root / "waiver.json")["rows"]
    } == {
        "props::holds": "unknown_test",
        "suite.Good::test_ok": "stable_pass",
    }


def test_baseline_lists_the_property_cases_that_ran(repo: Repo, tmp_path: Path) -> None:
    (repo.root / "properties.xml").write_text(junit(HOLDS, SKIPPED))
    out = tmp_path / "known-tests.txt"
    args = ["baseline", "--reports", str(repo.root / "reports"), "--out", str(out)]
    assert main([*args, "--properties", str(repo.root / "properties.xml")]) == 0
    assert out.read_text() == "props::holds\nsuite.Good::test_ok\n"


def stamped(*cases: str, timestamp: str) -> str:
    return (
        f'<?xml version="1.0"?><testsuites><testsuite name="s" timestamp="{timestamp}">'
        f"{''.join(cases)}</testsuite></testsuites>"
    )


def test_a_property_report_from_days_before_the_replays_is_refused(
    repo: Repo, checked_gate: Run
) -> None:
    for number in range(1, 6):
        repo.replay(number, stamped(GOOD_CASE, timestamp=f"2026-12-01T10:0{number}:00+00:00"))
    properties = repo.root / "properties.xml"
    properties.write_text(stamped(HOLDS, timestamp="2026-11-29T09:59:00+00:00"))
    code, _, err = checked_gate("--replays", "5")
    assert code == 2
    problem = (
        "the property run started at 2026-11-29T09:59:00+00:00, more than 24 h before the "
        "first replay (2026-12-01T10:01:00+00:00): a property report older than the "
        "replays' run is refused"
    )
    assert err == f"waiver: error: {properties}: {problem}\n"
    assert load_report(repo.root / "waiver.json")["error"] == {
        "source": str(properties),
        "problem": problem,
    }


@pytest.mark.parametrize(
    "timestamp",
    [
        "2026-12-01T09:00:00+00:00",  # an hour before: the property job ran first
        "2026-11-30T10:01:00+00:00",  # exactly 24 h before
        "2026-12-01T14:00:00+02:00",  # after the replays, in another zone
        "2026-11-01T09:00:00",  # no zone: cannot be compared, so not refused
        "not a time",
    ],
)
def test_a_property_report_from_the_same_run_is_accepted(
    repo: Repo, checked_gate: Run, timestamp: str
) -> None:
    for number in range(1, 6):
        repo.replay(number, stamped(GOOD_CASE, timestamp=f"2026-12-01T10:0{number}:00+00:00"))
    (repo.root / "properties.xml").write_text(stamped(HOLDS, timestamp=timestamp))
    checked_gate("--replays", "5", codes=(0,))


def test_a_real_pytest_property_report_copied_from_an_older_run_is_refused(
    example: Path,
) -> None:
    """pytest writes a zone-aware `timestamp` on its testsuite; the replays carry one too."""
    properties = example / "properties.xml"
    text = properties.read_text()
    match = re.search(r'timestamp="([^"]+)"', text)
    assert match is not None
    older = datetime.fromisoformat(match.group(1)) - timedelta(days=3)
    properties.write_text(text.replace(match.group(1), older.isoformat()))
    assert main(gate_args(example, "--replays", "5")) == 2
    error = load_report(example / "waiver.json")["error"]
    assert error["source"] == str(properties)
    assert "a property report older than the replays' run is refused" in error["problem"]
    properties.write_text(text)
    assert main(gate_args(example, "--replays", "5")) == 1
