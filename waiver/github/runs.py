"""The gate run whose reports a `workflow_run` job judges, bound to the pull request, the
base and the head it ran for, as GitHub tells of it.

A `pull_request` run executes the workflow files of the merge of its head into its pull
request's base *at the time of the event*, and GitHub's `workflow_run.pull_requests` lists
the open pull requests whose head matches the run, not the one that started it. So the
run's own word is not taken: it is bound to the pull request the status speaks for by
elimination, each step from the API alone:

- the run ran from that pull request's head branch and repository (`head_branch`,
  `head_repository`): a run of another branch at the same commit was another pull
  request's;
- no other pull request, open or closed, into any branch, has had that head or comes from
  that branch (`GET /commits/{sha}/pulls` lists closed ones too): its run would look the
  same, and may have executed a workflow file of a branch the change controls;
- the pull request's base did not change since shortly before the run was created (the
  timeline's `base_ref_changed`; the margin covers the delay between an event and its
  run), and a same-repository run's `pull_requests` entry names the same base: a run that
  began on another base executed that base's workflow file, even when re-run later;
- it is the newest run of the caller for that head branch and commit, in its newest
  attempt: an older run, or an older attempt, is `Superseded` and posts nothing, so a
  re-run of an older green run never replaces a newer red verdict.

A run that a review started replays nothing: the newest `pull_request` run of the caller
for the pull request's head is judged, and only once it has completed. What is kept of the
run is what says which file made it; whether that file is the base's own gate workflow,
and whether it called waiver's at the pinned commit, the gate judges
(`waiver.gate.provenance_check`), which has the commits.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from waiver.github.pulls import MERGE_GROUP, base_branch, fetch_pull, pulls_of_commit
from waiver.github.rest import FULL_SHA, Api, ApiFailed, read_time
from waiver.write.files.provenance_file import CalledJson, JudgedRunJson

REVIEW_EVENT = "pull_request_review"
PULL_REQUEST_EVENT = "pull_request"
BASE_CHANGED = "base_ref_changed"
# How long before a run's creation a base change may still have come after its event.
BASE_CHANGE_MARGIN = timedelta(minutes=2)


class Superseded(Exception):
    """The run is not the newest of its pull request's head (or not in its newest attempt):
    its verdict must not replace the newer one's, so nothing is posted."""


def workflow_path(path: object, repository: str) -> str | None:
    """A run's `path` as a path in its repository: the API spells it either plainly
    (`.github/workflows/waiver.yml`) or whole (`owner/name/.github/...@ref`)."""
    if not isinstance(path, str) or not path:
        return None
    prefix = f"{repository}/"
    if path.startswith(prefix):
        path = path[len(prefix) :].rpartition("@")[0] or path[len(prefix) :]
    return path


def job_workflow(env: Mapping[str, str]) -> str | None:
    """The file of the running job's own caller (`$GITHUB_WORKFLOW_REF`), in its repository."""
    reference = env.get("GITHUB_WORKFLOW_REF", "")
    return workflow_path(reference, env.get("GITHUB_REPOSITORY", "")) if "@" in reference else None


def referenced_workflows(run: Mapping[str, Any]) -> list[CalledJson]:
    listed = run.get("referenced_workflows")
    if listed is None:
        return []
    if not isinstance(listed, list):
        raise ApiFailed("the run's referenced_workflows is not a list")
    referenced: list[CalledJson] = []
    for item in listed:
        path = item.get("path") if isinstance(item, dict) else None
        sha = item.get("sha") if isinstance(item, dict) else None
        if not isinstance(path, str) or not isinstance(sha, str):
            raise ApiFailed("a referenced workflow of the run has no path or sha")
        referenced.append({"path": path, "sha": sha})
    return referenced


def triggering_run(event: Mapping[str, Any]) -> tuple[Mapping[str, Any], str]:
    """The workflow_run event's run, and the head commit it ran for."""
    run = event.get("workflow_run")
    if not isinstance(run, dict):
        raise ApiFailed("the event is not a workflow_run event")
    sha = run.get("head_sha")
    if not isinstance(sha, str) or not FULL_SHA.match(sha):
        raise ApiFailed("the event names no head commit")
    return run, sha


def _number(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ApiFailed(f"{what} is not a number")
    return value


def _time(value: object, what: str) -> datetime:
    moment = read_time(value)
    if moment is None:
        raise ApiFailed(f"{what} is not a time with its zone")
    return moment


def _full_name(repository: object) -> str | None:
    name = repository.get("full_name") if isinstance(repository, dict) else None
    return name.lower() if isinstance(name, str) else None


@dataclass(frozen=True)
class PullHead:
    """The pull request the status speaks for, as the API has it now."""

    number: int
    sha: str
    branch: object  # its head branch
    repository: str | None  # its head repository, lower case
    base: object  # its base branch

    def ran(self, run: Mapping[str, Any]) -> bool:
        """Whether `run` ran from this pull request's head branch and repository."""
        return run.get("head_branch") == self.branch and (
            _full_name(run.get("head_repository")) == self.repository
        )

    def shares(self, pull: Mapping[str, Any]) -> bool:
        """Whether another pull request `pull` has had this head, or comes from this
        head's branch: a run of either would look like this pull request's."""
        head = pull.get("head")
        if not isinstance(head, dict):
            return True
        repository = _full_name(head.get("repo"))
        same_branch = head.get("ref") == self.branch and repository in (self.repository, None)
        return head.get("sha") == self.sha or same_branch


def pull_head(pull: Mapping[str, Any]) -> PullHead:
    head = pull.get("head")
    if not isinstance(head, dict):
        raise ApiFailed("the pull request has no head")
    return PullHead(
        number=_number(pull.get("number"), "the pull request's number"),
        sha=str(head.get("sha")),
        branch=head.get("ref"),
        repository=_full_name(head.get("repo")),
        base=base_branch(pull),
    )


def caller_runs(api: Api, repository: str, caller: str, head: PullHead) -> list[Mapping[str, Any]]:
    """Every `pull_request` run of `caller` from the pull request's head branch at its head
    commit, whatever its status."""
    query = urllib.parse.urlencode({"head_sha": head.sha, "event": PULL_REQUEST_EVENT})
    runs = api.pages(f"/repos/{repository}/actions/runs", query, key="workflow_runs")
    return [
        run
        for run in runs
        if isinstance(run, dict)
        and isinstance(run.get("id"), int)
        and run.get("head_sha") == head.sha
        and run.get("event") == PULL_REQUEST_EVENT
        and workflow_path(run.get("path"), repository) == caller
        and head.ran(run)
    ]


def _newest_attempt(api: Api, repository: str, run: Mapping[str, Any]) -> None:
    """A re-run is judged in its newest attempt only: the event's attempt must be the run's
    latest, as the API has it now."""
    run_id = _number(run.get("id"), "the run's id")
    attempt = run.get("run_attempt", 1)
    current, _ = api.get(f"{api.base}/repos/{repository}/actions/runs/{run_id}")
    latest = current.get("run_attempt", 1) if isinstance(current, dict) else None
    if not isinstance(latest, int) or not isinstance(attempt, int):
        raise ApiFailed(f"the attempts of run {run_id} cannot be read")
    if latest > attempt:
        raise Superseded(
            f"attempt {attempt} of run {run_id} is not its newest (attempt {latest}): the "
            "newest attempt reports"
        )


def _newer_runs(runs: list[Mapping[str, Any]], run_id: int) -> None:
    newer = sorted(int(run["id"]) for run in runs if int(run["id"]) > run_id)
    if newer:
        raise Superseded(
            f"run {newer[-1]} of the gate's caller for this head is newer than run {run_id}: "
            "its verdict stands"
        )


def _describe(pull: Mapping[str, Any]) -> str:
    return f"#{pull.get('number')} ({pull.get('state')}, into {base_branch(pull)})"


def _other_pulls(api: Api, repository: str, head: PullHead) -> None:
    others = [
        pull
        for pull in pulls_of_commit(api, repository, head.sha)
        if pull.get("number") != head.number and head.shares(pull)
    ]
    if others:
        said = ", ".join(_describe(pull) for pull in others)
        raise ApiFailed(
            f"pull request {said} has had head {head.sha} or its branch too, so the run may "
            f"have been for it: close it and push a new commit to #{head.number}"
        )


def _base_unchanged(
    api: Api, repository: str, head: PullHead, run: Mapping[str, Any], run_id: int
) -> None:
    created = _time(run.get("created_at"), f"the creation time of run {run_id}")
    for entry in run.get("pull_requests") or []:
        base = entry.get("base") if isinstance(entry, dict) else None
        named = base.get("ref") if isinstance(base, dict) else head.base
        if isinstance(entry, dict) and entry.get("number") == head.number and named != head.base:
            raise ApiFailed(
                f"run {run_id} was for #{head.number} into {named}, not into {head.base}"
            )
    for event in api.pages(f"/repos/{repository}/issues/{head.number}/timeline"):
        if isinstance(event, dict) and event.get("event") == BASE_CHANGED:
            changed = _time(event.get("created_at"), "a base change's time")
            if changed >= created - BASE_CHANGE_MARGIN:
                raise ApiFailed(
                    f"the base of #{head.number} changed at {event.get('created_at')}, not "
                    f"before run {run_id} began ({run.get('created_at')}): it may have run "
                    f"another base's workflow; push a new commit for a run on {head.base}"
                )


def _judged_for_pull(
    api: Api, repository: str, run: Mapping[str, Any], caller: str, head: PullHead
) -> Mapping[str, Any]:
    """The run to judge for the pull request `head`, checked to be its own, on its base,
    and the newest; raises `Superseded` or `ApiFailed` with the reason."""
    runs = caller_runs(api, repository, caller, head)
    if run.get("event") == REVIEW_EVENT:
        if not runs:
            raise ApiFailed(
                f"no pull_request run of {caller} ran for #{head.number}'s head {head.sha}"
            )
        run = max(runs, key=lambda found: int(found["id"]))
        if run.get("status") != "completed":
            raise Superseded(
                f"run {run['id']}, the newest of {caller} for this head, is {run.get('status')}: "
                "it reports when it completes"
            )
    run_id = _number(run.get("id"), "the run's id")
    _newer_runs(runs, run_id)
    _newest_attempt(api, repository, run)
    if not head.ran(run):
        repository_name = _full_name(run.get("head_repository"))
        raise ApiFailed(
            f"run {run_id} ran from {repository_name}:{run.get('head_branch')}, not from "
            f"#{head.number}'s head {head.repository}:{head.branch}"
        )
    _other_pulls(api, repository, head)
    _base_unchanged(api, repository, head, run, run_id)
    return run


def superseding(
    api: Api,
    repository: str,
    caller: str,
    run_id: int,
    sha: str,
    attempt: int,
    number: int | None,
) -> str | None:
    """Why a verdict on run `run_id` (attempt `attempt`, at head `sha`, bound to pull request
    `number`) must not be posted now, checked again just before it is: a newer run of the
    caller for that head, or a newer attempt, started since it was named; None when none
    did."""
    try:
        if number is not None:
            head = pull_head(fetch_pull(api, repository, number))
            same_head = PullHead(number, sha, head.branch, head.repository, head.base)
            _newer_runs(caller_runs(api, repository, caller, same_head), run_id)
        _newest_attempt(api, repository, {"id": run_id, "run_attempt": attempt})
    except Superseded as why:
        return str(why)
    return None


def gate_run(
    api: Api,
    repository: str,
    event: Mapping[str, Any],
    caller: str,
    number: int | None,
    branches: frozenset[str] | None,
) -> JudgedRunJson:
    """The run whose reports are to be judged, as the document `waiver provenance` keeps;
    `number`, the pull request they are judged for (None: a merge group's run)."""
    run, sha = triggering_run(event)
    started_by = run.get("event")
    pull_request = None
    if number is not None and started_by != MERGE_GROUP:
        head = pull_head(fetch_pull(api, repository, number))
        if head.sha != sha:
            raise ApiFailed(f"#{number}'s head is now {head.sha}, not {sha}")
        if branches is not None and head.base not in branches:
            raise ApiFailed(f"#{number} is into {head.base}, not {', '.join(sorted(branches))}")
        run = _judged_for_pull(api, repository, run, caller, head)
        pull_request = number
    else:
        _newest_attempt(api, repository, run)
    return {
        "id": _number(run.get("id"), "the run's id"),
        "path": workflow_path(run.get("path"), repository),
        "head_sha": sha,
        "head_branch": run.get("head_branch") if isinstance(run.get("head_branch"), str) else None,
        "event": run.get("event"),
        "started_by": started_by,
        "attempt": run.get("run_attempt", 1),
        "pull_request": pull_request,
        "referenced_workflows": referenced_workflows(run),
    }
