"""The runs the history writer (.github/workflows/waiver-history.yml) reads: the gate run
whose waiver.json it records, and the earlier run of its own whose `waiver-history`
artifact it folds that into.

Only the default branch's runs make the history. A pull request's run executes the change's
workflow file and could upload any waiver.json it likes, so a run is recorded only when
GitHub says a push to the default branch, or its schedule, started it, from the gate's
caller file, calling waiver's gate workflow at the commit the writer runs and nothing
else (`waiver.decide.provenance_rules`). The history it
continues must be its own: an artifact of that name from any other run (a pull request's
upload) is passed over.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any

from waiver.decide.provenance_rules import called_workflow_problems
from waiver.github.rest import Api, ApiFailed
from waiver.github.runs import referenced_workflows, triggering_run, workflow_path
from waiver.write.files.provenance_file import JudgedRunJson

RECORDED_EVENTS = frozenset({"push", "schedule"})
HISTORY_ARTIFACT = "waiver-history"
# The writer runs on `workflow_run`: GitHub runs it from the default branch's file.
WRITER_EVENT = "workflow_run"
# Candidate artifacts whose run is looked up before giving up: the newest are the writer's
# unless pull requests upload artifacts of the same name in between.
MAX_CHECKED = 20


def _default_branch(event: Mapping[str, Any]) -> str:
    repository = event.get("repository")
    branch = repository.get("default_branch") if isinstance(repository, dict) else None
    if not isinstance(branch, str) or not branch:
        raise ApiFailed("the event names no default branch")
    return branch


def default_branch_run(
    event: Mapping[str, Any],
    repository: str,
    caller: str,
    waiver_repository: str,
    waiver_ref: str,
) -> JudgedRunJson:
    """The triggering gate run, as `waiver provenance` keeps it, when the history may
    record it; otherwise why not."""
    run, sha = triggering_run(event)
    run_id = run.get("id")
    if not isinstance(run_id, int) or isinstance(run_id, bool):
        raise ApiFailed("the run has no id")
    started_by = run.get("event")
    if started_by not in RECORDED_EVENTS:
        raise ApiFailed(
            f"run {run_id} was started by {started_by}: only push and schedule runs of the "
            "default branch are recorded"
        )
    branch = _default_branch(event)
    if run.get("head_branch") != branch:
        raise ApiFailed(f"run {run_id} ran on {run.get('head_branch')}, not on {branch}")
    path = workflow_path(run.get("path"), repository)
    if path != caller:
        raise ApiFailed(f"run {run_id} ran {path}, not the gate's caller {caller}")
    referenced = referenced_workflows(run)
    called = [(item["path"], item["sha"]) for item in referenced]
    problems = called_workflow_problems(called, waiver_repository, waiver_ref)
    if problems:
        raise ApiFailed(f"run {run_id}: {'; '.join(problems)}")
    return {
        "id": run_id,
        "path": path,
        "head_sha": sha,
        "head_branch": branch,
        "event": started_by,
        "started_by": started_by,
        "attempt": run.get("run_attempt", 1),
        "pull_request": None,
        "referenced_workflows": referenced,
    }


def _writer_run(api: Api, repository: str, run_id: int, writer: str, branch: str) -> bool:
    run, _ = api.get(f"{api.base}/repos/{repository}/actions/runs/{run_id}")
    return (
        isinstance(run, dict)
        and run.get("event") == WRITER_EVENT
        and run.get("head_branch") == branch
        and workflow_path(run.get("path"), repository) == writer
    )


def latest_history_run(
    api: Api, repository: str, event: Mapping[str, Any], writer: str
) -> int | None:
    """The newest run of `writer` on the default branch with a live `waiver-history`
    artifact; None when there is none, and the writer starts the history afresh."""
    branch = _default_branch(event)
    query = urllib.parse.urlencode({"name": HISTORY_ARTIFACT, "per_page": 100})
    page, _ = api.get(f"{api.base}/repos/{repository}/actions/artifacts?{query}")
    listed = page.get("artifacts") if isinstance(page, dict) else None
    if not isinstance(listed, list):
        raise ApiFailed("GET the artifacts answered something that is not a list")
    candidates = sorted(
        {
            artifact["workflow_run"]["id"]
            for artifact in listed
            if isinstance(artifact, dict)
            and artifact.get("name") == HISTORY_ARTIFACT
            and artifact.get("expired") is False
            and isinstance(artifact.get("workflow_run"), dict)
            and artifact["workflow_run"].get("head_branch") == branch
            and isinstance(artifact["workflow_run"].get("id"), int)
        },
        reverse=True,
    )
    for run_id in candidates[:MAX_CHECKED]:
        if _writer_run(api, repository, run_id, writer, branch):
            return int(run_id)
    return None
