"""Freezes: a proposal for an unstable row, and whether a stored record applies.

Pure, like the rest of the decision: a record is judged against the policy, one `now` and
this run's rows, never against a clock or a file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

from waiver.decide.policy import Policy
from waiver.model import (
    BaseFinding,
    Evidence,
    FreezeProposal,
    FreezeRecord,
    Row,
    TestClass,
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


DUPLICATE = "another record for this test id is already active"
# Who answers for a freeze, why, and where it is followed up: optional, unless required.
ACCOUNTABLE = ("owner", "reason", "tracking")


def propose_freeze(
    test_id: str,
    evidence: Evidence,
    policy: Policy,
    now: datetime,
    base: BaseFinding | None = None,
) -> FreezeProposal:
    return FreezeProposal(
        test_id=test_id,
        fixture_hash=evidence.fixture_hash,
        replay_pass=sum(evidence.outcomes),
        replay_total=len(evidence.outcomes),
        issued_at=now,
        expires_at=now + timedelta(hours=policy.freeze_hours),
        base=base,
    )


def aware_time(value: object) -> datetime | None:
    """An ISO 8601 time with its zone, or None for anything else (no zone, not a time)."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.utcoffset() is not None else None


def record_void_reason(record: FreezeRecord, policy: Policy, now: datetime) -> str | None:
    """Why a stored record may not apply whatever the rows, or None when it could."""
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
    issued_at = aware_time(fields["issued_at"])
    expires_at = aware_time(fields["expires_at"])
    if issued_at is None or expires_at is None:
        return "issued_at and expires_at must be timezone-aware ISO 8601 times"
    if expires_at <= now:
        return "expired"
    if issued_at > now:
        return "issued in the future"
    if expires_at - issued_at > timedelta(hours=policy.max_freeze_hours):
        return f"lifetime exceeds the policy maximum of {policy.max_freeze_hours} h"
    for name in ACCOUNTABLE:
        value = fields.get(name)
        if value is not None and not (isinstance(value, str) and value.strip()):
            return f"{name} is not a non-empty string"
        if value is None and name in policy.freeze_requires:
            return f"missing field {name}, which the policy requires (freeze_requires)"
    return None


def void_reason(
    record: FreezeRecord, find_row: Callable[[str], Row | None], policy: Policy, now: datetime
) -> str | None:
    """Why a stored record may not apply, or None when it is active for its row."""
    reason = record_void_reason(record, policy, now)
    if reason is not None:
        return reason
    fields = record.fields
    test_id = fields["test_id"]
    row = find_row(test_id) if isinstance(test_id, str) else None
    if row is None:
        return "no test with exactly this test id in this run"
    if row.test_class is not TestClass.UNSTABLE_ASSERTION:
        return f"the test is {row.test_class.value}, not unstable_assertion"
    if fields["fixture_hash"] != row.fixture_hash:
        return "fixture_hash differs from the test's current fixture binding"
    return None


def check_freezes(
    records: Iterable[FreezeRecord],
    find_row: Callable[[str], Row | None],
    policy: Policy,
    now: datetime,
) -> tuple[dict[str, FreezeRecord], list[VoidFreeze]]:
    active: dict[str, FreezeRecord] = {}
    void: list[VoidFreeze] = []
    for record in records:
        reason = void_reason(record, find_row, policy, now)
        if reason is None:
            test_id = str(record.fields["test_id"])
            if test_id in active:
                reason = DUPLICATE
            else:
                active[test_id] = record
                continue
        void.append(VoidFreeze(record, reason))
    return active, void
