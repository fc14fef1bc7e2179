"""Posting the waiver comment: find the pull request, make sure its head is still the commit
the report is about, and create the one comment or edit it in place.

The pull request is the event's (`pull_request.number`); for a `workflow_run` event it is
the open pull request whose head is the run's head commit and whose base branch is one of
`$WAIVER_BRANCHES` (comma-separated; unset, any), the lowest-numbered where several are,
whether or not the event names it (a fork's run names none; a same-repository run names
the one it was for, which may target a branch the change controls). The comment is found again by its marker on a
comment the tool's own account wrote (every page is read); another user's comment is never
edited, whatever it holds. An unchanged comment is not rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from waiver.github.comment_body import MARKER
from waiver.github.rest import Api, ApiFailed, Opener, connect, read_event, urlopen

# The account GitHub Actions' own token posts as.
TOOL_ACCOUNT = "github-actions[bot]"
# The branch a merge queue builds a group on: the base branch, the pull request it ends
# with, and the commit it builds on (the merge group's base).
QUEUE_BRANCH = re.compile(
    r"gh-readonly-queue/(?P<base>.+)/pr-(?P<number>[0-9]+)-(?P<sha>[0-9a-f]{40})\Z"
)
MERGE_GROUP = "merge_group"


def queued_pull(run: Mapping[str, Any]) -> tuple[str, int, str]:
    """A merge group's run: its base branch, the pull request it ends with, and its base
    commit, from the queue's branch."""
    found = QUEUE_BRANCH.match(str(run.get("head_branch")))
    if found is None:
        raise ApiFailed("the merge group's branch is not a merge queue's gh-readonly-queue/ branch")
    return found["base"], int(found["number"]), found["sha"]


def _run_head(event: Mapping[str, Any]) -> tuple[int | None, str]:
    """The pull request the event names (None for a workflow_run event, whose pull request
    is looked up), and the commit its run is about."""
    pull, run = event.get("pull_request"), event.get("workflow_run")
    if isinstance(pull, dict):
        head = pull.get("head")
        sha = head.get("sha") if isinstance(head, dict) else None
        number = pull.get("number")
    elif isinstance(run, dict):
        sha, number = run.get("head_sha"), None
    else:
        raise ApiFailed("the event is neither a pull_request nor a workflow_run event")
    if not isinstance(sha, str):
        raise ApiFailed("the event names no head commit")
    return (number if isinstance(number, int) else None), sha


def branches_of(env: Mapping[str, str]) -> frozenset[str] | None:
    """The base branches whose pull requests the status speaks for; None: any."""
    named = frozenset(filter(None, (b.strip() for b in env.get("WAIVER_BRANCHES", "").split(","))))
    return named or None


def pulls_of_commit(api: Api, repository: str, sha: str) -> list[Mapping[str, Any]]:
    """Every pull request the API associates with commit `sha`, open or closed, into any
    branch, lowest number first."""
    found = [
        pull
        for pull in api.pages(f"/repos/{repository}/commits/{sha}/pulls")
        if isinstance(pull, dict) and isinstance(pull.get("number"), int)
    ]
    return sorted(found, key=lambda pull: int(pull["number"]))


def open_pulls_of_commit(api: Api, repository: str, sha: str) -> list[Mapping[str, Any]]:
    """The open pull requests whose head is `sha`, lowest number first."""
    return [
        pull
        for pull in pulls_of_commit(api, repository, sha)
        if pull.get("state") == "open" and current_head(pull) == sha
    ]


def base_branch(pull: Mapping[str, Any]) -> object:
    base = pull.get("base")
    return base.get("ref") if isinstance(base, dict) else None


def _pull_of_commit(api: Api, repository: str, sha: str, branches: frozenset[str] | None) -> int:
    """The open pull request into one of `branches` whose head is `sha`."""
    for pull in open_pulls_of_commit(api, repository, sha):
        if branches is None or base_branch(pull) in branches:
            return int(pull["number"])
    into = "" if branches is None else f" into {', '.join(sorted(branches))}"
    raise ApiFailed(f"no open pull request{into} has head {sha}")


def _own_comment(api: Api, repository: str, number: int) -> dict[str, Any] | None:
    for comment in api.pages(f"/repos/{repository}/issues/{number}/comments"):
        if not isinstance(comment, dict):
            continue
        user = comment.get("user")
        login = user.get("login") if isinstance(user, dict) else None
        body = comment.get("body")
        if login == TOOL_ACCOUNT and isinstance(body, str) and body.startswith(MARKER):
            return comment
    return None


def run_pull(
    api: Api, repository: str, event: Mapping[str, Any], branches: frozenset[str] | None
) -> tuple[int, str, Mapping[str, Any]]:
    """The pull request the run is about: its number, the commit the run was about, and the
    pull request as the API has it now (its current head, base and author)."""
    number, sha = _run_head(event)
    if number is None:
        number = _pull_of_commit(api, repository, sha, branches)
    return number, sha, fetch_pull(api, repository, number)


def fetch_pull(api: Api, repository: str, number: int) -> dict[str, Any]:
    """The pull request as the API has it now."""
    pull, _ = api.get(f"{api.base}/repos/{repository}/pulls/{number}")
    if not isinstance(pull, dict):
        raise ApiFailed(f"GET pull request #{number} answered something that is not an object")
    return pull


def current_head(pull: Mapping[str, Any]) -> object:
    head = pull.get("head")
    return head.get("sha") if isinstance(head, dict) else None


def post_comment(env: Mapping[str, str], text: str, opener: Opener = urlopen) -> str:
    """Create or edit the comment; what was done, in a line."""
    api, repository = connect(env, opener)
    number, sha, pull = run_pull(api, repository, read_event(env), branches_of(env))
    current = current_head(pull)
    if current != sha:
        return f"pull request #{number} has moved on to {current}; nothing posted for {sha}"
    found = _own_comment(api, repository, number)
    if found is None:
        api.send("POST", f"{api.base}/repos/{repository}/issues/{number}/comments", {"body": text})
        return f"commented on pull request #{number}"
    if found.get("body") == text:
        return f"the comment on pull request #{number} is unchanged"
    api.send(
        "PATCH", f"{api.base}/repos/{repository}/issues/comments/{found['id']}", {"body": text}
    )
    return f"edited the comment on pull request #{number}"
