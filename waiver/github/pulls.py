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
from waiver.github.rest import DEFAULT_API, Api, ApiFailed, Opener, read_event, urlopen
from waiver.github.reviews import REPOSITORY

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


def post_comment(env: Mapping[str, str], text: str, opener: Opener = urlopen) -> str:
    """Create or edit the comment; what was done, in a line."""
    token = env.get("GITHUB_TOKEN")
    if not token:
        raise ApiFailed("GITHUB_TOKEN is not set")
    repository = env.get("GITHUB_REPOSITORY", "")
    if not REPOSITORY.match(repository):
        raise ApiFailed("GITHUB_REPOSITORY is not owner/name")
    number, sha = _run_head(read_event(env))
    api = Api(env.get("GITHUB_API_URL") or DEFAULT_API, token, opener)
    if number is None:
        number = _pull_of_commit(api, repository, sha)
    pull, _ = api.get(f"{api.base}/repos/{repository}/pulls/{number}")
    head = pull.get("head") if isinstance(pull, dict) else None
    current = head.get("sha") if isinstance(head, dict) else None
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
