"""The shape of provenance.json, which `waiver provenance` writes and `waiver gate
--provenance` and `waiver status --provenance` read back (`waiver.read.evidence.provenance_data`): the
gate run whose reports a `workflow_run` job judges, and what GitHub says made it."""

# No `from __future__ import annotations`: on Python 3.11 a TypedDict sees `NotRequired`
# only in an evaluated annotation.

import json
from typing import NotRequired, TypedDict

from waiver.decide.provenance_rules import SortedArtifacts
from waiver.write.report.report_types import CostJson


class WaiverJson(TypedDict):
    repository: str
    commit: str


class CalledJson(TypedDict):
    path: str
    sha: str


class JudgedRunJson(TypedDict):
    id: int
    path: str | None  # its workflow file
    head_sha: str
    head_branch: str | None
    event: object  # what the run was started by, as the API says
    started_by: object  # what started the run that triggered the job (a review's run)
    attempt: object
    pull_request: int | None  # the pull request it is bound to; None for a merge group's
    referenced_workflows: list[CalledJson]


class ArtifactsJson(TypedDict):
    """The artifact ids the job downloads, by kind, and the names no waiver job uploads."""

    properties: list[int]
    replays: list[int]
    base_replays: list[int]
    red_green: list[int]
    change_tests: list[int]
    unexpected: list[str]


class ProvenanceFileJson(TypedDict):
    caller: str
    report_workflow: str | None
    waiver: WaiverJson
    run: JudgedRunJson | None
    error: str | None  # why no run could be named
    superseded: NotRequired[str]  # why nothing is posted for this run: a newer one reports
    artifacts: NotRequired[ArtifactsJson]
    cost: NotRequired[CostJson]
    # Whether the run ran the change's own tests apart: its jobs say so, or their artifacts.
    change_tests_ran: NotRequired[bool]
    history_error: NotRequired[str]
    # Why the run's base replays are no evidence: one was created after a job that runs the
    # change's code began, or a time cannot be read (`waiver.decide.base_order`).
    base_order: NotRequired[str]


def artifacts_json(artifacts: SortedArtifacts) -> ArtifactsJson:
    return {
        "properties": list(artifacts.properties),
        "replays": list(artifacts.replays),
        "base_replays": list(artifacts.base_replays),
        "red_green": list(artifacts.red_green),
        "change_tests": list(artifacts.change_tests),
        "unexpected": list(artifacts.unexpected),
    }


def render_provenance(document: ProvenanceFileJson) -> str:
    return json.dumps(document, ensure_ascii=True, sort_keys=True)
