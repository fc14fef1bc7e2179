"""The gate run whose reports a `workflow_run` job judges, as GitHub tells of it.

A run that a pull request (or a merge group) started is its own reports' run. A run that a
review started replays nothing: its reports are those of the latest completed
`pull_request` run of the trusted gate workflow for the same head, found through the API.
What is kept of the run is what says which file made it: its path, its head commit, the
reusable workflows it called at which commits, and its event. Whether that file is the
base's own gate workflow is judged by the gate (`waiver.gate.provenance`), which has the
commits.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any

from waiver.github.pulls import MERGE_GROUP, base_branch, open_pulls_of_commit
from waiver.github.rest import FULL_SHA, Api, ApiFailed

REVIEW_EVENT = "pull_request_review"


def workflow_path(path: object, repository: str) -> str | None:
    """A run's `path` as a path in its repository: the API spells it either plainly
    (`.github/workflows/waiver.yml`) or whole (`owner/name/.github/...@ref`)."""
    if not isinstance(path, str) or not path:
        return None
    prefix = f"{repository}/"
    if path.startswith(prefix):
        path = path[len(prefix) :].rpartition("@")[0] or path[len(prefix) :]
    return path


def _latest_gate_run(api: Api, repository: str, sha: str, caller: str) -> Mapping[str, Any]:
    query = urllib.parse.urlencode(
        {"head_sha": sha, "event": "pull_request", "status": "completed"}
    )
    runs = api.pages(f"/repos/{repository}/actions/runs", query, key="workflow_runs")
    found = [
        run
        for run in runs
        if isinstance(run, dict)
        and isinstance(run.get("id"), int)
        and run.get("head_sha") == sha
        and run.get("event") == "pull_request"
        and workflow_path(run.get("path"), repository) == caller
    ]
    if not found:
        raise ApiFailed(f"no completed pull_request run of {caller} has head {sha}")
    return max(found, key=lambda run: int(run["id"]))


def referenced_workflows(run: Mapping[str, Any]) -> list[dict[str, str]]:
    listed = run.get("referenced_workflows")
    if listed is None:
        return []
    if not isinstance(listed, list):
        raise ApiFailed("the run's referenced_workflows is not a list")
    referenced = []
    for item in listed:
        path = item.get("path") if isinstance(item, dict) else None
        sha = item.get("sha") if isinstance(item, dict) else None
        if not isinstance(path, str) or not isinstance(sha, str):
            raise ApiFailed("a referenced workflow of the run has no path or sha")
        referenced.append({"path": path, "sha": sha})
    return referenced


def _check_pull_request(
    api: Api,
    repository: str,
    run: Mapping[str, Any],
    sha: str,
    number: int,
    branches: frozenset[str] | None,
) -> None:
    """The run must be about pull request `number`, the one pull request into `branches`
    with its head: a status belongs to a commit, so one that several such pull requests
    share cannot speak for each. A same-repository run names the pull requests it was for;
    a fork's names none, and is then only taken when no other open pull request has the
    same head (another could target a branch the change controls, and its run would have
    run that branch's workflow file)."""
    listed = run.get("pull_requests")
    named = (
        [p.get("number") for p in listed if isinstance(p, dict)] if isinstance(listed, list) else []
    )
    if named and number not in named:
        said = ", ".join(f"#{n}" for n in named)
        raise ApiFailed(f"the run was for pull request {said}, not #{number}")
    pulls = open_pulls_of_commit(api, repository, sha)
    into = [p["number"] for p in pulls if branches is None or base_branch(p) in branches]
    if len(into) > 1:
        said = ", ".join(f"#{n}" for n in into)
        raise ApiFailed(
            f"pull requests {said} share head {sha}: one status cannot speak for each; "
            "close all but one"
        )
    if not named:
        others = [p["number"] for p in pulls]
        if others != [number]:
            said = ", ".join(f"#{n}" for n in others) or "none"
            raise ApiFailed(
                f"the run names no pull request and the open pull requests with head {sha} "
                f"are {said}: which one it ran for cannot be told"
            )


def triggering_run(event: Mapping[str, Any]) -> tuple[Mapping[str, Any], str]:
    """The workflow_run event's run, and the head commit it ran for."""
    run = event.get("workflow_run")
    if not isinstance(run, dict):
        raise ApiFailed("the event is not a workflow_run event")
    sha = run.get("head_sha")
    if not isinstance(sha, str) or not FULL_SHA.match(sha):
        raise ApiFailed("the event names no head commit")
    return run, sha


def gate_run(
    api: Api,
    repository: str,
    event: Mapping[str, Any],
    caller: str,
    number: int | None,
    branches: frozenset[str] | None,
) -> dict[str, object]:
    """The run whose reports are to be judged, as the document `waiver provenance` keeps;
    `number`, the pull request they are judged for (None: a merge group's run)."""
    run, sha = triggering_run(event)
    started_by = run.get("event")
    if started_by == REVIEW_EVENT:
        run = _latest_gate_run(api, repository, sha, caller)
    if number is not None and started_by != MERGE_GROUP:
        _check_pull_request(api, repository, run, sha, number, branches)
    run_id = run.get("id")
    if not isinstance(run_id, int) or isinstance(run_id, bool):
        raise ApiFailed("the run has no id")
    return {
        "id": run_id,
        "path": workflow_path(run.get("path"), repository),
        "head_sha": sha,
        "event": run.get("event"),
        "started_by": started_by,
        "referenced_workflows": referenced_workflows(run),
    }
