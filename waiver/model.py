"""Typed data that flows from the readers through the decision to the writers."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime


class TestClass(enum.StrEnum):
    """The six classes, in the order in which they are decided."""

    __test__ = False  # not a pytest test class, despite its name

    PROPERTY_VIOLATION = "property_violation"
    FIXTURE_DRIFT = "fixture_drift"
    UNKNOWN_TEST = "unknown_test"
    STABLE_PASS = "stable_pass"
    UNSTABLE_ASSERTION = "unstable_assertion"
    STABLE_ASSERTION_FAIL = "stable_assertion_fail"


CLOSED_CLASSES = frozenset(
    {TestClass.PROPERTY_VIOLATION, TestClass.FIXTURE_DRIFT, TestClass.STABLE_ASSERTION_FAIL}
)
BLOCKING_CLASSES = CLOSED_CLASSES | {TestClass.UNKNOWN_TEST}


class Verdict(enum.StrEnum):
    BLOCKED = "blocked"
    REVIEW = "review"
    CLEAN = "clean"


@dataclass(frozen=True, slots=True)
class Case:
    """Everything the decision needs to know about one test id."""

    test_id: str
    property_ok: bool
    fixture_hash: str
    expected_fixture_hash: str
    outcomes: tuple[bool, ...]
    known_test: bool
    retries: int = 0
    # Replays that ran but could not be read: their outcome for this test is unknown, so
    # the replay list is short whatever min_replays says.
    unreadable_replays: int = 0


@dataclass(frozen=True)
class Policy:
    min_replays: int = 5
    freeze_hours: int = 24
    max_freeze_hours: int = 168
    strict: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FreezeProposal:
    test_id: str
    fixture_hash: str
    replay_pass: int
    replay_total: int
    issued_at: datetime
    expires_at: datetime


@dataclass(frozen=True)
class FreezeRecord:
    """One entry of the freeze store, as read: its fields are not yet trusted."""

    index: int
    fields: Mapping[str, object]


@dataclass(frozen=True)
class VoidFreeze:
    record: FreezeRecord
    reason: str


@dataclass(frozen=True, slots=True)
class Row:
    test_id: str
    test_class: TestClass
    replay_pass: int
    replay_total: int
    retries: int
    fixture_hash: str
    strict: bool
    freeze: FreezeProposal | None
    active_freeze: FreezeRecord | None


@dataclass(frozen=True)
class Decision:
    rows: tuple[Row, ...]
    blocked: bool
    verdict: Verdict
    counts: Mapping[TestClass, int]
    active: tuple[FreezeRecord, ...] = field(default=())
    void: tuple[VoidFreeze, ...] = field(default=())
