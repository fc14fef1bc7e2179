"""The decision: pure functions from cases, policy, freeze records and one `now` to rows.

Nothing here reads a file, a clock or the environment, so the same inputs always give the
same classes, and the tests can drive every rule directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from fnmatch import fnmatchcase
from operator import attrgetter, countOf

from waiver.errors import UsageError
from waiver.model import (
    BLOCKING_CLASSES,
    Case,
    Decision,
    FreezeProposal,
    FreezeRecord,
    Policy,
    Row,
    TestClass,
    Verdict,
    VoidFreeze,
)

FREEZE_FIELDS = (
    "test_id",
    "class",
    "fixture_hash",
    "replay_pass",
    "replay_total",
    "counts_as_pass",
    "scope",
    "issued_at",
    "expires_at",
)


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


def classify(case: Case, min_replays: int) -> TestClass:
    """The first matching rule of SPEC section 2 wins."""
    if min_replays < 1:
        raise UsageError(f"min_replays must be at least 1, got {min_replays}")
    if not case.property_ok:
        return TestClass.PROPERTY_VIOLATION
    if case.fixture_hash != case.expected_fixture_hash:
        return TestClass.FIXTURE_DRIFT
    if not case.known_test or case.unreadable_replays or len(case.outcomes) < min_replays:
        return TestClass.UNKNOWN_TEST
    if all(case.outcomes):
        return TestClass.STABLE_PASS
    if any(case.outcomes):
        return TestClass.UNSTABLE_ASSERTION
    return TestClass.STABLE_ASSERTION_FAIL


def is_strict(test_id: str, policy: Policy) -> bool:
    return bool(policy.strict) and any(fnmatchcase(test_id, pattern) for pattern in policy.strict)


def propose_freeze(case: Case, policy: Policy, now: datetime) -> FreezeProposal:
    return FreezeProposal(
        test_id=case.test_id,
        fixture_hash=case.fixture_hash,
        replay_pass=sum(case.outcomes),
        replay_total=len(case.outcomes),
        issued_at=now,
        expires_at=now + timedelta(hours=policy.freeze_hours),
    )


def _aware_time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.utcoffset() is not None else None


def void_reason(
    record: FreezeRecord, rows: Mapping[str, Row], policy: Policy, now: datetime
) -> str | None:
    """Why a stored record may not apply, or None when it is active for its row."""
    fields = record.fields
    if "expires_at" not in fields:
        return "missing field expires_at"
    missing = [name for name in FREEZE_FIELDS if name not in fields]
    if missing:
        return "missing field " + ", ".join(missing)
    if fields["counts_as_pass"] is not False:
        return "counts_as_pass is not false"
    if fields["scope"] != "single_test_id":
        return "scope is not single_test_id"
    if fields["class"] != TestClass.UNSTABLE_ASSERTION.value:
        return "class is not unstable_assertion"
    issued_at = _aware_time(fields["issued_at"])
    expires_at = _aware_time(fields["expires_at"])
    if issued_at is None or expires_at is None:
        return "issued_at and expires_at must be timezone-aware ISO 8601 times"
    if expires_at <= now:
        return "expired"
    if issued_at > now:
        return "issued in the future"
    if expires_at - issued_at > timedelta(hours=policy.max_freeze_hours):
        return f"lifetime exceeds the policy maximum of {policy.max_freeze_hours} h"
    test_id = fields["test_id"]
    row = rows.get(test_id) if isinstance(test_id, str) else None
    if row is None:
        return "no test with exactly this test id in this run"
    if row.test_class is not TestClass.UNSTABLE_ASSERTION:
        return f"the test is {row.test_class.value}, not unstable_assertion"
    if fields["fixture_hash"] != row.fixture_hash:
        return "fixture_hash differs from the test's current fixture binding"
    return None


def check_freezes(
    records: Iterable[FreezeRecord], rows: Mapping[str, Row], policy: Policy, now: datetime
) -> tuple[dict[str, FreezeRecord], list[VoidFreeze]]:
    active: dict[str, FreezeRecord] = {}
    void: list[VoidFreeze] = []
    for record in records:
        reason = void_reason(record, rows, policy, now)
        if reason is None:
            test_id = str(record.fields["test_id"])
            if test_id in active:
                reason = "another record for this test id is already active"
            else:
                active[test_id] = record
                continue
        void.append(VoidFreeze(record, reason))
    return active, void


def _row(case: Case, policy: Policy, now: datetime) -> Row:
    test_class = classify(case, policy.min_replays)
    strict = is_strict(case.test_id, policy)
    freeze = None
    if test_class is TestClass.UNSTABLE_ASSERTION and not strict:
        freeze = propose_freeze(case, policy, now)
    outcomes = case.outcomes
    # Positional: one Row per test, and keywords cost about a sixth more.
    return Row(
        case.test_id,
        test_class,
        sum(outcomes),
        len(outcomes),
        case.retries,
        case.fixture_hash,
        strict,
        freeze,
        None,
    )


def decide(
    cases: Iterable[Case],
    policy: Policy,
    now: datetime,
    freeze_records: Iterable[FreezeRecord] = (),
) -> Decision:
    """Classify every case, attach proposals and valid stored freezes, and reach the verdict.

    Freezes are attached after classification and never feed back into it: an active
    record leaves its row unstable_assertion and `blocked` exactly as it was.
    """
    check_policy(policy)
    rows = sorted((_row(case, policy, now) for case in cases), key=attrgetter("test_id"))
    records = tuple(freeze_records)
    active: dict[str, FreezeRecord] = {}
    void: list[VoidFreeze] = []
    if records:
        by_id = {row.test_id: row for row in rows}
        active, void = check_freezes(records, by_id, policy, now)
    if active:
        rows = [
            replace(row, active_freeze=active[row.test_id]) if row.test_id in active else row
            for row in rows
        ]
    # countOf compares by identity first; a Counter would call the enum's Python __hash__
    # once per row.
    classes = [row.test_class for row in rows]
    counts = {test_class: countOf(classes, test_class) for test_class in TestClass}
    # A closed or unknown row blocks, and so does an unstable row under a strict pattern.
    blocked = any(counts[test_class] for test_class in BLOCKING_CLASSES) or (
        bool(policy.strict)
        and any(row.strict and row.test_class is TestClass.UNSTABLE_ASSERTION for row in rows)
    )
    if blocked:
        verdict = Verdict.BLOCKED
    elif counts[TestClass.STABLE_PASS] == len(rows):
        verdict = Verdict.CLEAN
    else:
        verdict = Verdict.REVIEW
    return Decision(
        rows=tuple(rows),
        blocked=blocked,
        verdict=verdict,
        counts=counts,
        active=tuple(active.values()),
        void=tuple(void),
    )
