"""Hostile freeze stores: fail closed (exit 2) or void with a reason, never an active freeze."""

from __future__ import annotations

import json

import pytest

from helpers.hostile_support import Repo, Run
from helpers.junit_support import junit


@pytest.mark.parametrize(
    ("store", "problem"),
    [
        ('[{"test_id": "a", "test_id": "b"}]', "duplicate key"),
        ('[{"replay_pass": NaN}]', "NaN"),
        ('[{"replay_pass": -Infinity}]', "-Infinity"),
        ('[{"replay_pass": 1e400}]', "the number 1e400 is beyond the range of a JSON number"),
        ('[{"replay_total": -1E+999}]', "the number -1E+999 is beyond the range"),
        (f'[{{"replay_pass": {"9" * 5_000}}}]', "an integer of 5000 digits is too long"),
        ("[" * 10_000 + "]" * 10_000, "nested too deep"),
        ('{"records": []}', "JSON list"),
        ('["a record"]', "record 0 is not a JSON object"),
        ("\xff\xfe", "not"),
        ("", "not valid JSON"),
    ],
)
def test_a_store_that_does_not_parse_fails_closed(
    repo: Repo, checked_gate: Run, store: str, problem: str
) -> None:
    path = repo.root / "freezes.json"
    path.write_bytes(store.encode("latin-1") if store.startswith("\xff") else store.encode())
    code, _, err = checked_gate("--freezes", str(path))
    assert code == 2
    assert str(path) in err
    assert problem in err


FLIP = (
    '<testcase classname="suite.Flip" name="test_flip"/>',
    '<testcase classname="suite.Flip" name="test_flip"><failure/></testcase>',
)


def test_records_with_wrong_types_or_no_expiry_are_void(repo: Repo, checked_gate: Run) -> None:
    for replay in range(1, 6):
        repo.replay(replay, junit(FLIP[replay % 2]))
    checked_gate(codes=(0,))
    row = json.loads((repo.root / "waiver.json").read_text())["rows"][0]
    good = {
        **row["freeze"],
        "issued_at": "2026-12-01T06:00:00Z",
        "expires_at": "2026-12-02T06:00:00Z",
    }
    records = [
        {key: value for key, value in good.items() if key != "expires_at"},
        {**good, "counts_as_pass": "false"},
        {**good, "counts_as_pass": 0},
        {**good, "expires_at": 1_900_000_000},
        {**good, "test_id": ["suite.Flip::test_flip"]},
        {**good, "expires_at": "next tuesday"},
        {**good, "issued_at": "2026-12-05T06:00:00Z", "expires_at": "2026-12-06T06:00:00Z"},
    ]
    path = repo.root / "freezes.json"
    path.write_text(json.dumps(records))
    checked_gate("--freezes", str(path), codes=(0,))
    report = json.loads((repo.root / "waiver.json").read_text())
    assert report["freezes"]["active"] == []
    assert [void["reason"] for void in report["freezes"]["void"]] == [
        "missing field expires_at",
        "counts_as_pass is not false",
        "counts_as_pass is not false",
        "issued_at and expires_at must be timezone-aware ISO 8601 times",
        "no test with exactly this test id in this run",
        "issued_at and expires_at must be timezone-aware ISO 8601 times",
        "issued in the future",
    ]
    assert report["rows"][0]["active_freeze"] is None
