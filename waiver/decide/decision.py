"""The decision: pure functions from cases, policy, freeze records and one `now` to rows.

Nothing here reads a file, a clock or the environment, so the same inputs always give the
same classes, and the tests can drive every rule directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from fnmatch import fnmatchcase
from itertools import repeat
from operator import itemgetter

from waiver.decide.approval import ReviewFacts, admits
from waiver.decide.freezes import check_freezes, propose_freeze
from waiver.decide.policy import Policy
from waiver.errors import UsageError
from waiver.model import (
    BLOCKING_CLASSES,
    BaseEvidence,
    BaseFinding,
    BaseMeaning,
    BaseVersionFinding,
    BaseVersionMeaning,
    Case,
    Decision,
    Evidence,
    Finding,
    FreezeProposal,
    FreezeRecord,
    Rows,
    TestClass,
    UnknownReason,
    Verdict,
    VoidFreeze,
)

# The classes a counted approval can admit a row of (see `waiver.decide.approval.admits`).
REVIEWABLE = frozenset({TestClass.UNKNOWN_TEST, TestClass.FIXTURE_DRIFT})


def check_policy(policy: Policy) -> None:
    """Reject values that would make the gate meaningless rather than fall back to a default."""
    if policy.min_replays < 1:
        raise UsageError(f"min_replays must be at least 1, got {policy.min_replays}")
    if policy.freeze_hours < 1:
        raise UsageError(f"freeze_hours must be at least 1, got {policy.freeze_hours}")
    if policy.freeze_hours > policy.max_freeze_hours:
        raise UsageError(
            f"freeze_hours ({policy.freeze_hours}) exceeds max_freeze_hours "
            f"({policy.max_freeze_hours})"
        )
    if policy.clear_failure_rate >= policy.flag_failure_rate:
        # Without a gap a test whose rate sits at the line would be flagged and cleared
        # run after run.
        raise UsageError(
            f"clear_failure_rate ({policy.clear_failure_rate}) must be less than "
            f"flag_failure_rate ({policy.flag_failure_rate})"
        )


def classify(evidence: Evidence, policy: Policy) -> TestClass:
    """The first matching rule of the classes table in docs/classes.md wins; the test id plays
    no part."""
    min_replays = policy.min_replays
    if min_replays < 1:
        raise UsageError(f"min_replays must be at least 1, got {min_replays}")
    if not evidence.property_ok:
        return TestClass.PROPERTY_VIOLATION
    if evidence.fixture_hash != evidence.expected_fixture_hash:
        return TestClass.FIXTURE_DRIFT
    outcomes = evidence.outcomes
    if (
        not evidence.known_test
        or evidence.edited
        or evidence.unreadable_replays
        or len(outcomes) < min_replays
    ):
        return TestClass.UNKNOWN_TEST
    if all(outcomes):
        return TestClass.STABLE_PASS
    if any(outcomes):
        return TestClass.UNSTABLE_ASSERTION
    return TestClass.STABLE_ASSERTION_FAIL


def unknown_reason(evidence: Evidence) -> UnknownReason:
    """Which question an unknown_test row puts to the reviewer; new wins over edited, and
    edited over vanished and short."""
    if not evidence.known_test:
        return UnknownReason.NEW
    if evidence.edited:
        return UnknownReason.EDITED
    if not evidence.outcomes:
        return UnknownReason.VANISHED
    return UnknownReason.SHORT


def base_meaning(base: BaseEvidence | None, test_class: TestClass, policy: Policy) -> BaseMeaning:
    """What the base's replays say beside the row's class; they never change the class."""
    # An unreadable base replay may hold the id, so it is never said to be not on base.
    if base is None or base.unreadable_replays:
        return BaseMeaning.BASE_UNKNOWN
    if not base.on_base:
        return BaseMeaning.NOT_ON_BASE
    outcomes = base.outcomes
    if len(outcomes) < policy.min_replays:
        return BaseMeaning.BASE_UNKNOWN
    if test_class is TestClass.UNSTABLE_ASSERTION:
        if all(outcomes):
            return BaseMeaning.INTRODUCED
        if any(outcomes):
            return BaseMeaning.ALREADY_FLAKY
    elif test_class is TestClass.STABLE_ASSERTION_FAIL:
        if all(outcomes):
            return BaseMeaning.BROKEN
        if not any(outcomes):
            return BaseMeaning.ALREADY_FAILING
    return BaseMeaning.NONE


def base_finding(evidence: Evidence, test_class: TestClass, policy: Policy) -> BaseFinding | None:
    """The row's base evidence; None when there is none and the policy does not ask for it.

    Under `introduced_instability: block` an unstable row gets a proposal only when the
    base shows the same test flipping: introduced, missing or short base evidence blocks.
    """
    block = policy.introduced_instability == "block"
    if evidence.base is None and not block:
        return None
    meaning = base_meaning(evidence.base, test_class, policy)
    outcomes = evidence.base.outcomes if evidence.base is not None else ()
    return BaseFinding(
        sum(outcomes),
        len(outcomes),
        meaning,
        block
        and test_class is TestClass.UNSTABLE_ASSERTION
        and meaning is not BaseMeaning.ALREADY_FLAKY,
    )


def base_version_finding(
    outcomes: tuple[bool, ...] | None, policy: Policy
) -> BaseVersionFinding | None:
    """What the base's version of an edited or deleted test did on the change's code; None
    when it was not told apart from the change's version (their tests did not run apart)."""
    if outcomes is None:
        return None
    if len(outcomes) < policy.min_replays:
        meaning = BaseVersionMeaning.SHORT
    elif all(outcomes):
        meaning = BaseVersionMeaning.KEPT
    elif any(outcomes):
        meaning = BaseVersionMeaning.FLAKY
    else:
        meaning = BaseVersionMeaning.BROKEN
    return BaseVersionFinding(sum(outcomes), len(outcomes), meaning)


def is_strict(test_id: str, policy: Policy) -> bool:
    return bool(policy.strict) and any(fnmatchcase(test_id, pattern) for pattern in policy.strict)


def _reviewed(
    case: Case, finding: Finding, review: ReviewFacts, policy: Policy
) -> list[tuple[str, Finding, FreezeProposal | None]]:
    """The case's rows, each admitted where the approval admits it."""
    admitted = replace(finding, admitted_by=review.approval)
    return [
        (
            test_id,
            admitted
            if admits(review, test_id, finding.test_class, finding.unknown, case.evidence, policy)
            else finding,
            None,
        )
        for test_id in case.test_ids
    ]


def _rows(
    cases: Iterable[Case], policy: Policy, now: datetime, review: ReviewFacts | None = None
) -> tuple[list[tuple[str, Finding, FreezeProposal | None]], dict[TestClass, int]]:
    """(test id, finding, proposal) per test id, unsorted, and the count of each class.

    A case is classified once for all its ids; only strict patterns and proposals, which
    name the test, are looked at id by id, and only where they can matter. A case's base
    evidence is shared by its ids too, so it is judged once.
    """
    rows: list[tuple[str, Finding, FreezeProposal | None]] = []
    counts = dict.fromkeys(TestClass, 0)
    for case in cases:
        evidence = case.evidence
        test_class = classify(evidence, policy)
        counts[test_class] += len(case.test_ids)
        outcomes = evidence.outcomes
        base = base_finding(evidence, test_class, policy)
        finding = Finding(
            test_class,
            sum(outcomes),
            len(outcomes),
            evidence.retries,
            evidence.fixture_hash,
            False,
            unknown_reason(evidence) if test_class is TestClass.UNKNOWN_TEST else None,
            base,
            outcomes=outcomes,
            base_version=base_version_finding(evidence.base_version, policy),
        )
        if review is not None and test_class in REVIEWABLE:
            rows.extend(_reviewed(case, finding, review, policy))
            continue
        # Under a strict pattern or the block policy an unstable row gets no proposal.
        proposable = test_class is TestClass.UNSTABLE_ASSERTION and not (base and base.blocks)
        if not policy.strict and not proposable:
            rows.extend(zip(case.test_ids, repeat(finding), repeat(None)))
            continue
        strict_finding = replace(finding, strict=True)
        for test_id in case.test_ids:
            if is_strict(test_id, policy):
                rows.append((test_id, strict_finding, None))
            elif proposable:
                proposal = propose_freeze(test_id, evidence, policy, now, base)
                rows.append((test_id, finding, proposal))
            else:
                rows.append((test_id, finding, None))
    return rows, counts


def _unadmitted(
    counts: dict[TestClass, int],
    found: list[tuple[str, Finding, FreezeProposal | None]],
    review: ReviewFacts | None,
) -> dict[TestClass, int]:
    """Rows per class that no approval admitted."""
    left = dict(counts)
    if review is not None:
        for _, finding, _ in found:
            if finding.admitted_by is not None:
                left[finding.test_class] -= 1
    return left


def decide(
    cases: Iterable[Case],
    policy: Policy,
    now: datetime,
    freeze_records: Iterable[FreezeRecord] = (),
    review: ReviewFacts | None = None,
    messages: Mapping[str, str] | None = None,
) -> Decision:
    """Classify every case, attach proposals and valid stored freezes, and reach the verdict.

    `messages`, the first failure message of each failing id, are shown, never judged.

    Freezes are attached after classification and never feed back into it: an active
    record leaves its row unstable_assertion and `blocked` exactly as it was. A counted
    approval (`review`) admits the rows that block only for review; they keep their class,
    no longer block, and keep the verdict from `clean`.
    """
    check_policy(policy)
    found, counts = _rows(cases, policy, now, review)
    found.sort(key=itemgetter(0))
    rows = Rows(
        tuple(test_id for test_id, _, _ in found),
        tuple(finding for _, finding, _ in found),
        {number: row[2] for number, row in enumerate(found) if row[2] is not None},
    ).with_messages(messages or {})
    records = tuple(freeze_records)
    active: dict[str, FreezeRecord] = {}
    void: list[VoidFreeze] = []
    if records:
        active, void = check_freezes(records, rows.find, policy, now)
    if active:
        rows = replace(
            rows,
            active={
                number: active[test_id]
                for number, test_id in enumerate(rows.test_ids)
                if test_id in active
            },
        )
    # A closed or unknown row blocks, and so does an unstable row under a strict pattern
    # or one whose instability the policy blocks as introduced by the change.
    unadmitted = _unadmitted(counts, found, review)
    blocked = any(unadmitted[test_class] for test_class in BLOCKING_CLASSES) or (
        bool(policy.strict or policy.introduced_instability == "block")
        and any(
            finding.test_class is TestClass.UNSTABLE_ASSERTION
            and (finding.strict or (finding.base is not None and finding.base.blocks))
            for finding in rows.findings
        )
    )
    if blocked:
        verdict = Verdict.BLOCKED
    elif counts[TestClass.STABLE_PASS] == len(rows):
        verdict = Verdict.CLEAN
    else:
        verdict = Verdict.REVIEW
    return Decision(
        rows=rows,
        blocked=blocked,
        verdict=verdict,
        counts=counts,
        active=tuple(active.values()),
        void=tuple(void),
    )
