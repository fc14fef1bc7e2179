"""Typed data that flows from the readers through the decision to the writers, and `Policy`,
the one declaration of each key of the policy file."""

from __future__ import annotations

import bisect
import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import Field, dataclass, field, replace
from datetime import datetime
from typing import Any, Literal, TypeVar, get_args, overload


class RedGreenOutcome(enum.StrEnum):
    """How a new or edited test did on the base's code (`waiver.decide.red_green`)."""

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


@dataclass(frozen=True, slots=True)
class Case:
    """Test ids that share their evidence exactly.

    In a large run nearly every test passed every replay against the same fixtures, so
    the gate makes one case per distinct evidence and the decision classifies each once,
    instead of making and classifying an object per test.
    """

    test_ids: tuple[str, ...]
    evidence: Evidence


# `registry: none` in the policy file: no known-tests registry, on purpose.
NO_REGISTRY = "none"
FreezeField = Literal["owner", "reason", "tracking"]
T = TypeVar("T")


@dataclass(frozen=True)
class Binding:
    """Tests (test-id globs) bound to the fixtures they read (globs over lock paths)."""

    tests: tuple[str, ...]
    fixtures: tuple[str, ...]


@dataclass(frozen=True)
class Key:
    """What makes a field of `Policy` a key of the policy file, `waiver.yml`.

    `schema` is the value's JSON Schema in waiver.yml (its `$ref`s name the `$defs` of
    waiver/schemas/waiver-config.schema.json); the value's schema in the report's `policy`
    object is the same types without their bounds, and null where the default is None.
    tests/test_policy_keys.py holds both schema files to this declaration.
    """

    description: str
    schema: Mapping[str, object]
    section: str | None = None  # the object of waiver.yml the key sits in, as `limits`
    path: bool = False  # a path relative to the repository root
    # The field's value from the YAML value, which the schema has checked; by default
    # each list becomes a tuple.
    read: Callable[[Any], object] | None = None

    def name(self, field_name: str) -> str:
        """The key's path in waiver.yml, as errors and the report's `sources` name it."""
        return field_name if self.section is None else f"{self.section}.{field_name}"


def _key(default: T, description: str, schema: Mapping[str, object], **more: Any) -> T:
    """A field of `Policy` with its default, declared as a key of waiver.yml."""
    declared = Key(description, schema, **more)
    return field(default=default, metadata={"key": declared})


def policy_key(policy_field: Field[object]) -> Key:
    """The `Key` a field of `Policy` (from `dataclasses.fields`) was declared with."""
    key: Key = policy_field.metadata["key"]
    return key


def _bindings(items: list[dict[str, list[str]]]) -> tuple[Binding, ...]:
    return tuple(Binding(tuple(item["tests"]), tuple(item["fixtures"])) for item in items)


def _list(of: Mapping[str, object], **more: object) -> Mapping[str, object]:
    return {"type": "array", "items": of, **more}


PATTERN = {"$ref": "#/$defs/pattern"}
SECTIONS = {"limits": "Caps used while reading the replays."}


@dataclass(frozen=True)
class Policy:
    """Every key of the policy file, each declared once: its value for the run, its default
    (where neither a flag nor the file sets it), and its `Key`.

    The policy reader (`waiver.read.policy`), the effective settings and where each value
    came from, the report's `policy` object and both JSON Schemas follow from these fields;
    the decision (`waiver.decide.decision`) takes the whole object.
    """

    min_replays: int = _key(
        5,
        "Replay outcomes a test needs before it can be anything but unknown_test (default 5).",
        {"$ref": "#/$defs/positive"},
    )
    freeze_hours: int = _key(
        24,
        "Lifetime of a fresh freeze proposal in hours (default 24); at most max_freeze_hours.",
        {"$ref": "#/$defs/hours"},
    )
    max_freeze_hours: int = _key(
        168,
        "A stored freeze record whose lifetime exceeds this is void (default 168).",
        {"$ref": "#/$defs/hours"},
    )
    strict: tuple[str, ...] = _key(
        (),
        "Test-id glob patterns whose unstable_assertion rows block admission and get no proposal.",
        _list(PATTERN),
    )
    introduced_instability: Literal["review", "block"] = _key(
        "review",
        "review (default): base replays are evidence only. block: an unstable_assertion row "
        "blocks and gets no proposal unless the base replays show the same test flipping; "
        "introduced, missing or short base evidence blocks.",
        {"enum": ["review", "block"]},
    )
    # What an accepted freeze must name (owner, reason, tracking); a record without is void.
    freeze_requires: tuple[FreezeField, ...] = _key(
        (),
        "What an accepted freeze record must name: owner (a login), reason, tracking (an "
        "issue's URL). `waiver freeze accept` refuses without them, and the gate treats a "
        "stored record that lacks one as void. Default: none.",
        _list({"enum": list(get_args(FreezeField))}, uniqueItems=True),
    )
    # None: no limit, so that `freeze accept` needs the store's git history only where the
    # policy asks for a limit.
    max_renewals: int | None = _key(
        None,
        "How many times a test's freeze may be renewed: accepted again after its first "
        "record, counted as distinct records in the git history of the freeze store. "
        "`waiver freeze accept` refuses a renewal past it and says to fix or delete the "
        "test. Default: no limit.",
        {"type": "integer", "minimum": 0},
    )
    # Empty: every regular file under the fixtures folder (or, when the file says
    # `fixtures: []`, none: the lock then holds the harness alone).
    fixtures: tuple[str, ...] = _key(
        (),
        "Include patterns of the locked fixture set, relative to the fixtures folder (a "
        "leading '/' or './' anchors there too); each must match a file (default: every "
        "regular file in it). An empty list says the tests read no fixtures: the lock holds "
        "the test harness alone.",
        _list(PATTERN),
    )
    bindings: tuple[Binding, ...] = _key(
        (),
        "Tests bound by test-id pattern to the fixtures they read; unbound tests are bound "
        "to the whole set.",
        _list({"$ref": "#/$defs/binding"}),
        read=_bindings,
    )
    # Globs added to the built-in harness files, never removing one.
    harness: tuple[str, ...] = _key(
        (),
        "Globs of more test-harness files to lock (another runner's configuration), added "
        "to conftest.py, the pytest configuration and the property-suite modules, which are "
        "always locked. A glob without '/' matches a file name in any folder; one with '/', "
        "or starting with '/' or './', the repository-relative path. Each must match a file.",
        {"$ref": "#/$defs/patterns"},
    )
    # Data beside the tests that a change may add or edit without drift.
    unlocked_data: tuple[str, ...] = _key(
        (),
        "Globs of data files beside the tests that a change may add or edit without drift "
        "(scratch output, snapshots that tests rewrite). Any other file but a Python module, "
        "documentation or git's own that the change's commit adds or edits under a test "
        "folder, and that the lock does not hold, is drift, like a fixture. A glob without "
        "'/' matches a file name in any folder; one with '/', or starting with '/' or './', "
        "the repository-relative path.",
        {"$ref": "#/$defs/patterns"},
    )
    # How the property suite is set apart: modules of its own, or selected among the tests.
    property_suite: Literal["folder", "selected"] = _key(
        "folder",
        "folder (default): the property suite is modules of its own; every module the "
        "property report names is harness, locked and unchanged. selected: the property "
        "tests are selected among the other tests (a marker, -k or ids), so their modules "
        "are test modules, not harness, and a registered property test the change edits is "
        "unknown_test (edited), like any registered test.",
        {"enum": ["folder", "selected"]},
    )
    # The test runner the replays run (`waiver.runners`).
    runner: Literal["pytest", "jest", "vitest", "mocha"] = _key(
        "pytest",
        "The test runner the replays run: pytest (default), jest, vitest or mocha. It decides "
        "which files are the test harness, how a report's testcase becomes a test id, and how "
        "a test's definition is compared.",
        {"enum": ["pytest", "jest", "vitest", "mocha"]},
    )
    # What an approval needs to admit a new or edited test: `red_green` (`waiver.gate.red_green`).
    review_requires: tuple[Literal["red_green"], ...] = _key(
        (),
        "What an approval needs besides itself to admit a new or edited test. red_green: its "
        "red-green outcome must be red_green (it failed every replay on the base's code with "
        "the change's test files, and passed every replay of the change); otherwise the row "
        "stays blocked and says why. Default: nothing (an approval admits what passed every "
        "replay).",
        _list({"enum": ["red_green"]}, uniqueItems=True),
    )
    # None: any user with write permission counts.
    approvers: tuple[str, ...] | None = _key(
        None,
        "GitHub logins whose approval may admit what blocks only for review (edited, new and "
        "vanished tests, a fixture update of its own). Without it, any user with write, "
        "maintain or admin permission who wrote none of the pull request counts; with it, "
        "only those of them named here.",
        _list({"type": "string", "pattern": "^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$"}, minItems=1),
    )
    # NO_REGISTRY when the file says there is none, on purpose.
    registry: str | None = _key(
        None,
        "The known-tests file, relative to the repository root; `none` to go without one on "
        "purpose (new and vanished tests are then not detected).",
        {"$ref": "#/$defs/path"},
        path=True,
    )
    freezes: str | None = _key(
        None,
        "The freeze store, relative to the repository root.",
        {"$ref": "#/$defs/path"},
        path=True,
    )
    # The default branch's history (`waiver history`, docs/history.md): evidence beside rows.
    history_runs: int = _key(
        100,
        "The most default-branch runs the history keeps; older ones leave it (default 100).",
        {"type": "integer", "minimum": 1, "maximum": 10000},
    )
    history_days: int = _key(
        30,
        "Runs older than this many days leave the history (default 30).",
        {"type": "integer", "minimum": 1, "maximum": 3650},
    )
    flag_failure_rate: float = _key(
        0.15,
        "A test is flagged when its failure rate on the default branch (runs where a replay "
        "failed, of the runs it ran in, storms left out) reaches this (default 0.15).",
        {"type": "number", "minimum": 0, "maximum": 1},
    )
    clear_failure_rate: float = _key(
        0.05,
        "A flagged test is cleared only when its failure rate falls below this, which must be "
        "less than flag_failure_rate; between the two it keeps its state (default 0.05).",
        {"type": "number", "minimum": 0, "maximum": 1},
    )
    min_history_sample: int = _key(
        10,
        "Runs a test must have run in before its failure rate flags or clears it (default 10).",
        {"$ref": "#/$defs/positive"},
    )
    storm_failure_share: float = _key(
        0.8,
        "A run where more than this share of the tests that ran failed is a storm: recorded, "
        "and left out of every rate (default 0.8).",
        {"type": "number", "minimum": 0, "maximum": 1},
    )
    ewma_lambda: float = _key(
        0.1,
        "The weight of the newest run in the exponentially weighted rate of transitions "
        "between passing and failing runs (default 0.1).",
        {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
    )
    max_report_bytes: int = _key(
        512 << 20,
        "The size cap of one JUnit file (default 512 MiB); a larger one is unreadable.",
        {"$ref": "#/$defs/positive"},
        section="limits",
    )
    max_files_per_replay: int = _key(
        10_000,
        "The most files one replay's folder may hold (default 10000).",
        {"$ref": "#/$defs/positive"},
        section="limits",
    )


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
    class, `blocked` or the verdict (`waiver.decide.history`)."""

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
    # Red-green evidence of new and edited tests, by row number (`waiver.decide.red_green`).
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
