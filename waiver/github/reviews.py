"""A pull request's reviews, commits and reviewers' permissions, read from GitHub's REST API.

The pull request comes from the event (`$GITHUB_EVENT_PATH`: a `pull_request` or
`pull_request_review` event), the API from `$GITHUB_API_URL`, the token from
`$GITHUB_TOKEN`; all from the environment mapping passed in. Lists follow the `Link`
header's `next` page, but only on the API's own origin, so the token goes nowhere else.
Every failure becomes `ReviewsUnavailable` with words of this module (never the server's,
never the token), and the result is the document `waiver.read.approvals` reads.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

from waiver.approval import DECIDING_STATES
from waiver.errors import InputError
from waiver.read.files import read_small
from waiver.read.jsonfile import parse_json

DEFAULT_API = "https://api.github.com"
MAX_BODY_BYTES = 8 << 20
MAX_PAGES = 30
# The commits list stops at 250: past that, some author or committer cannot be seen.
MAX_COMMITS = 250
TIMEOUT_SECONDS = 20
NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')
REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+\Z")
Opener = Callable[[urllib.request.Request], Any]


class ReviewsUnavailable(Exception):
    """The reviews could not be read; the message says why."""


class HttpStatus(ReviewsUnavailable):
    """The API answered with an error status."""

    def __init__(self, path: str, status: int) -> None:
        super().__init__(f"GET {path} answered HTTP {status}")
        self.status = status


def _urlopen(request: urllib.request.Request) -> Any:
    return urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS)  # noqa: S310 (https API)


class Api:
    def __init__(self, base: str, token: str, opener: Opener = _urlopen) -> None:
        parts = urllib.parse.urlsplit(base)
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise ReviewsUnavailable("GITHUB_API_URL is not an http(s) URL")
        self.base = base.rstrip("/")
        self.origin = (parts.scheme, parts.netloc)
        self.token = token
        self.opener = opener

    def get(self, url: str) -> tuple[object, str | None]:
        """One page: the parsed body, and the next page's URL when there is one."""
        parts = urllib.parse.urlsplit(url)
        if (parts.scheme, parts.netloc) != self.origin:
            raise ReviewsUnavailable("a next page points away from GITHUB_API_URL")
        request = urllib.request.Request(url, headers={  # noqa: S310
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {self.token}",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "waiver",
        })  # fmt: skip
        path = parts.path
        try:
            with self.opener(request) as response:
                body = response.read(MAX_BODY_BYTES + 1)
                link = response.headers.get("Link")
        except urllib.error.HTTPError as error:
            raise HttpStatus(path, error.code) from None
        except (urllib.error.URLError, OSError, ValueError) as error:
            raise ReviewsUnavailable(f"GET {path} failed: {type(error).__name__}") from None
        if len(body) > MAX_BODY_BYTES:
            raise ReviewsUnavailable(f"GET {path} answered more than {MAX_BODY_BYTES} bytes")
        try:
            document = parse_json(body, path)
        except InputError:
            raise ReviewsUnavailable(f"GET {path} answered something that is not JSON") from None
        found = NEXT.search(link or "")
        return document, None if found is None else found[1]

    def pages(self, path: str) -> list[object]:
        """Every item of a list endpoint, page after page."""
        url: str | None = f"{self.base}{path}?per_page=100"
        items: list[object] = []
        for _ in range(MAX_PAGES):
            if url is None:
                return items
            page, url = self.get(url)
            if not isinstance(page, list):
                raise ReviewsUnavailable(f"GET {path} answered something that is not a list")
            items += page
        raise ReviewsUnavailable(f"GET {path} has more than {MAX_PAGES} pages")


def _event(env: Mapping[str, str]) -> Mapping[str, Any]:
    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        raise ReviewsUnavailable("GITHUB_EVENT_PATH is not set: no pull request event")
    try:
        event = json.loads(read_small(path, MAX_BODY_BYTES, path))
    except (InputError, ValueError):
        raise ReviewsUnavailable("the event file cannot be read as JSON") from None
    pull = event.get("pull_request") if isinstance(event, dict) else None
    if not isinstance(pull, dict) or not isinstance(pull.get("number"), int):
        raise ReviewsUnavailable("the event is not of a pull request")
    return pull


def _latest_approvers(reviews: list[object]) -> list[str]:
    """The logins whose latest deciding review approves: the only ones whose permission
    matters."""
    latest: dict[str, str] = {}
    for review in reviews:
        if isinstance(review, dict) and review.get("state") in DECIDING_STATES:
            user = review.get("user")
            login = user.get("login") if isinstance(user, dict) else None
            if isinstance(login, str):
                latest[login] = str(review["state"])
    return sorted(login for login, state in latest.items() if state == "APPROVED")


def fetch_reviews(env: Mapping[str, str], opener: Opener = _urlopen) -> dict[str, object]:
    """The document `waiver.read.approvals` reads, fetched from the API."""
    token = env.get("GITHUB_TOKEN")
    if not token:
        raise ReviewsUnavailable("GITHUB_TOKEN is not set")
    repository = env.get("GITHUB_REPOSITORY", "")
    if not REPOSITORY.match(repository):
        raise ReviewsUnavailable("GITHUB_REPOSITORY is not owner/name")
    pull = _event(env)
    api = Api(env.get("GITHUB_API_URL") or DEFAULT_API, token, opener)
    base = f"/repos/{repository}/pulls/{pull['number']}"
    reviews = api.pages(f"{base}/reviews")
    commits = api.pages(f"{base}/commits")
    if len(commits) >= MAX_COMMITS:
        raise ReviewsUnavailable(f"the pull request has {MAX_COMMITS} commits or more")
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
        },
        "reviews": reviews,
        "commits": commits,
        "permissions": permissions,
        "error": None,
    }
