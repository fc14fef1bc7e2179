"""GitHub's REST API at `$GITHUB_API_URL`, read and written with the workflow's token.

Lists follow the `Link` header's `next` page, but only on the API's own origin, so the
token goes nowhere else. Every failure becomes `ApiFailed` with words of this module
(never the server's, never the token).
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from waiver.errors import InputError
from waiver.read.untrusted.files import read_small
from waiver.read.untrusted.jsonfile import parse_json

DEFAULT_API = "https://api.github.com"
MAX_BODY_BYTES = 8 << 20
MAX_PAGES = 30
TIMEOUT_SECONDS = 20
NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')
# `$GITHUB_REPOSITORY` as it goes into an API path: owner/name, no character that would
# change the path.
REPOSITORY_PATH = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+\Z")
FULL_SHA = re.compile(r"[0-9a-f]{40}\Z")
Opener = Callable[[urllib.request.Request], Any]


class ApiFailed(Exception):
    """A call to the API failed; the message says why."""


class HttpStatus(ApiFailed):
    """The API answered with an error status."""

    def __init__(self, method: str, path: str, status: int) -> None:
        super().__init__(f"{method} {path} answered HTTP {status}")
        self.status = status


def urlopen(request: urllib.request.Request) -> Any:
    return urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS)  # noqa: S310 (https API)


class Api:
    def __init__(self, base: str, token: str, opener: Opener = urlopen) -> None:
        parts = urllib.parse.urlsplit(base)
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise ApiFailed("GITHUB_API_URL is not an http(s) URL")
        self.base = base.rstrip("/")
        self.origin = (parts.scheme, parts.netloc)
        self.token = token
        self.opener = opener

    def get(self, url: str) -> tuple[object, str | None]:
        """One page: the parsed body, and the next page's URL when there is one."""
        return self.send("GET", url)

    def send(self, method: str, url: str, body: Any = None) -> tuple[object, str | None]:
        """One call: the parsed answer, and the next page's URL when there is one."""
        parts = urllib.parse.urlsplit(url)
        if (parts.scheme, parts.netloc) != self.origin:
            raise ApiFailed("a URL points away from GITHUB_API_URL")
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(url, data=data, method=method, headers={  # noqa: S310
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {self.token}",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "waiver",
            **({"Content-Type": "application/json"} if data is not None else {}),
        })  # fmt: skip
        path = parts.path
        try:
            with self.opener(request) as response:
                answer = response.read(MAX_BODY_BYTES + 1)
                link = response.headers.get("Link")
        except urllib.error.HTTPError as error:
            raise HttpStatus(method, path, error.code) from None
        except (urllib.error.URLError, OSError, ValueError) as error:
            raise ApiFailed(f"{method} {path} failed: {type(error).__name__}") from None
        if len(answer) > MAX_BODY_BYTES:
            raise ApiFailed(f"{method} {path} answered more than {MAX_BODY_BYTES} bytes")
        try:
            document = parse_json(answer, path)
        except InputError:
            raise ApiFailed(f"{method} {path} answered something that is not JSON") from None
        found = NEXT.search(link or "")
        return document, None if found is None else found[1]

    def pages(self, path: str, query: str = "", key: str | None = None) -> list[object]:
        """Every item of a list endpoint, page after page. `query` is more of the query
        string; `key` names the list in an endpoint that wraps it in an object (as
        `/actions/runs` does in `workflow_runs`)."""
        url: str | None = f"{self.base}{path}?{query}{'&' if query else ''}per_page=100"
        items: list[object] = []
        for _ in range(MAX_PAGES):
            if url is None:
                return items
            page, url = self.get(url)
            if key is not None:
                page = page.get(key) if isinstance(page, dict) else None
            if not isinstance(page, list):
                raise ApiFailed(f"GET {path} answered something that is not a list")
            items += page
        raise ApiFailed(f"GET {path} has more than {MAX_PAGES} pages")


def read_time(value: object) -> datetime | None:
    """A time as the API writes it (ISO 8601, `Z` or an offset); None for no string, a
    string that is no time, or a time without its zone."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def connect(env: Mapping[str, str], opener: Opener = urlopen) -> tuple[Api, str]:
    """The API of `$GITHUB_API_URL` with `$GITHUB_TOKEN`, and `$GITHUB_REPOSITORY`."""
    token = env.get("GITHUB_TOKEN")
    if not token:
        raise ApiFailed("GITHUB_TOKEN is not set")
    repository = env.get("GITHUB_REPOSITORY", "")
    if not REPOSITORY_PATH.match(repository):
        raise ApiFailed("GITHUB_REPOSITORY is not owner/name")
    return Api(env.get("GITHUB_API_URL") or DEFAULT_API, token, opener), repository


def run_url(env: Mapping[str, str]) -> str | None:
    """The link to this run, from the runner's own variables."""
    server, repository, run = (
        env.get("GITHUB_SERVER_URL"), env.get("GITHUB_REPOSITORY"), env.get("GITHUB_RUN_ID")
    )  # fmt: skip
    if not (server and repository and run and run.isdigit()):
        return None
    return f"{server.rstrip('/')}/{repository}/actions/runs/{run}"


def read_event(env: Mapping[str, str]) -> dict[str, Any]:
    """The event that started the run, from `$GITHUB_EVENT_PATH` in the mapping given."""
    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        raise ApiFailed("GITHUB_EVENT_PATH is not set: no event to read")
    try:
        event = json.loads(read_small(path, MAX_BODY_BYTES, path))
    except (InputError, ValueError):
        raise ApiFailed("the event file cannot be read as JSON") from None
    if not isinstance(event, dict):
        raise ApiFailed("the event is not a JSON object")
    return event
