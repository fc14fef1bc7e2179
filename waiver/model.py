"""Typed data that flows from the readers through the decision to the writers; the policy
it is decided under is `waiver.decide.policy`."""

from __future__ import annotations

import bisect
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import overload


class RedGreenOutcome(enum.StrEnum):
    """How a new or edited test did on the base's code (`waiver.decide.red_green_rules`)."""

    RED_GREEN = "red_green"
    GREEN_GREEN = "green_green"
    FLAKY_ON_BASE = "flaky_on_base"
    NOT_RUN = "not_run"


@dataclass(frozen=True, slots=True)
class RedGreenFinding:
    outcome: RedGreenOutcome
    base_pass: int
    base_total: int
    why: str | None
    # Under `review_requires: red_green`: an approval does not admit the row.
    blocks: bool = False


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


class UnknownReason(enum.StrEnum):
    """Why a row is unknown_test: each asks the reviewer a different question."""

    NEW = "new"  # not in the known-tests registry
    EDITED = "edited"  # registered, and its definition the change edited: no evidence
    VANISHED = "vanished"  # in the registry, but no outcome in any replay
    SHORT = "short"  # fewer replay outcomes than required, or a replay could not be read


class Verdict(enum.StrEnum):
    BLOCKED = "blocked"
    REVIEW = "review"
    CLEAN = "clean"


class BaseMeaning(enum.StrEnum):
    """What a row's replays on the base revision say about the change, beside its class."""

    INTRODUCED = "introduced"  # unstable here, every base replay passed
    ALREADY_FLAKY = "already_flaky"  # unstable here and on the base
    BROKEN = "broken"  # every replay failed here, every base replay passed
    ALREADY_FAILING = "already_failing"  # every replay failed here and on the base
    NOT_ON_BASE = "not_on_base"  # the base replays never ran the id
    BASE_UNKNOWN = "base_unknown"  # fewer base outcomes than min_replays, or no base replays
    NONE = "none"  # the pair means none of the above


BASE_WORDS = {
    BaseMeaning.INTRODUCED: "introduced by this change",
    BaseMeaning.ALREADY_FLAKY: "already flaky on the base",
    BaseMeaning.BROKEN: "broken by this change",
    BaseMeaning.ALREADY_FAILING: "already failing on the base",
    BaseMeaning.NOT_ON_BASE: "not on base",
    BaseMeaning.BASE_UNKNOWN: "base unknown",
    BaseMeaning.NONE: "",
}


@dataclass(frozen=True, slots=True)
class BaseEvidence:
    """A test id's replays on the trusted base revision: evidence beside the change's own.

    `outcomes` is empty when the base replays never ran the id (`on_base` false), and short
    when a base replay could not be read (`unreadable_replays`).
    """

    outcomes: tuple[bool, ...]
    on_base: bool = True
    unreadable_replays: int = 0


@dataclass(frozen=True, slots=True)
class BaseFinding:
    replay_pass: int
    replay_total: int
    meaning: BaseMeaning
    # Under `introduced_instability: block`: an unstable row the base does not show
    # flipping too blocks, like a strict test, and gets no proposal.
    blocks: bool


class BaseVersionMeaning(enum.StrEnum):
    """What the base's version of a test the change edited or deleted did on the change's
    code, in the verdict replays: the test as it was pinned, beside the change's own."""

    KEPT = "kept"  # it passed every replay: the change keeps what it pinned
    BROKEN = "broken"  # it failed every replay: the change breaks what it pinned
    FLAKY = "flaky"  # it passed some replays and failed others
    SHORT = "short"  # fewer outcomes than min_replays (none: it did not run, or load)


@dataclass(frozen=True, slots=True)
class BaseVersionFinding:
    replay_pass: int
    replay_total: int
    meaning: BaseVersionMeaning


@dataclass(frozen=True, slots=True)
class Evidence:
    """Everything the decision knows about a test apart from its id."""

    property_ok: bool
    fixture_hash: str
    expected_fixture_hash: str
    outcomes: tuple[bool, ...]
    known_test: bool
    retries: int = 0
    # Replays that ran but could not be read: their outcome for this test is unknown, so
    # the replay list is short whatever min_replays says.
    unreadable_replays: int = 0
    # None when no base replays were given; it never plays a part in the class.
    base: BaseEvidence | None = None
    # The change edited the test's definition: its replays say nothing about the change.
    edited: bool = False
    # Of a test the change edited or deleted, when its tests ran apart: the base's version's
    # outcomes in the verdict replays (`outcomes` are then the change's version's). None
    # otherwise; it never plays a part in the class.
    base_version: tuple[bool, ...] | None = None


@dataclass(frozen=True, slots=True)
class Case:
    """Test ids that share their evidence exactly.

    In a large run nearly every test passed every replay against the same fixtures, so
    the gate makes one case per distinct evidence and the decision classifies each once,
    instead of making and classifying an object per test.
    """

    test_ids: tuple[str, ...]
    evidence: Evidence


@dataclass(frozen=True, slots=True)
class FreezeProposal:
    test_id: str
    fixture_hash: str
    replay_pass: int
    replay_total: int
    issued_at: datetime
    expires_at: datetime
    base: BaseFinding | None = None  # shown to whoever accepts the proposal


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
class Admission:
    """A human's counted approval of the pull request's head commit, which admits the rows
    that block only for review; the row keeps its class."""

    login: str
    review_id: int
    commit: str


@dataclass(frozen=True, slots=True)
class CollapsedId:
    """A test id that more than one testcase of one replay read as, under a runner whose ids
    name their file (jest, vitest, mocha): tests the report did not tell apart, whose
    outcomes the gate merges as attempts of one. `testcases` is the most of them in one
    replay; `file` the repository file the id names, which every one of them came from (the
    id holds it), or None when the report named no file in the repository for them."""

    test_id: str
    testcases: int
    file: str | None


@dataclass(frozen=True, slots=True)
class HistoryFinding:
    """A test's runs on the default branch, beside its row: evidence that never changes a
    class, `blocked` or the verdict (`waiver.decide.history_fold`)."""

    runs: int  # runs of the history it ran in, storm runs left out
    flipped: int  # of those, runs where its replays both passed and failed
    failed: int  # runs where every replay failed
    flagged: bool  # its failure rate reached flag_failure_rate and has not fallen below clear


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
    unknown: UnknownReason | None = None
    base: BaseFinding | None = None
    admitted_by: Admission | None = None
    message: str | None = None  # the first failure message its replays gave
    red_green: RedGreenFinding | None = None  # a new or edited test's replays on the base
    outcomes: tuple[bool, ...] = ()  # pass or fail of each replay with an outcome, in order
    history: HistoryFinding | None = None  # the default branch's history of the id
    # An edited or deleted test's base version on the change's code.
    base_version: BaseVersionFinding | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    """A row apart from its id and freezes; the rows of one case share one."""

    test_class: TestClass
    replay_pass: int
    replay_total: int
    retries: int
    fixture_hash: str
    strict: bool
    unknown: UnknownReason | None = None  # set exactly when test_class is unknown_test
    base: BaseFinding | None = None
    admitted_by: Admission | None = None  # a counted approval admitted the row
    outcomes: tuple[bool, ...] = ()  # pass or fail of each replay with an outcome, in order
    base_version: BaseVersionFinding | None = None  # an edited or deleted test's base version

    def row(
        self,
        test_id: str,
        freeze: FreezeProposal | None = None,
        active_freeze: FreezeRecord | None = None,
        message: str | None = None,
        red_green: RedGreenFinding | None = None,
        history: HistoryFinding | None = None,
    ) -> Row:
        return Row(
            test_id,
            self.test_class,
            self.replay_pass,
            self.replay_total,
            self.retries,
            self.fixture_hash,
            self.strict,
            freeze,
            active_freeze,
            self.unknown,
            self.base,
            self.admitted_by,
            message,
            red_green,
            self.outcomes,
            history,
            self.base_version,
        )


@dataclass(frozen=True)
class Rows(Sequence[Row]):
    """The rows of a decision, sorted by test id, held as columns.

    A `Row` is made only when one is asked for: writing 100,000 rows needs the ids and
    their few distinct findings, not 100,000 objects.
    """

    test_ids: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()  # one per test id, shared between rows
    freezes: Mapping[int, FreezeProposal] = field(default_factory=dict)  # by row number
    active: Mapping[int, FreezeRecord] = field(default_factory=dict)  # by row number
    messages: Mapping[int, str] = field(default_factory=dict)  # by row number
    # Red-green evidence of new and edited tests, by row number (`waiver.decide.red_green_rules`).
    red_green: Mapping[int, RedGreenFinding] = field(default_factory=dict)
    # The default branch's history of unstable and failing rows, by row number.
    history: Mapping[int, HistoryFinding] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.test_ids)

    @overload
    def __getitem__(self, number: int) -> Row: ...

    @overload
    def __getitem__(self, number: slice) -> Sequence[Row]: ...

    def __getitem__(self, number: int | slice) -> Row | Sequence[Row]:
        if isinstance(number, slice):
            return [self[i] for i in range(len(self))[number]]
        number = range(len(self))[number]  # negative numbers count from the end
        return self.findings[number].row(
            self.test_ids[number],
            self.freezes.get(number),
            self.active.get(number),
            self.messages.get(number),
            self.red_green.get(number),
            self.history.get(number),
        )

    def own(self) -> set[int]:
        """The numbers of the rows that hold a value of their own beside their finding: a
        freeze proposal or record, a message, red-green evidence, a history."""
        return (
            self.freezes.keys()
            | self.active.keys()
            | self.messages.keys()
            | self.red_green.keys()
            | self.history.keys()
        )

    def number(self, test_id: str) -> int | None:
        """The row number of `test_id`, found by bisection in the sorted ids."""
        number = bisect.bisect_left(self.test_ids, test_id)
        if number < len(self) and self.test_ids[number] == test_id:
            return number
        return None

    def with_messages(self, messages: Mapping[str, str]) -> Rows:
        """These rows, each with its id's message: the few failing ids are each found by
        bisection rather than a pass over every row."""
        numbered = ((self.number(test_id), message) for test_id, message in messages.items())
        return replace(
            self,
            messages={number: message for number, message in numbered if number is not None},
        )

    def find(self, test_id: str) -> Row | None:
        """The row of `test_id`, or None when no row has it."""
        number = self.number(test_id)
        return None if number is None else self[number]


@dataclass(frozen=True)
class Decision:
    rows: Rows
    blocked: bool
    verdict: Verdict
    counts: Mapping[TestClass, int]
    active: tuple[FreezeRecord, ...] = field(default=())
    void: tuple[VoidFreeze, ...] = field(default=())
