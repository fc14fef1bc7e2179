"""`waiver freeze accept | prune | list` round-tripped with the real gate on the example."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.support import EMPTY, KNOWN, NOW, ROUND_TRIP, run_gate
from waiver.cli import main

LATER = "2026-12-02T13:00:00+00:00"


def _freeze(*args: str) -> int:
    return main(["freeze", *args])


def _store(work: Path) -> Path:
    return work / "freezes.json"


def _accept(work: Path, *test_ids: str, now: str = NOW) -> int:
    report, store = str(work / "waiver.json"), str(_store(work))
    return _freeze("accept", "--report", report, "--store", store, "--now", now, *test_ids)


def _records(work: Path) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads(_store(work).read_text())
    return records


def test_an_accepted_proposal_is_active_in_the_next_gate_run(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, first = run_gate(example)
    _store(example).unlink()
    capsys.readouterr()
    assert _accept(example, ROUND_TRIP) == 0
    assert capsys.readouterr().out == (
        f"waiver: accepted the freeze of {ROUND_TRIP} until 2026-12-02T12:00:00Z\n"
    )
    proposal = next(row["freeze"] for row in first["rows"] if row["test_id"] == ROUND_TRIP)
    assert _records(example) == [proposal]
    assert _store(example).read_text() == json.dumps([proposal], indent=2) + "\n"
    assert sorted(path.name for path in example.glob(".waiver-*")) == []

    code, second = run_gate(example, "--freezes", str(_store(example)))
    assert code == 1  # an active freeze never unblocks
    assert second["freezes"] == {"active": [{"index": 0, "record": proposal}], "void": []}
    row = next(row for row in second["rows"] if row["test_id"] == ROUND_TRIP)
    assert row["class"] == "unstable_assertion" and row["active_freeze"]["index"] == 0


def test_prune_after_expiry_removes_the_record_and_the_gate_no_longer_shows_it(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_gate(example)
    assert _accept(example, ROUND_TRIP) == 0
    capsys.readouterr()
    assert _freeze("prune", "--store", str(_store(example)), "--now", LATER) == 0
    assert capsys.readouterr().out == (
        f"waiver: removed record 0 ({ROUND_TRIP}): expired\n"
        f"waiver: 0 records kept in {_store(example)}\n"
    )
    assert _records(example) == []
    _, report = run_gate(example, "--freezes", str(_store(example)), "--now", LATER)
    assert report["freezes"] == {"active": [], "void": []}


@pytest.mark.parametrize(
    ("test_id", "reason"),
    [
        (EMPTY, "no freeze proposal (the test is stable_assertion_fail)"),
        (KNOWN, "no freeze proposal (the test is stable_pass)"),
        ("tests/assertions/test_slug.py::test_gone", "no row in the report"),
    ],
)
def test_accept_refuses_a_test_without_a_proposal_and_writes_nothing(
    example: Path, capsys: pytest.CaptureFixture[str], test_id: str, reason: str
) -> None:
    run_gate(example)
    before = _store(example).read_bytes()
    capsys.readouterr()
    assert _accept(example, ROUND_TRIP, test_id) == 2
    assert capsys.readouterr().err == (
        f"waiver: error: {example / 'waiver.json'}: nothing accepted; {test_id}: {reason}\n"
    )
    assert _store(example).read_bytes() == before


def test_accept_refuses_a_strict_test(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = example / "waiver.yml"
    policy.write_text(f'strict:\n  - "{ROUND_TRIP}"\n')
    run_gate(example, "--config", str(policy))
    assert _accept(example, ROUND_TRIP) == 2
    assert capsys.readouterr().err.endswith(
        f"{ROUND_TRIP}: matches a strict pattern of the policy, so it never gets a freeze\n"
    )
    assert _records(example) == []


def test_accept_refuses_a_proposal_past_its_expiry(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_gate(example)
    assert _accept(example, ROUND_TRIP, now=LATER) == 2
    assert capsys.readouterr().err.endswith(f"{ROUND_TRIP}: the proposal is void: expired\n")
    assert _records(example) == []


def test_accept_refuses_a_report_that_ended_in_an_error(example: Path) -> None:
    (example / "properties.xml").unlink()
    assert run_gate(example)[0] == 2
    assert _accept(example, ROUND_TRIP) == 2
    assert _records(example) == []


def test_accept_replaces_the_tests_record_and_keeps_the_store_sorted(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    others = [{"test_id": "z/last", "note": "kept"}, {"test_id": "a/first", "note": "kept"}]
    old = {"test_id": ROUND_TRIP, "note": "old"}
    _store(example).write_text(json.dumps([others[0], old, others[1]]))
    run_gate(example)
    capsys.readouterr()
    assert _accept(example, ROUND_TRIP) == 0
    assert capsys.readouterr().out.startswith(f"waiver: replaced record 1 for {ROUND_TRIP}\n")
    records = _records(example)
    assert [record["test_id"] for record in records] == ["a/first", ROUND_TRIP, "z/last"]
    assert records[1]["expires_at"] == "2026-12-02T12:00:00Z"


def test_prune_removes_void_records_and_keeps_the_rest_in_order(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_gate(example)
    assert _accept(example, ROUND_TRIP) == 0
    valid = _records(example)[0]
    store = [
        {**valid, "counts_as_pass": True},
        valid,
        {key: value for key, value in valid.items() if key != "expires_at"},
        valid,
        {**valid, "test_id": KNOWN},
    ]
    _store(example).write_text(json.dumps(store))
    capsys.readouterr()
    assert _freeze("list", "--store", str(_store(example)), "--now", NOW) == 0
    assert capsys.readouterr().out == (
        f"waiver: record 0: {ROUND_TRIP}: void: counts_as_pass is not false\n"
        f"waiver: record 1: {ROUND_TRIP}: valid until 2026-12-02T12:00:00Z\n"
        f"waiver: record 2: {ROUND_TRIP}: void: missing field expires_at\n"
        f"waiver: record 3: {ROUND_TRIP}: void: another record for this test id is already "
        "active\n"
        f"waiver: record 4: {KNOWN}: valid until 2026-12-02T12:00:00Z\n"
    )
    assert _freeze("prune", "--store", str(_store(example)), "--now", NOW) == 0
    assert capsys.readouterr().out == (
        f"waiver: removed record 0 ({ROUND_TRIP}): counts_as_pass is not false\n"
        f"waiver: removed record 2 ({ROUND_TRIP}): missing field expires_at\n"
        f"waiver: removed record 3 ({ROUND_TRIP}): another record for this test id is "
        "already active\n"
        f"waiver: 2 records kept in {_store(example)}\n"
    )
    assert _records(example) == [valid, {**valid, "test_id": KNOWN}]


def test_prune_with_a_policy_file_applies_its_maximum_lifetime(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_gate(example)
    assert _accept(example, ROUND_TRIP) == 0
    capsys.readouterr()
    policy = example / "waiver.yml"
    policy.write_text("max_freeze_hours: 12\nfreeze_hours: 12\n")
    store = str(_store(example))
    assert _freeze("prune", "--store", store, "--config", str(policy), "--now", NOW) == 0
    assert f"({ROUND_TRIP}): lifetime exceeds the policy maximum of 12 h\n" in (
        capsys.readouterr().out
    )
    assert _records(example) == []


@pytest.mark.parametrize("action", ["prune", "list"])
@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "file not found"),
        ('[{"test_id": "a", "test_id": "b"}]', "duplicate key 'test_id'"),
        ("{}", "the freeze store must be a JSON list of records"),
    ],
)
def test_a_store_that_cannot_be_read_is_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    action: str,
    content: str | None,
    problem: str,
) -> None:
    store = tmp_path / "freezes.json"
    if content is not None:
        store.write_text(content)
    assert _freeze(action, "--store", str(store)) == 2
    assert capsys.readouterr().err == f"waiver: error: {store}: {problem}\n"
    assert (store.read_text() if content is not None else None) == content


def _edit_row(work: Path, test_id: str, **changes: Any) -> int:
    """Changes one row of the report in place; returns its index in the rows."""
    report = work / "waiver.json"
    document = json.loads(report.read_text())
    index = next(n for n, row in enumerate(document["rows"]) if row["test_id"] == test_id)
    document["rows"][index].update(changes)
    report.write_text(json.dumps(document))
    return index


def test_accept_checks_the_rows_it_uses_against_the_schema(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_gate(example)
    index = _edit_row(example, ROUND_TRIP, **{"replay_pass": "two"})
    capsys.readouterr()
    assert _accept(example, ROUND_TRIP) == 2
    assert capsys.readouterr().err == (
        f"waiver: error: {example / 'waiver.json'}: not a valid waiver report at "
        f"rows/{index}/replay_pass: 'two' is not of type 'integer'\n"
    )


def test_accept_reads_past_rows_it_does_not_use_but_not_past_a_row_without_a_class(
    example: Path,
) -> None:
    run_gate(example)
    _edit_row(example, KNOWN, **{"replay_pass": "two"})
    assert _accept(example, ROUND_TRIP) == 0
    assert [record["test_id"] for record in _records(example)] == [ROUND_TRIP]
    _edit_row(example, KNOWN, **{"class": "flaky"})
    assert _accept(example, ROUND_TRIP) == 2


# --- who answers for a freeze -------------------------------------------------------------

TRACKING = "https://example.invalid/issues/7"


def _accept_with(work: Path, *flags: str, config: Path | None = None) -> int:
    report, store = str(work / "waiver.json"), str(_store(work))
    policy = ["--config", str(config)] if config is not None else []
    return _freeze(
        "accept", "--report", report, "--store", store, "--now", NOW, *policy, *flags, ROUND_TRIP
    )


def test_accept_stores_the_owner_reason_and_tracking_link_and_list_shows_them(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_gate(example)
    _store(example).unlink()
    flags = ["--owner", "maintainer", "--reason", "cold cache", "--tracking", TRACKING]
    assert _accept_with(example, *flags) == 0
    (record,) = _records(example)
    assert (record["owner"], record["reason"], record["tracking"]) == (
        "maintainer",
        "cold cache",
        TRACKING,
    )
    capsys.readouterr()
    assert _freeze("list", "--store", str(_store(example)), "--now", NOW) == 0
    assert (
        capsys.readouterr()
        .out.rstrip()
        .endswith(f"(owner maintainer; reason cold cache; tracking {TRACKING})")
    )
    # The gate keeps it active, and the summary's row says who answers for it.
    code, report = run_gate(example, "--freezes", str(_store(example)))
    assert code == 1 and report["freezes"]["active"][0]["record"]["owner"] == "maintainer"


def test_a_policy_that_requires_an_owner_refuses_an_accept_without_one_and_voids_a_record(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_gate(example)
    _store(example).unlink()
    config = example / "requires.yml"
    config.write_text("freeze_requires: [owner, tracking]\n")
    assert _accept_with(example, "--owner", "maintainer", config=config) == 2
    assert "the policy requires tracking of every freeze: give --tracking" in (
        capsys.readouterr().err
    )
    assert not _store(example).exists()
    # A record accepted without the policy, then judged under it, is void and says why.
    assert _accept_with(example) == 0
    capsys.readouterr()
    store = str(_store(example))
    assert _freeze("list", "--store", store, "--config", str(config), "--now", NOW) == 0
    assert "void: missing field owner, which the policy requires (freeze_requires)" in (
        capsys.readouterr().out
    )


@pytest.mark.parametrize(
    ("flags", "problem"),
    [
        (["--owner", "not a login"], "--owner must be a GitHub login"),
        (["--tracking", "javascript:alert(1)"], "--tracking must be an http(s) URL"),
        (["--reason", "x" * 501], "hold at most 500 characters"),
    ],
)
def test_accountability_of_the_wrong_form_is_refused(
    example: Path, capsys: pytest.CaptureFixture[str], flags: list[str], problem: str
) -> None:
    run_gate(example)
    _store(example).unlink()
    assert _accept_with(example, *flags) == 2
    assert problem in capsys.readouterr().err
    assert not _store(example).exists()
