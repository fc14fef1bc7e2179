"""The shape of waiver.json as the renderers read it, mirroring
waiver/schemas/waiver-report.schema.json key for key.

These types hold only for a schema-valid document: one the gate has just built (every
report the tests write is checked against the schema), or one read back from disk
through `waiver.read.stores.waiver_json.read_report`, which validates it against the schema
before anything reads it. A report from disk is hostile data until then, and no other
document may be taken for a `ReportJson`. `report_of` is the one place where a document
becomes the type; it is called where a document enters the renderers from the gate's
driver or a command (`write_report`, `publish`, `render_terminal`).

The maps keyed by name (counts per class, rows per base meaning, the policy's sources,
a stored freeze record) stay mappings: the renderers look them up by enum member.
"""

# No `from __future__ import annotations`: on Python 3.11 a TypedDict sees `NotRequired`
# only in an evaluated annotation, and the keys must be right for the schema test.

from collections.abc import Iterable, Mapping, Sequence
from typing import Literal, NotRequired, TypedDict, cast

from waiver.decide.policy import RunnerName
from waiver.read.definitions.edit_kinds import EditKind
from waiver.read.lock.committed import ChangeKind
from waiver.read.lock.drift import Part
from waiver.read.lock.lock_file import DriftKind
from waiver.read.trusted.protected import WorkingTreeChange

# The values of the model's enums, which the schema's enums list: typed as the strings
# they are, so that the writer can fill them from an enum member and a reader can
# compare them with one.
ClassName = str  # a waiver.model.TestClass value
UnknownName = str  # a waiver.model.UnknownReason value
MeaningName = str  # a waiver.model.BaseMeaning value
VerdictName = str  # a waiver.model.Verdict value


class ToolJson(TypedDict):
    name: Literal["waiver"]
    version: str


class PolicyBindingJson(TypedDict):
    tests: Sequence[str]
    fixtures: Sequence[str]


class LimitsJson(TypedDict):
    max_report_bytes: int
    max_files_per_replay: int


class PolicyJson(TypedDict):
    min_replays: int
    freeze_hours: int
    max_freeze_hours: int
    strict: Sequence[str]
    introduced_instability: Literal["review", "block"]
    review_requires: Sequence[Literal["red_green"]]
    freeze_requires: Sequence[Literal["owner", "reason", "tracking"]]
    max_renewals: int | None
    fixtures: Sequence[str]
    bindings: Sequence[PolicyBindingJson]
    harness: Sequence[str]
    package_scripts: Sequence[str]
    unlocked_data: Sequence[str]
    property_suite: Literal["folder", "selected"]
    runner: RunnerName
    approvers: Sequence[str] | None
    registry: str | None
    freezes: str | None
    history_runs: int
    history_days: int
    flag_failure_rate: float
    clear_failure_rate: float
    min_history_sample: int
    storm_failure_share: float
    ewma_lambda: float
    limits: LimitsJson
    config: str | None
    sources: Mapping[str, Literal["default", "file", "flag"]]


class RowBaseJson(TypedDict):
    """A row's replays on the base revision and what the pair means."""

    replay_pass: int
    replay_total: int
    meaning: MeaningName
    blocks: bool


class RowRedGreenJson(TypedDict):
    """A new or edited test's replays on the base's code with the change's test files."""

    outcome: Literal["red_green", "green_green", "flaky_on_base", "not_run"]
    base_pass: int
    base_total: int
    why: str | None
    blocks: bool


class RowBaseVersionJson(TypedDict):
    """An edited or deleted test's base version in the verdict replays, on the change's
    code: what it pinned, kept or broken."""

    replay_pass: int
    replay_total: int
    meaning: Literal["kept", "broken", "flaky", "short"]


class RowHistoryJson(TypedDict):
    """The default branch's history of the row's test: evidence, never a class."""

    runs: int
    flipped: int
    failed: int
    flagged: bool


class HistoryUsedJson(TypedDict):
    """The history file the gate was given, and why it could not be read, if it could not."""

    path: str
    runs: int
    problem: str | None


class AdmittedByJson(TypedDict):
    """A counted approval: the reviewer, their review, and the head commit it approved."""

    login: str
    review_id: int
    commit: str


# The keys named `class` need the functional form.
ProposalJson = TypedDict(
    "ProposalJson",
    {
        "test_id": str,
        "class": ClassName,  # always unstable_assertion
        "fixture_hash": str,
        "replay_pass": int,
        "replay_total": int,
        "counts_as_pass": Literal[False],
        "scope": Literal["single_test_id"],
        "issued_at": str,
        "expires_at": str,
        "base_replay_pass": NotRequired[int],
        "base_replay_total": NotRequired[int],
    },
)


class StoredJson(TypedDict):
    """A freeze record of the store, by its place in it; its fields are as stored."""

    index: int
    record: Mapping[str, object]


class VoidRecordJson(StoredJson):
    reason: str


RowJson = TypedDict(
    "RowJson",
    {
        "test_id": str,
        "class": ClassName,
        "unknown": UnknownName | None,
        "replay_pass": int,
        "replay_total": int,
        "retries": int,
        "fixture_hash": str,
        "strict": bool,
        "freeze": ProposalJson | None,
        "active_freeze": StoredJson | None,
        "base": NotRequired[RowBaseJson],
        "admitted_by": NotRequired[AdmittedByJson],
        "message": NotRequired[str],
        "red_green": NotRequired[RowRedGreenJson],
        "outcomes": NotRequired[Sequence[bool]],
        "history": NotRequired[RowHistoryJson],
        "base_version": NotRequired[RowBaseVersionJson],
    },
)


class DriftJson(TypedDict):
    path: str
    kind: DriftKind
    part: Part
    table: NotRequired[str]


class FixtureBindingJson(TypedDict):
    tests: Sequence[str]
    fixtures: Sequence[str]
    files: int
    lock_digest: str
    tree_digest: str


class ProtectedChangeJson(TypedDict):
    file: Literal["lock", "known-tests", "freezes", "config"]
    path: str
    change: WorkingTreeChange


class CommittedChangeJson(TypedDict):
    path: str
    change: ChangeKind
    part: Part
    table: NotRequired[str]


class RunnerReachJson(TypedDict):
    path: str
    line: int
    what: str


class FixturesJson(TypedDict):
    lock: str
    lock_source: str
    lock_digest: str
    tree_digest: str
    files: int
    drift: Sequence[DriftJson]
    bindings: Sequence[FixtureBindingJson]
    working_tree_lock_differs: NotRequired[bool]
    protected_changes: NotRequired[Sequence[ProtectedChangeJson]]
    committed_changes: NotRequired[Sequence[CommittedChangeJson]]
    runner_reach: NotRequired[Sequence[RunnerReachJson]]
    runner_reach_admitted_by: NotRequired[AdmittedByJson | None]


class FewCasesJson(TypedDict):
    test_id: str
    generated: int
    stopped_because: str


class PropertiesJson(TypedDict):
    report: str
    cases: int
    failed: Sequence[str]
    skipped: Sequence[str]
    messages: NotRequired[Mapping[str, str]]
    settings_changes: NotRequired[Sequence[RunnerReachJson]]
    few_cases: NotRequired[Sequence[FewCasesJson]]


class ReplayErrorJson(TypedDict):
    replay: int
    source: str
    problem: str


class CollapsedIdJson(TypedDict):
    test_id: str
    testcases: int
    file: str | None


class ReplaysJson(TypedDict):
    count: int
    read: int
    errors: Sequence[ReplayErrorJson]
    skipped: NotRequired[Literal["property_violation", "fixture_drift"]]
    reason: NotRequired[str]
    collapsed: NotRequired[Sequence[CollapsedIdJson]]


class ChangeTestsJson(TypedDict):
    """The reports of the change's own tests, run apart on its tree: where they were read
    from, how many replays, and why none could be read."""

    reports: str
    count: int
    read: int
    errors: Sequence[ReplayErrorJson]
    problem: str | None


class EditKindJson(TypedDict):
    kind: EditKind
    detail: str


class EditedTestJson(TypedDict):
    test_id: str
    changes: Sequence[str]
    findings: Sequence[EditKindJson]
    diff: NotRequired[Sequence[str]]


class RegistryJson(TypedDict):
    used: bool
    path: str | None
    change_lists: NotRequired[Sequence[str]]
    edited: NotRequired[Sequence[EditedTestJson]]


class RefusedJson(TypedDict):
    login: str
    reason: str


class ApprovalsJson(TypedDict):
    source: str
    pull_request: NotRequired[int]
    head: NotRequired[str]
    counted: Sequence[AdmittedByJson]
    refused: Sequence[RefusedJson]
    problem: str | None


class ProvenanceJson(TypedDict):
    run_id: int | None
    workflow: str | None
    problem: str | None
    admitted_by: AdmittedByJson | None


class FreezesJson(TypedDict):
    active: Sequence[StoredJson]
    void: Sequence[VoidRecordJson]


class ErrorJson(TypedDict):
    source: str
    problem: str


class HistoryRunJson(TypedDict):
    commit: str
    time: str


class BaseJson(TypedDict):
    """The base revision's replays, only when they were given or the history held them."""

    reports: str
    count: int
    read: int
    errors: Sequence[ReplayErrorJson]
    meanings: Mapping[str, int]
    history_run: NotRequired[HistoryRunJson]


class CostJson(TypedDict):
    """What the gate run's jobs cost, only in a workflow_run job that could read them."""

    jobs: int
    seconds: Mapping[str, float]
    billed_minutes: int
    plain_run: float | None


class ReportJson(TypedDict):
    schema_version: Literal[2]
    tool: ToolJson
    generated_at: str
    verdict: VerdictName
    blocked: bool
    min_replays: int
    policy: PolicyJson
    run_blockers: Sequence[str]
    counts: Mapping[str, int]
    # A list when read back; the gate's own report streams them (`ReportRows`).
    rows: Iterable[RowJson]
    skipped: Sequence[str]
    fixtures: FixturesJson | None
    properties: PropertiesJson | None
    replays: ReplaysJson | None
    registry: RegistryJson | None
    trusted_revision: str | None
    freezes: FreezesJson
    error: ErrorJson | None
    approvals: NotRequired[ApprovalsJson]
    provenance: NotRequired[ProvenanceJson]
    history: NotRequired[HistoryUsedJson]
    cost: NotRequired[CostJson]
    change_tests: NotRequired[ChangeTestsJson]
    base: NotRequired[BaseJson]


def report_of(document: Mapping[str, object]) -> ReportJson:
    """A schema-valid report document as the type the renderers read (see above)."""
    return cast(ReportJson, document)
