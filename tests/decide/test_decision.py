"""The decision module rule by rule: exact classes, reasons and verdicts from pure inputs."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from waiver.decide.decision import (
    base_meaning,
    check_policy,
    classify,
    decide,
    is_strict,
)
from waiver.decide.freezes import propose_freeze, void_reason
from waiver.decide.policy import Policy
from waiver.errors import UsageError
from waiver.model import (
    BaseEvidence,
    BaseFinding,
    BaseMeaning,
    Case,
    Evidence,
    FreezeRecord,
    Row,
    TestClass,
    Verdict,
)

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
A, B = "a" * 64, "b" * 64
FLIP = (True, False, True, False, True)


def evidence(outcomes: tuple[bool, ...] = FLIP, **changes: Any) -> Evidence:
    fields: dict[str, Any] = {
        "property_ok": True,
        "fixture_hash": A,
        "expected_fixture_hash": A,
        "outcomes": outcomes,
        "known_test": True,
    }
    fields.update(changes)
    return Evidence(**fields)


def case(test_id: str = "t", outcomes: tuple[bool, ...] = FLIP, **changes: Any) -> Case:
    return Case((test_id,), evidence(outcomes, **changes))


@pytest.mark.parametrize(
    ("changes", "outcomes", "expected"),
    [
        (
            {"property_ok": False, "fixture_hash": B, "known_test": False},
            (False,),
            TestClass.PROPERTY_VIOLATION,
        ),
        ({"fixture_hash": B, "known_test": False}, (), TestClass.FIXTURE_DRIFT),
        ({"known_test": False}, (True,) * 5, TestClass.UNKNOWN_TEST),
        ({"unreadable_replays": 1}, (True,) * 5, TestClass.UNKNOWN_TEST),
        ({}, (True,) * 4, TestClass.UNKNOWN_TEST),
        ({}, (), TestClass.UNKNOWN_TEST),
        ({}, (True,) * 5, TestClass.STABLE_PASS),
        ({}, (True,) * 6, TestClass.STABLE_PASS),
        ({}, FLIP, TestClass.UNSTABLE_ASSERTION),
        ({}, (False,) * 4 + (True,), TestClass.UNSTABLE_ASSERTION),
        ({}, (False,) * 5, TestClass.STABLE_ASSERTION_FAIL),
    ],
)
def test_the_first_matching_rule_wins(
    changes: dict[str, Any], outcomes: tuple[bool, ...], expected: TestClass
) -> None:
    assert classify(evidence(outcomes, **changes), Policy(min_replays=5)) is expected


def test_min_replays_one_accepts_a_single_outcome() -> None:
    assert classify(evidence((True,)), Policy(min_replays=1)) is TestClass.STABLE_PASS
    with pytest.raises(UsageError, match="min_replays must be at least 1, got 0"):
        classify(evidence(), Policy(min_replays=0))


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        (Policy(min_replays=0), "min_replays must be at least 1, got 0"),
        (Policy(freeze_hours=0), "freeze_hours must be at least 1, got 0"),
        (Policy(freeze_hours=200), "freeze_hours (200) exceeds max_freeze_hours (168)"),
    ],
)
def test_bad_policies_are_usage_errors(policy: Policy, message: str) -> None:
    with pytest.raises(UsageError) as raised:
        check_policy(policy)
    assert str(raised.value) == message


def test_policy_at_its_limits_is_accepted() -> None:
    check_policy(Policy(min_replays=1, freeze_hours=168, max_freeze_hours=168))
    check_policy(Policy(freeze_hours=1))


def test_a_proposal_counts_the_replays_and_starts_now() -> None:
    proposal = propose_freeze("t", evidence(), Policy(freeze_hours=6), NOW)
    assert (proposal.test_id, proposal.fixture_hash) == ("t", A)
    assert (proposal.replay_pass, proposal.replay_total) == (3, 5)
    assert proposal.issued_at == NOW
    assert proposal.expires_at == NOW + timedelta(hours=6)


def test_strict_patterns_match_whole_ids_with_globs() -> None:
    policy = Policy(strict=("tests/auth/*", "exact"))
    assert is_strict("tests/auth/test_login.py::test_token", policy)
    assert is_strict("exact", policy)
    assert not is_strict("tests/authz/x", policy)
    assert not is_strict("exactly", policy)
    assert not is_strict("x", Policy())


def unstable_row(**changes: Any) -> Row:
    fields: dict[str, Any] = {
        "test_id": "t",
        "test_class": TestClass.UNSTABLE_ASSERTION,
        "replay_pass": 3,
        "replay_total": 5,
        "retries": 0,
        "fixture_hash": A,
        "strict": False,
        "freeze": None,
        "active_freeze": None,
    }
    fields.update(changes)
    return Row(**fields)


def record(**changes: Any) -> FreezeRecord:
    fields: dict[str, Any] = {
        "test_id": "t",
        "class": "unstable_assertion",
        "fixture_hash": A,
        "replay_pass": 3,
        "replay_total": 5,
        "counts_as_pass": False,
        "scope": "single_test_id",
        "issued_at": "2026-12-01T06:00:00+00:00",
        "expires_at": "2026-12-02T06:00:00+00:00",
    }
    fields.update(changes)
    return FreezeRecord(0, {k: v for k, v in fields.items() if v is not None})


@pytest.mark.parametrize(
    ("changes", "row_changes", "reason"),
    [
        ({}, {}, None),
        ({"expires_at": None, "scope": None}, {}, "missing field expires_at"),
        ({"scope": None, "replay_pass": None}, {}, "missing field replay_pass, scope"),
        ({"counts_as_pass": None}, {}, "missing field counts_as_pass"),
        ({"counts_as_pass": True}, {}, "counts_as_pass is not false"),
        ({"counts_as_pass": 0}, {}, "counts_as_pass is not false"),
        ({"scope": "all"}, {}, "scope is not single_test_id"),
        ({"class": "stable_pass"}, {}, "class is not unstable_assertion"),
        ({"issued_at": "2026-12-01T06:00:00"}, {}, "issued_at and expires_at must be timezone-aware ISO 8601 times"),
        ({"expires_at": "soon"}, {}, "issued_at and expires_at must be timezone-aware ISO 8601 times"),
        ({"expires_at": 5}, {}, "issued_at and expires_at must be timezone-aware ISO 8601 times"),
        ({"expires_at": "2026-12-01T12:00:00+00:00"}, {}, "expired"),
        ({"expires_at": "2026-12-01T11:59:59+00:00"}, {}, "expired"),
        ({"issued_at": "2026-12-01T12:00:01+00:00"}, {}, "issued in the future"),
        ({"issued_at": "2026-12-01T12:00:00+00:00"}, {}, None),
        ({"issued_at": "2026-11-25T06:00:00+00:00", "expires_at": "2026-12-02T06:00:00+00:00"}, {}, None),
        ({"issued_at": "2026-11-25T05:59:59+00:00", "expires_at": "2026-12-02T06:00:00+00:00"}, {}, "lifetime exceeds the policy maximum of 168 h"),
        ({"test_id": "other"}, {}, "no test with exactly this test id in this run"),
        ({"test_id": 7}, {}, "no test with exactly this test id in this run"),
        ({"test_id": ["t"]}, {}, "no test with exactly this test id in this run"),
        ({}, {"test_class": TestClass.STABLE_PASS}, "the test is stable_pass, not unstable_assertion"),
        ({"fixture_hash": B}, {}, "fixture_hash differs from the test's current fixture binding"),
    ],
)  # fmt: skip
def test_void_reasons(
    changes: dict[str, Any], row_changes: dict[str, Any], reason: str | None
) -> None:
    rows = {"t": unstable_row(**row_changes)}
    assert void_reason(record(**changes), rows.get, Policy(), NOW) == reason


@pytest.mark.parametrize(
    ("changes", "requires", "reason"),
    [
        ({}, ("owner",), "missing field owner, which the policy requires (freeze_requires)"),
        ({"owner": "me"}, ("owner", "tracking"), "missing field tracking, which the policy requires (freeze_requires)"),
        ({"owner": "me", "tracking": "https://x.invalid/1"}, ("owner", "tracking"), None),
        ({"owner": "  "}, (), "owner is not a non-empty string"),
        ({"reason": 5}, (), "reason is not a non-empty string"),
        ({"tracking": "https://x.invalid/1"}, (), None),
    ],
)  # fmt: skip
def test_a_record_names_who_answers_for_it_where_the_policy_requires_it(
    changes: dict[str, Any], requires: tuple[str, ...], reason: str | None
) -> None:
    rows = {"t": unstable_row()}
    policy = Policy(freeze_requires=requires)
    assert void_reason(record(**changes), rows.get, policy, NOW) == reason


def test_a_second_valid_record_for_the_same_test_is_void() -> None:
    first, second = record(), FreezeRecord(1, dict(record().fields))
    decision = decide([case()], Policy(), NOW, [first, second])
    assert decision.active == (first,)
    assert [(v.record.index, v.reason) for v in decision.void] == [
        (1, "another record for this test id is already active")
    ]
    assert decision.rows[0].active_freeze == first


def test_verdicts_and_counts() -> None:
    clean = decide([case(outcomes=(True,) * 5)], Policy(), NOW)
    assert (clean.verdict, clean.blocked) == (Verdict.CLEAN, False)
    review = decide([case(), case("u", (True,) * 5)], Policy(), NOW)
    assert (review.verdict, review.blocked) == (Verdict.REVIEW, False)
    assert review.counts[TestClass.UNSTABLE_ASSERTION] == 1
    assert review.counts[TestClass.STABLE_PASS] == 1
    assert review.counts[TestClass.UNKNOWN_TEST] == 0
    blocked = decide([case(), case("u", (False,) * 5)], Policy(), NOW)
    assert (blocked.verdict, blocked.blocked) == (Verdict.BLOCKED, True)


def test_a_strict_unstable_row_blocks_and_gets_no_proposal() -> None:
    decision = decide([case("tests/auth/x")], Policy(strict=("tests/auth/*",)), NOW)
    [row] = decision.rows
    assert row.test_class is TestClass.UNSTABLE_ASSERTION
    assert row.strict is True
    assert row.freeze is None
    assert decision.blocked is True


def test_under_strict_patterns_only_a_strict_unstable_row_blocks() -> None:
    """A strict row that passes, and an unstable row no pattern matches, leave it in review."""
    decision = decide(
        [case("tests/auth/login", (True,) * 5), case("tests/ui/menu")],
        Policy(strict=("tests/auth/*",)),
        NOW,
    )
    assert [(row.test_id, row.strict) for row in decision.rows] == [
        ("tests/auth/login", True),
        ("tests/ui/menu", False),
    ]
    assert (decision.verdict, decision.blocked) == (Verdict.REVIEW, False)


def test_an_unstable_row_gets_a_proposal_with_its_own_binding() -> None:
    [row] = decide([case(fixture_hash=A, retries=2)], Policy(), NOW).rows
    assert row.freeze is not None
    assert row.freeze.fixture_hash == A
    assert (row.replay_pass, row.replay_total, row.retries) == (3, 5, 2)
    assert row.strict is False


def test_decide_rejects_a_bad_policy() -> None:
    with pytest.raises(UsageError):
        decide([case()], Policy(freeze_hours=0), NOW)


def test_rows_are_a_sorted_sequence_found_by_id() -> None:
    rows = decide([Case(("b", "c", "a"), evidence((True,) * 5)), case("d")], Policy(), NOW).rows
    assert [row.test_id for row in rows] == ["a", "b", "c", "d"]
    assert rows[-1] == rows[3] == rows.find("d")
    assert rows[-1].freeze is not None
    assert [row.test_id for row in rows[1:3]] == ["b", "c"]
    assert rows.find("bb") is None
    assert rows.find("e") is None
    with pytest.raises(IndexError):
        rows[4]


def test_each_row_shows_its_own_message_and_the_message_decides_nothing() -> None:
    cases = [Case(("b", "c", "a"), evidence((False,) * 5)), case("d")]
    messages = {"a": "assert 1 == 2", "d": "replay 1: cold", "gone": "no row has it"}
    shown = decide(cases, Policy(), NOW, messages=messages)
    plain = decide(cases, Policy(), NOW)
    assert [row.message for row in shown.rows] == ["assert 1 == 2", None, None, "replay 1: cold"]
    assert [replace(row, message=None) for row in shown.rows] == list(plain.rows)
    assert (shown.blocked, shown.verdict, shown.counts) == (
        plain.blocked,
        plain.verdict,
        plain.counts,
    )


def test_an_id_in_two_cases_gets_a_row_for_each_in_case_order() -> None:
    """Rows are sorted by id alone: two cases naming one id keep their order, and their
    findings, which have no order, are never compared."""
    decision = decide([case("t", (True,) * 5), case("t", (False,) * 5)], Policy(), NOW)
    assert [row.test_class for row in decision.rows] == [
        TestClass.STABLE_PASS,
        TestClass.STABLE_ASSERTION_FAIL,
    ]


PASSES, FAILS = (True,) * 5, (False,) * 5
UNSTABLE, RED, GREEN = (
    TestClass.UNSTABLE_ASSERTION,
    TestClass.STABLE_ASSERTION_FAIL,
    TestClass.STABLE_PASS,
)


@pytest.mark.parametrize(
    ("base", "test_class", "expected"),
    [
        (BaseEvidence(PASSES), UNSTABLE, BaseMeaning.INTRODUCED),
        (BaseEvidence(FLIP), UNSTABLE, BaseMeaning.ALREADY_FLAKY),
        (BaseEvidence(FAILS), UNSTABLE, BaseMeaning.NONE),
        (BaseEvidence(PASSES), RED, BaseMeaning.BROKEN),
        (BaseEvidence(FAILS), RED, BaseMeaning.ALREADY_FAILING),
        (BaseEvidence(FLIP), RED, BaseMeaning.NONE),
        (BaseEvidence(FAILS), GREEN, BaseMeaning.NONE),
        (BaseEvidence((), on_base=False), UNSTABLE, BaseMeaning.NOT_ON_BASE),
        (BaseEvidence(PASSES[:4]), UNSTABLE, BaseMeaning.BASE_UNKNOWN),
        (BaseEvidence(PASSES, unreadable_replays=1), RED, BaseMeaning.BASE_UNKNOWN),
        # An unreadable base replay may have held the id: never "not on base" then.
        (BaseEvidence((), on_base=False, unreadable_replays=1), UNSTABLE, BaseMeaning.BASE_UNKNOWN),
        (None, UNSTABLE, BaseMeaning.BASE_UNKNOWN),
    ],
)
def test_what_the_base_replays_mean_beside_the_class(
    base: BaseEvidence | None, test_class: TestClass, expected: BaseMeaning
) -> None:
    assert base_meaning(base, test_class, Policy(min_replays=5)) is expected


@pytest.mark.parametrize(
    ("base", "blocked"),
    [
        (BaseEvidence(PASSES), True),
        (BaseEvidence(FLIP), False),
        (BaseEvidence(FAILS), True),
        (BaseEvidence((), on_base=False), True),
        (BaseEvidence(PASSES[:4]), True),
        (None, True),
    ],
)
def test_the_block_policy_pardons_only_an_instability_already_on_the_base(
    base: BaseEvidence | None, blocked: bool
) -> None:
    block = Policy(introduced_instability="block")
    decision = decide([case("t", base=base)], block, NOW)
    [row] = decision.rows
    assert (decision.blocked, row.freeze is None, row.test_class) == (blocked, blocked, UNSTABLE)
    review = decide([case("t", base=base)], Policy(), NOW)
    assert (review.blocked, review.verdict) == (False, Verdict.REVIEW)
    assert review.rows[0].freeze is not None


def test_base_evidence_is_carried_to_the_row_and_its_proposal_under_the_default_policy() -> None:
    unstable = evidence(base=BaseEvidence((True,) * 4 + (False,)))
    [row] = decide([Case(("t",), unstable)], Policy(), NOW).rows
    expected = BaseFinding(4, 5, BaseMeaning.ALREADY_FLAKY, False)
    assert (row.test_class, row.base) == (TestClass.UNSTABLE_ASSERTION, expected)
    assert row.freeze is not None and row.freeze.base == expected


def test_without_base_replays_a_row_under_the_default_policy_says_nothing_of_a_base() -> None:
    [row] = decide([Case(("t",), evidence())], Policy(), NOW).rows
    assert row.base is None
    assert row.freeze is not None and row.freeze.base is None
