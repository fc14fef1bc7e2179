"""Invariants of the decision, as Hypothesis properties over generated cases and stores."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from waiver.decide.approval import ReviewFacts
from waiver.decide.decision import classify, decide
from waiver.decide.policy import Policy
from waiver.model import (
    BLOCKING_CLASSES,
    CLOSED_CLASSES,
    Admission,
    BaseEvidence,
    BaseMeaning,
    Case,
    Evidence,
    FreezeRecord,
    TestClass,
    UnknownReason,
    Verdict,
)

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
HASHES = st.sampled_from(["a" * 64, "b" * 64])
IDS = st.text(min_size=1, max_size=12)

# The base revision's replays of a test: absent (no base replays given), not on the base,
# or some outcomes there, possibly with an unreadable base replay.
base_evidence = st.one_of(
    st.none(),
    st.builds(
        BaseEvidence,
        outcomes=st.lists(st.booleans(), max_size=7).map(tuple),
        on_base=st.booleans(),
        unreadable_replays=st.integers(0, 1),
    ).map(lambda base: base if base.on_base else replace(base, outcomes=())),
)
evidence = st.builds(
    Evidence,
    property_ok=st.booleans(),
    fixture_hash=HASHES,
    expected_fixture_hash=HASHES,
    outcomes=st.lists(st.booleans(), max_size=7).map(tuple),
    known_test=st.booleans(),
    retries=st.integers(0, 3),
    unreadable_replays=st.integers(0, 1),
    base=base_evidence,
    edited=st.booleans(),
)
# A case holds every test id that shares its evidence: one to three here.
cases = st.builds(
    Case, test_ids=st.lists(IDS, min_size=1, max_size=3, unique=True).map(tuple), evidence=evidence
)


@st.composite
def case_lists(draw: st.DrawFn) -> list[Case]:
    """Cases whose test ids are distinct across the whole list."""
    ids = draw(st.lists(IDS, max_size=12, unique=True))
    found: list[Case] = []
    while ids:
        size = draw(st.integers(1, 3))
        found.append(Case(tuple(ids[:size]), draw(evidence)))
        ids = ids[size:]
    return found


def ids_of(case_list: list[Case]) -> set[str]:
    return {test_id for case in case_list for test_id in case.test_ids}


policies = st.builds(
    Policy,
    min_replays=st.integers(1, 6),
    freeze_hours=st.integers(1, 48),
    max_freeze_hours=st.just(168),
    strict=st.lists(st.sampled_from(["*", "a*", "?"]), max_size=2).map(tuple),
    introduced_instability=st.sampled_from(["review", "block"]),
)


def record_for(test_id: str, case: Case, **changes: object) -> FreezeRecord:
    fields: dict[str, object] = {
        "test_id": test_id,
        "class": "unstable_assertion",
        "fixture_hash": case.evidence.fixture_hash,
        "replay_pass": 1,
        "replay_total": 2,
        "counts_as_pass": False,
        "scope": "single_test_id",
        "issued_at": (NOW - timedelta(hours=1)).isoformat(),
        "expires_at": (NOW + timedelta(hours=10)).isoformat(),
    }
    fields.update(changes)
    return FreezeRecord(0, fields)


def some_records(case_list: list[Case], data: st.DataObject) -> list[FreezeRecord]:
    """A freeze record for each of some of the test ids, chosen by Hypothesis."""
    return [
        record_for(test_id, case)
        for case in case_list
        for test_id in case.test_ids
        if data.draw(st.booleans())
    ]


@given(case_lists(), policies, st.data())
def test_a_freeze_only_ever_on_unstable_assertion(
    case_list: list[Case], policy: Policy, data: st.DataObject
) -> None:
    records = some_records(case_list, data)
    decision = decide(case_list, policy, NOW, records)
    for row in decision.rows:
        if row.freeze is not None or row.active_freeze is not None:
            assert row.test_class is TestClass.UNSTABLE_ASSERTION
        if row.test_class in CLOSED_CLASSES:
            assert row.freeze is None and row.active_freeze is None
        if row.freeze is not None:
            assert not row.strict


@given(case_lists(), cases, policies)
def test_adding_a_closed_or_unknown_row_never_unblocks(
    case_list: list[Case], extra: Case, policy: Policy
) -> None:
    before = decide(case_list, policy, NOW)
    others = [case for case in case_list if not set(case.test_ids) & set(extra.test_ids)]
    after = decide([*others, extra], policy, NOW)
    if classify(extra.evidence, policy) in BLOCKING_CLASSES:
        assert after.blocked
    if before.blocked and not set(extra.test_ids) & ids_of(case_list):
        assert after.blocked


@given(case_lists(), policies, st.data())
def test_active_freezes_never_change_blocked_or_classes(
    case_list: list[Case], policy: Policy, data: st.DataObject
) -> None:
    records = some_records(case_list, data)
    with_store = decide(case_list, policy, NOW, records)
    without = decide(case_list, policy, NOW)
    assert with_store.blocked == without.blocked
    assert with_store.verdict == without.verdict
    assert [row.test_class for row in with_store.rows] == [row.test_class for row in without.rows]


@given(case_lists(), cases, policies, st.data())
def test_a_class_depends_only_on_its_case_and_min_replays(
    case_list: list[Case], case: Case, policy: Policy, data: st.DataObject
) -> None:
    others = [other for other in case_list if not set(other.test_ids) & set(case.test_ids)]
    shuffled = data.draw(st.permutations(others))
    later = NOW + timedelta(days=data.draw(st.integers(0, 400)))
    expected = classify(case.evidence, policy)
    for neighbours, moment in ((others, NOW), (shuffled, later)):
        rows = {row.test_id: row for row in decide([*neighbours, case], policy, moment).rows}
        assert [rows[test_id].test_class for test_id in case.test_ids] == [expected] * len(
            case.test_ids
        )


@given(case_lists(), policies)
def test_blocked_exactly_when_a_blocking_row_or_strict_unstable_row_exists(
    case_list: list[Case], policy: Policy
) -> None:
    decision = decide(case_list, policy, NOW)
    expected = any(
        row.test_class in BLOCKING_CLASSES
        or (
            row.test_class is TestClass.UNSTABLE_ASSERTION
            and (row.strict or (row.base is not None and row.base.blocks))
        )
        for row in decision.rows
    )
    assert decision.blocked is expected
    assert [row.test_id for row in decision.rows] == sorted(row.test_id for row in decision.rows)


@given(case_lists(), policies, st.data())
def test_a_case_decides_as_its_test_ids_would_one_by_one(
    case_list: list[Case], policy: Policy, data: st.DataObject
) -> None:
    records = some_records(case_list, data)
    single = [Case((test_id,), case.evidence) for case in case_list for test_id in case.test_ids]
    grouped = decide(case_list, policy, NOW, records)
    one_by_one = decide(single, policy, NOW, records)
    assert list(grouped.rows) == list(one_by_one.rows)
    assert len(grouped.rows) == len(single) == sum(grouped.counts.values())
    assert (grouped.counts, grouped.blocked, grouped.verdict) == (
        one_by_one.counts,
        one_by_one.blocked,
        one_by_one.verdict,
    )
    assert (grouped.active, grouped.void) == (one_by_one.active, one_by_one.void)


@given(case_list=case_lists(), policy=policies)
def test_exactly_the_unknown_rows_say_why_and_new_wins(
    case_list: list[Case], policy: Policy
) -> None:
    evidence_of = {test_id: case.evidence for case in case_list for test_id in case.test_ids}
    for row in decide(case_list, policy, NOW).rows:
        evidence = evidence_of[row.test_id]
        if row.test_class is not TestClass.UNKNOWN_TEST:
            assert row.unknown is None
        elif not evidence.known_test:
            assert row.unknown is UnknownReason.NEW
        elif evidence.edited:
            assert row.unknown is UnknownReason.EDITED
        elif not evidence.outcomes:
            assert row.unknown is UnknownReason.VANISHED
        else:
            assert row.unknown is UnknownReason.SHORT
            assert evidence.unreadable_replays or len(evidence.outcomes) < policy.min_replays


RANK = {Verdict.CLEAN: 0, Verdict.REVIEW: 1, Verdict.BLOCKED: 2}


def without_base(case_list: list[Case]) -> list[Case]:
    return [replace(case, evidence=replace(case.evidence, base=None)) for case in case_list]


@given(case_lists(), policies, st.data())
def test_base_evidence_never_moves_a_row_out_of_its_class_nor_lowers_the_verdict(
    case_list: list[Case], policy: Policy, data: st.DataObject
) -> None:
    """Against the gate without base replays, under any policy: the same classes, and a
    verdict at least as severe; under the default policy, the very same verdict."""
    records = some_records(case_list, data)
    today = decide(
        without_base(case_list), replace(policy, introduced_instability="review"), NOW, records
    )
    with_base = decide(case_list, policy, NOW, records)
    assert [(row.test_id, row.test_class) for row in with_base.rows] == [
        (row.test_id, row.test_class) for row in today.rows
    ]
    assert with_base.counts == today.counts
    assert RANK[with_base.verdict] >= RANK[today.verdict]
    assert with_base.blocked >= today.blocked
    assert with_base.active == today.active
    if policy.introduced_instability == "review":
        assert (with_base.verdict, with_base.blocked) == (today.verdict, today.blocked)
        assert [row.freeze is None for row in with_base.rows] == [
            row.freeze is None for row in today.rows
        ]


@given(case_lists(), policies)
def test_under_the_block_policy_only_an_instability_the_base_shares_gets_a_proposal(
    case_list: list[Case], policy: Policy
) -> None:
    decision = decide(case_list, replace(policy, introduced_instability="block"), NOW)
    for row in decision.rows:
        if row.test_class is not TestClass.UNSTABLE_ASSERTION:
            assert row.freeze is None
            continue
        assert row.base is not None
        shared = row.base.meaning is BaseMeaning.ALREADY_FLAKY
        assert (row.freeze is not None) == (shared and not row.strict)
        assert row.base.blocks is not shared
        if row.freeze is not None:
            assert row.freeze.base == row.base


reviews = st.builds(
    ReviewFacts,
    approval=st.just(Admission("reviewer", 1, "c" * 40)),
    change_registry=st.one_of(st.none(), st.frozensets(IDS, max_size=4)),
    fixture_update=st.booleans(),
)


@given(case_lists(), policies, reviews)
def test_an_approval_admits_only_what_blocks_for_review_and_moves_no_class(
    case_list: list[Case], policy: Policy, review: ReviewFacts
) -> None:
    plain = decide(case_list, policy, NOW)
    reviewed = decide(case_list, policy, NOW, review=review)
    assert [row.test_class for row in reviewed.rows] == [row.test_class for row in plain.rows]
    admitted = [row for row in reviewed.rows if row.admitted_by is not None]
    for row in admitted:
        assert row.test_class in (TestClass.UNKNOWN_TEST, TestClass.FIXTURE_DRIFT)
        assert row.unknown is not UnknownReason.SHORT
        assert row.test_class is not TestClass.FIXTURE_DRIFT or review.fixture_update
        if row.unknown in (UnknownReason.NEW, UnknownReason.EDITED):
            assert row.replay_pass == row.replay_total >= policy.min_replays
    # A closed row is never admitted, so it keeps the run blocked; an approval never blocks.
    if any(row.test_class in CLOSED_CLASSES - {TestClass.FIXTURE_DRIFT} for row in plain.rows):
        assert reviewed.blocked
    assert reviewed.blocked <= plain.blocked
    if admitted:
        assert reviewed.verdict is not Verdict.CLEAN
