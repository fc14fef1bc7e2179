"""A pull request's reviews, commits and reviewers' permissions, read from GitHub's REST API.

The pull request comes from the event (`$GITHUB_EVENT_PATH`): a `pull_request` or
`pull_request_review` event names it; for a `workflow_run` event it is the pull request
the run was about, as the API has it now (`waiver.github.pulls`), and one whose head moved
on since is no pull request to judge; for a merge group's run it is the pull request the
queue's branch names, with the group's base commit as its base. The API comes from `$GITHUB_API_URL`, the token from
`$GITHUB_TOKEN`; all from the environment mapping passed in (`waiver.github.rest`). The
result is the document `waiver.read.evidence.review_data` reads.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any

from waiver.decide.approval import latest_reviews
from waiver.github.pulls import (
    MERGE_GROUP,
    branches_of,
    current_head,
    fetch_pull,
    queued_pull,
    run_pull,
)
from waiver.github.rest import Api, ApiFailed, HttpStatus, Opener, connect, read_event, urlopen
from waiver.read.evidence.review_data import Unusable, parse_reviews
from waiver.write.files.approvals_file import ApprovalsFileJson

# The commits list stops at 250: past that, some author or committer cannot be seen.
MAX_COMMITS = 250


def _queued(api: Api, repository: str, run: Mapping[str, Any], env: Mapping[str, str]) -> Any:
    """A merge group's last pull request, with the group's base commit as its base: the
    reviews are of its head, which the group's commit merges."""
    branch, number, base = queued_pull(run)
    branches = branches_of(env)
    if branches is not None and branch not in branches:
        raise ApiFailed(f"the merge group is for {branch}, not {', '.join(sorted(branches))}")
    return {**fetch_pull(api, repository, number), "base": {"sha": base, "ref": branch}}


def _pull_request(
    api: Api, repository: str, env: Mapping[str, str]
) -> tuple[Mapping[str, Any], str]:
    """The pull request whose reviews count, and the commit the run was about."""
    event = read_event(env)
    pull, run = event.get("pull_request"), event.get("workflow_run")
    if isinstance(pull, dict) and isinstance(pull.get("number"), int):
        return pull, str(current_head(pull))
    if not isinstance(run, dict):
        raise ApiFailed("the event is not of a pull request")
    if run.get("event") == MERGE_GROUP:
        return _queued(api, repository, run, env), str(run.get("head_sha"))
    number, sha, pull = run_pull(api, repository, event, branches_of(env))
    if current_head(pull) != sha:
        raise ApiFailed(f"pull request #{number} has moved on from {sha}, which the run was about")
    return pull, sha


def _latest_approvers(reviews: list[object]) -> list[str]:
    """The logins whose latest deciding review approves, judged as `count_approvals` will
    judge them: the only ones whose permission matters."""
    try:
        parsed = parse_reviews(reviews)
    except Unusable as error:
        raise ApiFailed(f"a review has the wrong shape: {error}") from None
    return [review.login for review in latest_reviews(parsed) if review.state == "APPROVED"]


def fetch_reviews(env: Mapping[str, str], opener: Opener = urlopen) -> ApprovalsFileJson:
    """The document `waiver.read.evidence.review_data` reads, fetched from the API."""
    api, repository = connect(env, opener)
    pull, run_head = _pull_request(api, repository, env)
    base = f"/repos/{repository}/pulls/{pull['number']}"
    reviews = api.pages(f"{base}/reviews")
    commits = api.pages(f"{base}/commits")
    if len(commits) >= MAX_COMMITS:
        raise ApiFailed(f"the pull request has {MAX_COMMITS} commits or more")
    permissions: dict[str, object] = {}
    for login in _latest_approvers(reviews):
        quoted = urllib.parse.quote(login, safe="")
        try:
            permissions[login], _ = api.get(
                f"{api.base}/repos/{repository}/collaborators/{quoted}/permission"
            )
        except HttpStatus as error:
            if error.status != 404:  # 404: not a collaborator, so no permission at all
                raise
            permissions[login] = {"permission": "none"}
    return {
        "pull_request": {
            "number": pull["number"],
            "user": pull.get("user"),
            "head": pull.get("head"),
            "base": pull.get("base"),
        },
        "reviews": reviews,
        "commits": commits,
        "permissions": permissions,
        "run_head": run_head,
        "error": None,
    }
