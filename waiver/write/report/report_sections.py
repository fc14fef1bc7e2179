"""The report's sections from what the gate read: the one place where the fixtures, the
properties, the replays, the registry and the base replays take the shape of waiver.json.

The gate hands over typed facts (the reader's own types, or the small frozen records
below where a section needs a few facts from several places); each function returns the
section's `TypedDict`, so a key the schema does not know fails the type check here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from waiver.decide.cost import Cost
from waiver.decide.history_fold import HistoryRun
from waiver.model import Admission, CollapsedId, TestClass
from waiver.read.definitions.edit_kinds import EditFinding
from waiver.read.harness.reach_in import ReachIn
from waiver.read.junit.properties import PropertyRun
from waiver.read.junit.replay_reports import ReplayError
from waiver.read.junit.statistics import FewCases
from waiver.read.lock.committed import CommittedChange
from waiver.read.lock.drift import Fixtures, Part
from waiver.read.lock.lock_file import Drift
from waiver.read.trusted.protected import WorkingTreeChange
from waiver.write.report.report_types import (
    AdmittedByJson,
    BaseJson,
    CommittedChangeJson,
    CostJson,
    DriftJson,
    EditedTestJson,
    FixturesJson,
    PropertiesJson,
    ProtectedChangeJson,
    RegistryJson,
    ReplayErrorJson,
    ReplaysJson,
)


@dataclass(frozen=True)
class ProtectedChange:
    """A protected file (the lock, the registry, the freeze store, the policy) that the
    change's working tree edits; `role` is which of them it is."""

    role: Literal["lock", "known-tests", "freezes", "config"]
    path: str
    change: WorkingTreeChange


@dataclass(frozen=True)
class TrustedFacts:
    """What only a trusted revision shows of the fixtures and the harness."""

    lock_differs: bool  # the working tree's lock is not the trusted one
    protected_changes: tuple[ProtectedChange, ...]
    reach_ins: tuple[ReachIn, ...]
    reach_admitted: Admission | None  # the approval that admitted the reach-ins


@dataclass(frozen=True)
class FixtureFacts:
    lock: str  # the lock's path, as given
    lock_source: str  # "working tree" or the trusted revision
    fixtures: Fixtures
    trusted: TrustedFacts | None = None


@dataclass(frozen=True)
class ReplayFacts:
    """What the report keeps of a replay set: the per-test tally is freed before the
    report is built (at 500,000 tests its index alone is some 40 MB)."""

    count: int
    read: int
    errors: tuple[ReplayError, ...]
    # When no replay was read because none was needed: the class that decided and why.
    skipped: tuple[TestClass, str] | None = None
    collapsed: tuple[CollapsedId, ...] = ()


@dataclass(frozen=True)
class RegistryFacts:
    path: str | None  # None: no registry was used
    # Only with a trusted revision (`edited` None without one): the registered tests the
    # change edited with what changed, the named kinds of each edit, the diff of each edited
    # Python test's definition, and the registry the change's commit lists.
    edited: Mapping[str, tuple[str, ...]] | None = None
    findings: Mapping[str, tuple[EditFinding, ...]] = field(default_factory=dict)
    diffs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    change_lists: Sequence[str] | None = None


def _errors_json(errors: Sequence[ReplayError]) -> list[ReplayErrorJson]:
    return [{"replay": e.replay, "source": e.source, "problem": e.problem} for e in errors]


def replays_json(facts: ReplayFacts) -> ReplaysJson:
    document: ReplaysJson = {
        "count": facts.count,
        "read": facts.read,
        "errors": _errors_json(facts.errors),
    }
    if facts.skipped is not None:
        test_class, reason = facts.skipped
        document["skipped"] = (
            "property_violation" if test_class is TestClass.PROPERTY_VIOLATION else "fixture_drift"
        )
        document["reason"] = reason
    if facts.collapsed:
        document["collapsed"] = [
            {"test_id": c.test_id, "testcases": c.testcases, "file": c.file}
            for c in facts.collapsed
        ]
    return document


def timestamp(moment: datetime) -> str:
    """A time as every report writes it: in UTC, with a `Z`."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True)
class BaseReplays:
    reports: str  # the folder they were read from, or the history file
    replays: ReplayFacts
    # When the base evidence is the default branch's recorded run of the base commit.
    history_run: HistoryRun | None = None


def base_replays_json(base: BaseReplays, meanings: Mapping[str, int]) -> BaseJson:
    """`meanings`: rows per base meaning, which only the decision knows."""
    document: BaseJson = {
        "reports": base.reports,
        "count": base.replays.count,
        "read": base.replays.read,
        "errors": _errors_json(base.replays.errors),
        "meanings": meanings,
    }
    run = base.history_run
    if run is not None and run.head is not None:
        document["history_run"] = {"commit": run.head, "time": timestamp(run.time)}
    return document


def cost_json(cost: Cost) -> CostJson:
    """What a run's jobs cost, as provenance.json and waiver.json both hold it."""
    return {
        "jobs": cost.jobs,
        "seconds": {kind: round(spent, 1) for kind, spent in cost.seconds.items()},
        "billed_minutes": cost.billed_minutes,
        "plain_run": None if cost.plain_run is None else round(cost.plain_run, 1),
    }


def admission_json(admission: Admission) -> AdmittedByJson:
    return {
        "login": admission.login,
        "review_id": admission.review_id,
        "commit": admission.commit,
    }


def properties_json(
    report: str,
    run: PropertyRun,
    weakened: tuple[Sequence[ReachIn], Sequence[FewCases]] | None = None,
) -> PropertiesJson:
    """`weakened`, with a trusted revision: the settings changes of the change's commit and
    the properties that generated too few cases (`waiver.gate.weakened`)."""
    document: PropertiesJson = {
        "report": report,
        "cases": len(run.ran),
        "failed": run.failed,
        "skipped": run.skipped,
    }
    if run.messages:
        document["messages"] = dict(sorted(run.messages.items()))
    if weakened is not None:
        changes, few_cases = weakened
        document["settings_changes"] = [
            {"path": c.path, "line": c.line, "what": c.what} for c in changes
        ]
        document["few_cases"] = [
            {"test_id": f.test_id, "generated": f.generated, "stopped_because": f.stopped_because}
            for f in few_cases
        ]
    return document


def committed_json(
    changes: Sequence[CommittedChange], part: Callable[[str], Part]
) -> list[CommittedChangeJson]:
    """The changes as the report lists them, each with its part (fixtures or harness)."""
    listed: list[CommittedChangeJson] = []
    for change in changes:
        document: CommittedChangeJson = {
            "path": change.path,
            "change": change.change,
            "part": part(change.path),
        }
        if change.table is not None:
            document["table"] = change.table
        listed.append(document)
    return listed


def fixtures_json(facts: FixtureFacts) -> FixturesJson:
    fixtures = facts.fixtures
    part = fixtures.locked_set.part
    document: FixturesJson = {
        "lock": facts.lock,
        "lock_source": facts.lock_source,
        "lock_digest": fixtures.expected,
        "tree_digest": fixtures.current,
        "files": len(fixtures.lock),
        "drift": [_drift_json(drift, part(drift.path)) for drift in fixtures.state.drift],
        "bindings": [
            {
                "tests": list(subset.binding.tests),
                "fixtures": list(subset.binding.fixtures),
                "files": len(subset.lock),
                "lock_digest": subset.expected,
                "tree_digest": subset.current,
            }
            for subset in fixtures.bound.subsets
        ],
    }
    trusted = facts.trusted
    if trusted is not None:
        protected: list[ProtectedChangeJson] = [
            {"file": c.role, "path": c.path, "change": c.change} for c in trusted.protected_changes
        ]
        document["working_tree_lock_differs"] = trusted.lock_differs
        document["protected_changes"] = protected
        document["committed_changes"] = committed_json(fixtures.committed, part)
        document["runner_reach"] = [
            {"path": r.path, "line": r.line, "what": r.what} for r in trusted.reach_ins
        ]
        document["runner_reach_admitted_by"] = (
            None if trusted.reach_admitted is None else admission_json(trusted.reach_admitted)
        )
    return document


def _drift_json(drift: Drift, part: Part) -> DriftJson:
    document: DriftJson = {"path": drift.path, "kind": drift.kind, "part": part}
    if drift.table is not None:
        document["table"] = drift.table
    return document


def registry_json(facts: RegistryFacts) -> RegistryJson:
    document: RegistryJson = {"used": facts.path is not None, "path": facts.path}
    if facts.edited is not None:
        if facts.change_lists is not None:
            document["change_lists"] = list(facts.change_lists)
        findings, diffs = facts.findings, facts.diffs
        document["edited"] = [
            _edited_json(test_id, changes, findings.get(test_id, ()), diffs.get(test_id))
            for test_id, changes in sorted(facts.edited.items())
        ]
    return document


def _edited_json(
    test_id: str,
    changes: tuple[str, ...],
    findings: tuple[EditFinding, ...],
    diff: tuple[str, ...] | None,
) -> EditedTestJson:
    document: EditedTestJson = {
        "test_id": test_id,
        "changes": list(changes),
        "findings": [{"kind": finding.kind, "detail": finding.detail} for finding in findings],
    }
    if diff:
        document["diff"] = list(diff)
    return document
