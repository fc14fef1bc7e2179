"""`waiver gate` end to end on real pytest replays of the bundled example."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from helpers.support import (
    BROKEN_PROPERTY,
    EMPTY,
    EMPTY_FAILURE,
    KNOWN,
    ROUND_TRIP,
    ROUND_TRIP_FAILURE,
    break_a_property,
    classes,
    gate_args,
    replay_example,
    run_gate,
)
from waiver.cli import main


def test_the_example_is_blocked_with_one_proposal(example: Path) -> None:
    code, report = run_gate(example)
    assert code == 1
    assert report["verdict"] == "blocked"
    assert classes(report) == {
        ROUND_TRIP: "unstable_assertion",
        EMPTY: "stable_assertion_fail",
        KNOWN: "stable_pass",
    }
    rows = {row["test_id"]: row for row in report["rows"]}
    proposal = rows[ROUND_TRIP]["freeze"]
    assert proposal["replay_pass"] == 2 and proposal["replay_total"] == 5
    assert proposal["fixture_hash"] == rows[ROUND_TRIP]["fixture_hash"]
    assert proposal["expires_at"] == "2026-12-02T12:00:00Z"
    assert [row["test_id"] for row in report["rows"] if row["freeze"]] == [ROUND_TRIP]
    assert report["fixtures"]["drift"] == []
    assert report["properties"] == {
        "report": str(example / "properties.xml"),
        "cases": 6,
        "failed": [],
        "skipped": [],
    }


def test_each_failing_row_carries_its_first_failure_message(example: Path) -> None:
    _, report = run_gate(example)
    messages = {row["test_id"]: row.get("message") for row in report["rows"]}
    assert messages == {ROUND_TRIP: ROUND_TRIP_FAILURE, EMPTY: EMPTY_FAILURE, KNOWN: None}


def test_one_changed_fixture_byte_drifts_every_row(example: Path) -> None:
    fixture = example / "fixtures" / "slugs.json"
    fixture.write_bytes(fixture.read_bytes().replace(b"World", b"Worle"))
    code, report = run_gate(example)
    assert code == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert all(row["freeze"] is None for row in report["rows"])
    assert report["fixtures"]["drift"] == [
        {"path": "fixtures/slugs.json", "kind": "changed", "part": "fixtures"}
    ]


def test_missing_and_unlocked_fixtures_are_drift(example: Path) -> None:
    (example / "fixtures" / "inputs.json").unlink()
    (example / "fixtures" / "extra.json").write_text("{}")
    code, report = run_gate(example)
    assert code == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert report["fixtures"]["drift"] == [
        {"path": "fixtures/extra.json", "kind": "not_in_lock", "part": "fixtures"},
        {"path": "fixtures/inputs.json", "kind": "missing", "part": "fixtures"},
    ]


def test_a_failing_property_violates_every_row_and_the_store_is_not_read(
    example: Path, failed_properties: Path
) -> None:
    break_a_property(example)
    shutil.copyfile(failed_properties, example / "properties.xml")
    store = example / "freezes.json"
    store.write_text('[{"a": 1, "a": 2}')  # corrupt: would be exit 2 if it were read
    code, report = run_gate(example, "--freezes", str(store))
    assert code == 1
    assert set(classes(report).values()) == {"property_violation"}
    assert report["properties"]["failed"] == [BROKEN_PROPERTY]
    assert all(row["freeze"] is None for row in report["rows"])


def test_a_deleted_replay_makes_every_row_unknown(example: Path) -> None:
    (example / "reports" / "run-5.xml").unlink()
    code, report = run_gate(example)
    assert code == 1
    assert set(classes(report).values()) == {"unknown_test"}
    assert all(row["freeze"] is None for row in report["rows"])


def test_a_truncated_replay_is_recorded_and_its_tests_are_unknown(example: Path) -> None:
    replay = example / "reports" / "run-3.xml"
    replay.write_bytes(replay.read_bytes()[:200])
    code, report = run_gate(example)
    assert code == 1
    assert set(classes(report).values()) == {"unknown_test"}
    [error] = report["replays"]["errors"]
    assert error["replay"] == 3 and error["source"] == str(replay)
    assert "not well-formed XML" in error["problem"]


def test_a_test_missing_from_the_registry_is_unknown(example: Path) -> None:
    registry = example / "known-tests.txt"
    registry.write_text("".join(f"{i}\n" for i in (EMPTY, KNOWN)))
    _, report = run_gate(example)
    assert classes(report)[ROUND_TRIP] == "unknown_test"
    assert classes(report)[KNOWN] == "stable_pass"


def test_a_registry_id_that_no_longer_runs_is_an_unknown_row(example: Path) -> None:
    vanished = "tests/assertions/test_slug.py::test_renamed_away"
    with (example / "known-tests.txt").open("a") as registry:
        registry.write(vanished + "\n")
    code, report = run_gate(example)
    assert code == 1
    rows = {row["test_id"]: row for row in report["rows"]}
    assert rows[vanished]["class"] == "unknown_test"
    assert rows[vanished]["replay_total"] == 0


def test_without_a_registry_the_summary_says_new_tests_are_not_detected(example: Path) -> None:
    summary = example / "summary.md"
    args = [
        a
        for a in gate_args(example)
        if a not in ("--known-tests", str(example / "known-tests.txt"))
    ]
    assert main([*args, "--summary", str(summary)]) == 1
    assert "new and vanished tests are not detected" in summary.read_text()


@pytest.mark.slow
def test_only_the_flipping_test_red_is_review_and_exit_0(example: Path) -> None:
    slugify = example / "slugify.py"
    slugify.write_text(
        slugify.read_text().replace(
            'return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")',
            'return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "untitled"',
        )
    )
    shutil.rmtree(example / "reports")
    (example / ".demo-counter").unlink()
    replay_example(example)
    code, report = run_gate(example)
    assert (code, report["verdict"], report["blocked"]) == (0, "review", False)
    assert classes(report)[ROUND_TRIP] == "unstable_assertion"
    assert classes(report)[EMPTY] == "stable_pass"


def _record(report: dict[str, Any], **changes: Any) -> dict[str, Any]:
    row = next(row for row in report["rows"] if row["test_id"] == ROUND_TRIP)
    record: dict[str, Any] = {
        **row["freeze"],
        "issued_at": "2026-12-01T06:00:00+00:00",
        "expires_at": "2026-12-02T06:00:00+00:00",
    }
    record.update(changes)
    return {key: value for key, value in record.items() if value is not None}


@pytest.fixture
def first_report(example: Path) -> dict[str, Any]:
    _, report = run_gate(example)
    return report


def test_an_active_freeze_changes_neither_class_nor_blocked(
    example: Path, first_report: dict[str, Any]
) -> None:
    store = example / "freezes.json"
    store.write_text(json.dumps([_record(first_report)]))
    code, report = run_gate(example, "--freezes", str(store))
    assert code == 1 and report["blocked"] is True
    assert classes(report) == classes(first_report)
    row = next(row for row in report["rows"] if row["test_id"] == ROUND_TRIP)
    assert row["active_freeze"]["index"] == 0
    assert report["freezes"]["void"] == []


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"expires_at": "2026-12-01T11:00:00+00:00"}, "expired"),
        ({"expires_at": None}, "missing field expires_at"),
        ({"fixture_hash": "0" * 64}, "fixture_hash differs"),
        ({"test_id": ROUND_TRIP + "[1]"}, "no test with exactly this test id"),
        ({"test_id": EMPTY}, "the test is stable_assertion_fail"),
        ({"counts_as_pass": True}, "counts_as_pass is not false"),
        ({"scope": "module"}, "scope is not single_test_id"),
        ({"class": "stable_assertion_fail"}, "class is not unstable_assertion"),
        ({"expires_at": "2026-12-09T07:00:00+00:00"}, "lifetime exceeds the policy maximum"),
        ({"expires_at": "2026-12-02T06:00:00"}, "timezone-aware"),
    ],
)
def test_void_records_are_listed_with_their_reason(
    example: Path, first_report: dict[str, Any], changes: dict[str, Any], reason: str
) -> None:
    store = example / "freezes.json"
    store.write_text(json.dumps([_record(first_report, **changes)]))
    code, report = run_gate(example, "--freezes", str(store))
    assert code == 1
    [void] = report["freezes"]["void"]
    assert reason in void["reason"]
    assert report["freezes"]["active"] == []
    assert all(row["active_freeze"] is None for row in report["rows"])


@pytest.mark.parametrize(
    "store", ['[{"test_id": "a", "test_id": "b"}]', "[NaN]", '[{"x": Infinity}]', "{}", "[1]", ""]
)
def test_a_store_that_does_not_parse_is_exit_2(
    example: Path, store: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = example / "freezes.json"
    path.write_text(store)
    code = main([*gate_args(example), "--freezes", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert str(path) in err and "Traceback" not in err
    report = json.loads((example / "waiver.json").read_text())
    assert report["blocked"] is True and report["error"]["source"] == str(path)


def test_an_input_error_replaces_an_earlier_green_report(example: Path) -> None:
    out = example / "waiver.json"
    out.write_text('{"blocked": false}')
    (example / "properties.xml").write_text("<testsuites/>")
    assert main(gate_args(example)) == 2
    report = json.loads(out.read_text())
    assert report["blocked"] is True
    assert report["error"]["problem"] == "the property report executed zero cases"


def test_min_replays_zero_is_exit_2(example: Path) -> None:
    assert main([*gate_args(example), "--min-replays", "0"]) == 2


def test_baseline_writes_the_registry_the_gate_reads(example: Path) -> None:
    registry = example / "known-tests.txt"
    registry.unlink()
    assert main(["baseline", "--root", str(example), "--reports", str(example / "reports"),
                 "--out", str(registry)]) == 0  # fmt: skip
    assert registry.read_text() == f"{EMPTY}\n{KNOWN}\n{ROUND_TRIP}\n"
    _, report = run_gate(example)
    assert "unknown_test" not in classes(report).values()
