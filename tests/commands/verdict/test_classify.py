"""`waiver classify` on the plain cases.json shape: the policy alone, through the command."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from helpers.support import case_json, classes, load_report
from waiver.cli import main

ROUND_TRIP = "tests/assertions/test_parse.py::test_round_trip"
EMPTY = "tests/assertions/test_parse.py::test_empty"


def classify(
    tmp_path: Path, cases: list[dict[str, Any]], *extra: str
) -> tuple[int, dict[str, Any]]:
    source = tmp_path / "cases.json"
    source.write_text(json.dumps(cases))
    out = tmp_path / "waiver.json"
    code = main(["classify", "--cases", str(source), "--out", str(out), *extra])
    return code, load_report(out)


def test_two_row_sample(tmp_path: Path) -> None:
    code, report = classify(
        tmp_path,
        [case_json(ROUND_TRIP, [False, True, False, True, False]), case_json(EMPTY, [False] * 5)],
    )
    assert code == 1
    assert report["blocked"] is True
    first, second = report["rows"]
    assert second["test_id"] == ROUND_TRIP  # rows are sorted by test id
    assert second["class"] == "unstable_assertion"
    freeze = second["freeze"]
    assert freeze["counts_as_pass"] is False
    assert (freeze["replay_pass"], freeze["replay_total"]) == (2, 5)
    assert freeze["scope"] == "single_test_id"
    issued = datetime.fromisoformat(freeze["issued_at"])
    expires = datetime.fromisoformat(freeze["expires_at"])
    assert expires - issued == timedelta(hours=24)
    assert issued.utcoffset() is not None
    assert first["test_id"] == EMPTY
    assert first["class"] == "stable_assertion_fail"
    assert first["freeze"] is None


MIXED = [True, False, True, False, True]


@pytest.mark.parametrize(
    ("changes", "outcomes", "expected"),
    [
        ({"property_ok": False}, MIXED, "property_violation"),
        ({"fixture_hash": "b" * 64}, MIXED, "fixture_drift"),
        ({}, MIXED[:4], "unknown_test"),
        ({"known_test": False}, MIXED, "unknown_test"),
    ],
)
def test_mixed_rows_that_never_get_a_freeze(
    tmp_path: Path, changes: dict[str, Any], outcomes: list[bool], expected: str
) -> None:
    code, report = classify(tmp_path, [case_json(ROUND_TRIP, outcomes, **changes)])
    assert code == 1
    assert classes(report) == {ROUND_TRIP: expected}
    assert report["rows"][0]["freeze"] is None


def test_only_an_unstable_row_is_review_not_blocked(tmp_path: Path) -> None:
    code, report = classify(tmp_path, [case_json(ROUND_TRIP, MIXED), case_json(EMPTY, [True] * 5)])
    assert (code, report["verdict"], report["blocked"]) == (0, "review", False)


def test_all_stable_passes_are_clean(tmp_path: Path) -> None:
    code, report = classify(tmp_path, [case_json(ROUND_TRIP, [True] * 5)])
    assert (code, report["verdict"]) == (0, "clean")


def test_freeze_hours_sets_the_window(tmp_path: Path) -> None:
    _, report = classify(tmp_path, [case_json(ROUND_TRIP, MIXED)], "--freeze-hours", "6")
    freeze = report["rows"][0]["freeze"]
    window = datetime.fromisoformat(freeze["expires_at"]) - datetime.fromisoformat(
        freeze["issued_at"]
    )
    assert window == timedelta(hours=6)


@pytest.mark.parametrize("value", ["0", "-1"])
def test_min_replays_below_one_is_a_usage_error(
    tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "cases.json"
    source.write_text(json.dumps([case_json(ROUND_TRIP, MIXED)]))
    out = tmp_path / "waiver.json"
    code = main(["classify", "--cases", str(source), "--out", str(out), "--min-replays", value])
    assert code == 2
    assert f"argument --min-replays: must be at least 1, got {value}" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ("[]", "zero tests"),
        ('{"test_id": 1}', "JSON list"),
        ('[{"test_id": "x"}]', "missing property_ok"),
        (json.dumps([case_json("x", [1, 0])]), "booleans"),
        (json.dumps([case_json("x", MIXED), case_json("x", MIXED)]), "repeats"),
        ('[{"a": 1, "a": 2}]', "duplicate key"),
        ("[NaN]", "NaN"),
        ("[", "not valid JSON"),
    ],
)
def test_bad_cases_file_is_exit_2_naming_the_file(
    tmp_path: Path, document: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "cases.json"
    source.write_text(document)
    code = main(["classify", "--cases", str(source), "--out", str(tmp_path / "w.json")])
    err = capsys.readouterr().err
    assert code == 2
    assert str(source) in err
    assert problem in err
    assert "Traceback" not in err
