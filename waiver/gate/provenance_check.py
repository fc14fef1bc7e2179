"""Whether the reports a `workflow_run` job judges were produced by the base's own gate
workflow. Pure: the run as GitHub told of it, the two commits' files, and the approval.

A pull request's run executes the workflow file of the change, so the replays it uploads
are the change's to write. Its reports are evidence only when the run's workflow file is
the caller the trusted base holds, byte for byte at the commit the gate checks; it calls
waiver's reusable gate workflow at the commit this gate runs, and nothing else; it
uploaded no artifact that no job of that workflow uploads (`waiver.decide.provenance_rules`);
and each base replay it uploaded was created before any job that runs the change's code
began (`waiver.decide.base_order`). A base caller whose replays run in jobs of its own
calls no reusable workflow, and then neither may the run.
Anything else blocks the run with the file and the reason named. A change of the gate's workflow files
and of nothing else (a waiver upgrade moves both callers to a new commit) is for a person
to read: an approval of its head admits it, like a fixture update of its own; late base
replays no approval admits.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from waiver.decide.provenance_rules import called_workflow_problems, gate_workflow
from waiver.model import Admission
from waiver.read.evidence.provenance_data import Provenance, ReportsRun, reusable_calls
from waiver.read.trusted.protected import Committed
from waiver.write.report.report_sections import admission_json
from waiver.write.report.report_types import ProvenanceJson

GATE_EVENTS = frozenset({"pull_request", "merge_group"})
MAX_WORKFLOW_BYTES = 1 << 20


@dataclass(frozen=True)
class Judged:
    run_id: int | None
    workflow: str | None  # the run's workflow file
    problem: str | None  # why the reports are not the base's gate workflow's; None: they are
    update: bool = False  # the change edits the gate's workflow files and nothing else

    def blocker(self, approval: Admission | None) -> str | None:
        """What blocks the run, if anything: a workflow update waits for an approval."""
        if self.problem is None or (self.update and approval is not None):
            return None
        if self.update:
            return (
                f"{self.problem}; the change edits the gate's workflow files alone, which an "
                "approval of its head commit admits"
            )
        return self.problem

    def json(self, approval: Admission | None) -> ProvenanceJson:
        """The report's `provenance`; `approval`, the counted one when nothing blocks."""
        admitted = approval if self.problem is not None else None
        return {
            "run_id": self.run_id,
            "workflow": self.workflow,
            "problem": self.problem,
            "admitted_by": None if admitted is None else admission_json(admitted),
        }


def _base_calls(caller: str, text: bytes, waiver_repository: str) -> tuple[bool, list[str]]:
    """Whether the base's caller calls waiver's gate workflow, and what in it cannot be
    judged: a reusable workflow other than waiver's gate workflow, or a file that is no
    workflow. A caller whose replays run in jobs of its own calls none."""
    calls = reusable_calls(text)
    if calls is None:
        return False, [f"the base's {caller} cannot be read as YAML"]
    gate = gate_workflow(waiver_repository)
    others = [uses for uses in calls if uses.rpartition("@")[0].lower() != gate]
    problems = [
        f"the base's {caller} calls {uses}, which is not waiver's gate workflow" for uses in others
    ]
    return len(others) < len(calls), problems


def _edits(provenance: Provenance, run: ReportsRun, committed: Committed) -> list[str]:
    """How the run's workflow differs from the base's gate workflow."""
    caller = provenance.caller
    trusted = committed.trusted.read(caller, MAX_WORKFLOW_BYTES)
    if trusted is None:
        return [f"the base holds no {caller}"]
    edits = []
    if committed.head.read(caller, MAX_WORKFLOW_BYTES) != trusted:
        edits.append(f"{caller} is not the base's, byte for byte")
    calls_gate, problems = _base_calls(caller, trusted, provenance.waiver_repository)
    return (
        edits
        + problems
        + called_workflow_problems(
            run.referenced, provenance.waiver_repository, provenance.waiver_commit, calls_gate
        )
    )


def _quoted(names: tuple[str, ...]) -> str:
    """Artifact names as JSON strings, so that a trailing space or a control character
    shows."""
    return ", ".join(json.dumps(name, ensure_ascii=True) for name in names)


def judge_provenance(provenance: Provenance, committed: Committed | None) -> Judged:
    run = provenance.run
    if run is None:
        return Judged(None, None, f"no gate run is known for these reports: {provenance.error}")
    named = f"run {run.run_id} of {run.path or 'an unnamed workflow'}"
    if committed is None:
        return Judged(
            run.run_id, run.path, f"{named} is judged against the base: give --trusted-ref"
        )
    if run.head_sha not in (committed.head_commit, committed.merged_head):
        return Judged(
            run.run_id, run.path, f"{named} was about {run.head_sha}, not the commit checked"
        )
    if run.event not in GATE_EVENTS:
        return Judged(run.run_id, run.path, f"{named} was started by {run.event}")
    if run.unexpected_artifacts:
        return Judged(
            run.run_id,
            run.path,
            f"{named} uploaded artifacts that no job of waiver's gate workflow uploads: "
            f"{_quoted(run.unexpected_artifacts)}",
        )
    # Before the workflow's edits: no approval of a workflow update admits base replays
    # that a job running the change's code could have written.
    if run.base_order is not None:
        return Judged(run.run_id, run.path, f"{run.base_order} (run {run.run_id})")
    if run.path != provenance.caller:
        return Judged(
            run.run_id,
            run.path,
            f"the reports come from {named}, not from the base's gate workflow {provenance.caller}",
        )
    edits = _edits(provenance, run, committed)
    if not edits:
        return Judged(run.run_id, run.path, None)
    gate_files = {provenance.caller, provenance.report_workflow} - {None}
    return Judged(
        run.run_id,
        run.path,
        f"the reports come from {named}, which is not the base's gate workflow: "
        + "; ".join(edits),
        update=bool(committed.changed) and committed.changed <= gate_files,
    )
