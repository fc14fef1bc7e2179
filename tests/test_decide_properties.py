"""Invariants of the decision, as Hypothesis properties over generated cases and stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from waiver.decide import classify, decide
from waiver.model import (
    BLOCKING_CLASSES,
    CLOSED_CLASSES,
    Case,
    FreezeRecord,
    Policy,
    TestClass,
)

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
HASHES = st.sampled_from(["a" * 64, "b" * 64])
IDS = st.text(min_size=1, max_size=12)

cases = st.builds(
    Case,
    test_id=IDS,
    property_ok=st.booleans(),
    fixture_hash=HASHES,
    expected_fixture_hash=HASHES,
    outcomes=st.lists(st.booleans(), max_size=7).map(tuple),
    known_test=st.booleans(),
    retries=st.integers(0, 3),
    unreadable_replays=st.integers(0, 1),
)
case_lists = st.lists(cases, max_size=8, unique_by=lambda case: case.test_id)
policies = st.builds(
    Policy,
    min_replays=st.integers(1, 6),
    freeze_hours=st.integers(1, 48),
    max_freeze_hours=st.just(168),
    strict=st.lists(st.sampled_from(["*", "a*", "?"]), max_size=2).map(tuple),
)


def record_for(case: Case, **changes: object) -> FreezeRecord:
    fields: dict[str, object] = {
        "test_id": case.test_id,
        "class": "unstable_assertion",
        "fixture_hash": case.fixture_hash,
        "replay_pass": 1,
        "replay_total": 2,
        "counts_as_pass": False,
        "scope": "single_test_id",
        "issued_at": (NOW - timedelta(hours=1)).isoformat(),
        "expires_at": (NOW + timedelta(hours=10)).isoformat(),
    }
    fields.update(changes)
    return FreezeRecord(0, fields)


@given(case_lists, policies, st.data())
def test_a_freeze_only_ever_on_unstable_assertion(
    case_list: list[Case], policy: Policy, data: st.DataObject
) -> None:
    records = [record_for(case) for case in case_list if data.draw(st.booleans())]
    decision = decide(case_list, policy, NOW, records)
    for row in decision.rows:
        if row.freeze is not None or row.active_freeze is not None:
            assert row.test_class is TestClass.UNSTABLE_ASSERTION
        if row.test_class in CLOSED_CLASSES:
            assert row.freeze is None and row.active_freeze is None
        if row.freeze is not None:
            assert not row.strict


@given(case_lists, cases, policies)
def test_adding_a_closed_or_unknown_row_never_unblocks(
    case_list: list[Case], extra: Case, policy: Policy
) -> None:
    before = decide(case_list, policy, NOW)
    others = [case for case in case_list if case.test_id != extra.test_id]
    after = decide([*others, extra], policy, NOW)
    if classify(extra, policy.min_replays) in BLOCKING_CLASSES:
        assert after.blocked
    if before.blocked and extra.test_id not in {case.test_id for case in case_list}:
        assert after.blocked


@given(case_lists, policies, st.data())
def test_active_freezes_never_change_blocked_or_classes(
    case_list: list[Case], policy: Policy, data: st.DataObject
) -> None:
    records = [record_for(case) for case in case_list if data.draw(st.booleans())]
    with_store = decide(case_list, policy, NOW, records)
    without = decide(case_list, policy, NOW)
    assert with_store.blocked == without.blocked
    assert with_store.verdict == without.verdict
    assert [row.test_class for row in with_store.rows] == [row.test_class for row in without.rows]


@given(case_lists, cases, policies, st.data())
def test_a_class_depends_only_on_its_case_and_min_replays(
    case_list: list[Case], case: Case, policy: Policy, data: st.DataObject
) -> None:
    others = [other for other in case_list if other.test_id != case.test_id]
    shuffled = data.draw(st.permutations(others))
    later = NOW + timedelta(days=data.draw(st.integers(0, 400)))
    expected = classify(case, policy.min_replays)
    for neighbours, moment in ((others, NOW), (shuffled, later)):
        rows = {row.test_id: row for row in decide([*neighbours, case], policy, moment).rows}
        assert rows[case.test_id].test_class is expected


@given(case_lists, policies)
def test_blocked_exactly_when_a_blocking_row_or_strict_unstable_row_exists(
    case_list: list[Case], policy: Policy
) -> None:
    decision = decide(case_list, policy, NOW)
    expected = any(
        row.test_class in BLOCKING_CLASSES
        or (row.strict and row.test_class is TestClass.UNSTABLE_ASSERTION)
        for row in decision.rows
    )
    assert decision.blocked is expected
    assert [row.test_id for row in decision.rows] == sorted(row.test_id for row in decision.rows)
