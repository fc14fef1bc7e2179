"""Posting the waiver comment: find the pull request, make sure its head is still the commit
the report is about, and create the one comment or edit it in place.

The pull request is the event's (`pull_request.number`), or the first of a `workflow_run`
event's `pull_requests`, or, where that list is empty as it is for forks, the open pull
request whose head is the run's head commit. The comment is found again by its marker on a
comment the tool's own account wrote (every page is read); another user's comment is never
edited, whatever it holds. An unchanged comment is not rewritten.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from waiver.github.comment import MARKER
from waiver.github.rest import Api, ApiFailed, Opener, connect, read_event, urlopen

# The account GitHub Actions' own token posts as.
TOOL_ACCOUNT = "github-actions[bot]"


def _run_head(event: Mapping[str, Any]) -> tuple[int | None, str]:
    """The pull request the event names, if it names one, and the commit its run is about."""
    pull, run = event.get("pull_request"), event.get("workflow_run")
    if isinstance(pull, dict):
        head = pull.get("head")
        sha = head.get("sha") if isinstance(head, dict) else None
        number = pull.get("number")
    elif isinstance(run, dict):
        sha = run.get("head_sha")
        pulls = run.get("pull_requests")
        first = pulls[0] if isinstance(pulls, list) and pulls else None
        number = first.get("number") if isinstance(first, dict) else None
    else:
        raise ApiFailed("the event is neither a pull_request nor a workflow_run event")
    if not isinstance(sha, str):
        raise ApiFailed("the event names no head commit")
    return (number if isinstance(number, int) else None), sha


def _pull_of_commit(api: Api, repository: str, sha: str) -> int:
    """The open pull request whose head is `sha` (a fork's run names none itself)."""
    for pull in api.pages(f"/repos/{repository}/commits/{sha}/pulls"):
        if isinstance(pull, dict) and pull.get("state") == "open":
            head = pull.get("head")
            if isinstance(head, dict) and head.get("sha") == sha:
                number = pull.get("number")
                if isinstance(number, int):
                    return number
    raise ApiFailed(f"no open pull request has head {sha}")


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
    api: Api, repository: str, event: Mapping[str, Any]
) -> tuple[int, str, Mapping[str, Any]]:
    """The pull request the run is about: its number, the commit the run was about, and the
    pull request as the API has it now (its current head, base and author)."""
    number, sha = _run_head(event)
    if number is None:
        number = _pull_of_commit(api, repository, sha)
    pull, _ = api.get(f"{api.base}/repos/{repository}/pulls/{number}")
    if not isinstance(pull, dict):
        raise ApiFailed(f"GET pull request #{number} answered something that is not an object")
    return number, sha, pull


def current_head(pull: Mapping[str, Any]) -> object:
    head = pull.get("head")
    return head.get("sha") if isinstance(head, dict) else None


def post_comment(env: Mapping[str, str], text: str, opener: Opener = urlopen) -> str:
    """Create or edit the comment; what was done, in a line."""
    api, repository = connect(env, opener)
    number, sha, pull = run_pull(api, repository, read_event(env))
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
