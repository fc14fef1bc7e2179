"""A local stand-in for the GitHub REST API endpoints waiver and its release workflow use,
on 127.0.0.1: a pull request's reviews and commits (paginated with `Link` headers, as the
API does), a collaborator's permission, a pull request and the pull requests of a commit
(open and closed, as the API lists them), a pull request's timeline, an issue's comments,
which it lets be created and edited, commit statuses, check runs (with the app that posted
them) and releases, which it records, the repository's workflow runs (in an object, as
`/actions/runs` answers them, filtered by `head_sha`, `event` and `status`, and one by
id), a run's artifacts and the repository's (each with its `created_at`, as the test
gives it), a run's jobs (`filter=all`: every attempt's, else the latest attempt's) and a
run attempt's (by each job's `run_attempt`; a job without one is every attempt's), in an
object too, and a GitHub App's installation and installation tokens, minted only for a JWT signed with
the app's key (checked with `openssl`). Tests set what it answers and read what it was
asked."""

from __future__ import annotations

import base64
import json
import subprocess
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

HEAD = "a" * 40  # the head commit a run was about
# The app GitHub Actions' own token posts as, and the slug of the team's verdict app.
ACTIONS_APP = "github-actions"
VERDICT_APP = "waiver-verdict"


@dataclass
class App:
    """A GitHub App installed on the repository: its client id, and the public half of its
    key, which a JWT must be signed with."""

    client_id: str
    public_key: Path
    slug: str = VERDICT_APP
    installation: int = 77
    tokens: dict[str, str] = field(default_factory=dict)  # token: the permissions asked, JSON


@dataclass
class Answers:
    reviews: list[dict[str, Any]] = field(default_factory=list)
    commits: list[dict[str, Any]] = field(default_factory=list)
    permissions: dict[str, str] = field(default_factory=dict)  # login: permission; else 404
    per_page: int = 2  # small, so that every test crosses pages
    status: int = 200  # answered to every request when not 200
    raw_body: bytes | None = None  # answered instead of JSON when set
    pull_body: bytes | None = None  # answered for the pull request itself, when set
    next_host: str | None = None  # a `next` link to another host, when set
    asked: list[tuple[str, str | None]] = field(default_factory=list)  # (path, Authorization)
    head: str = "a" * 40  # the pull request's current head
    base: str = "b" * 40  # its base
    author: str = "agent"
    commit_pulls: list[dict[str, Any]] = field(default_factory=list)
    comments: list[dict[str, Any]] = field(default_factory=list)
    writes: list[tuple[str, str]] = field(default_factory=list)  # (method, path)
    statuses: list[dict[str, Any]] = field(default_factory=list)  # the bodies posted
    releases: list[dict[str, Any]] = field(default_factory=list)  # the bodies posted
    runs: list[dict[str, Any]] = field(default_factory=list)  # the repository's workflow runs
    artifacts: list[dict[str, Any]] = field(default_factory=list)  # the repository's artifacts
    run_artifacts: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # by run id
    base_ref: str = "main"  # the pull request's base branch
    head_ref: str = "fix"  # the pull request's head branch
    head_repo: str | None = None  # its head repository; None: the repository itself
    timeline: list[dict[str, Any]] = field(default_factory=list)  # the pull request's events
    check_runs: list[dict[str, Any]] = field(default_factory=list)  # posted, with their `app`
    jobs: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # a run's, by run id
    app: App | None = None  # the installed GitHub App, if any


def comment(comment_id: int, login: str, body: str) -> dict[str, Any]:
    return {"id": comment_id, "user": {"login": login}, "body": body}


def review(
    review_id: int, login: str, state: str, commit: str, bot: bool = False
) -> dict[str, Any]:
    return {
        "id": review_id,
        "user": {"login": login, "type": "Bot" if bot else "User"},
        "state": state,
        "commit_id": commit,
        "submitted_at": f"2026-12-01T00:00:{review_id:02d}Z",
    }


def commit(author: str | None, committer: str | None) -> dict[str, Any]:
    def person(login: str | None) -> dict[str, str] | None:
        return None if login is None else {"login": login}

    return {"sha": "c" * 40, "author": person(author), "committer": person(committer)}


def _jobs(
    jobs: list[dict[str, Any]], segments: list[str], query: dict[str, list[str]]
) -> list[dict[str, Any]]:
    """A run's jobs as `/runs/{id}/jobs` lists them (every attempt's with `filter=all`, else
    the latest attempt's) or `/runs/{id}/attempts/{n}/jobs` does (attempt n's)."""
    if segments[-3] == "attempts":
        attempt = int(segments[-2])
        return [job for job in jobs if job.get("run_attempt", attempt) == attempt]
    if query.get("filter", ["latest"])[0] == "all":
        return jobs
    latest = max((job.get("run_attempt", 1) for job in jobs), default=1)
    return [job for job in jobs if job.get("run_attempt", latest) == latest]


class _Handler(BaseHTTPRequestHandler):
    answers: Answers

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet

    def _send(self, status: int, body: bytes, link: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if link:
            self.send_header("Link", link)
        self.end_headers()
        self.wfile.write(body)

    def _write(self) -> None:
        answers = self.answers
        parts = urllib.parse.urlsplit(self.path)
        answers.writes.append((self.command, parts.path))
        if answers.status != 200:
            self._send(answers.status, b'{"message": "no"}')
            return
        length = int(self.headers.get("Content-Length", "0"))
        posted = json.loads(self.rfile.read(length) or b"{}")
        segments = parts.path.strip("/").split("/")
        if segments[-1] == "access_tokens":
            self._mint(posted)
            return
        if segments[-1] == "check-runs":
            token = self._token()
            app = answers.app
            posted["app"] = app.slug if app is not None and token in app.tokens else ACTIONS_APP
            answers.check_runs.append(posted)
            self._send(201, json.dumps({"id": len(answers.check_runs), **posted}).encode())
            return
        if segments[-2] == "statuses" or segments[-1] == "releases":
            (answers.statuses if segments[-2] == "statuses" else answers.releases).append(posted)
            self._send(201, json.dumps(posted).encode())
            return
        body = posted["body"]
        if self.command == "POST":
            made = comment(1000 + len(answers.comments), "github-actions[bot]", body)
            answers.comments.append(made)
            self._send(201, json.dumps(made).encode())
            return
        found = next(c for c in answers.comments if c["id"] == int(segments[-1]))
        found["body"] = body
        self._send(200, json.dumps(found).encode())

    do_POST = do_PATCH = _write

    def _token(self) -> str:
        return (self.headers.get("Authorization") or "").removeprefix("Bearer ")

    def _signed_by_app(self) -> bool:
        """Whether the request carries a live JWT signed with the app's key, as GitHub
        asks of an app that looks up its installation or mints a token."""
        app = self.answers.app
        parts = self._token().split(".")
        if app is None or len(parts) != 3:
            return False

        def decoded(part: str) -> bytes:
            return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))

        with tempfile.TemporaryDirectory() as folder:
            signed, signature = Path(folder, "signed"), Path(folder, "signature")
            signed.write_bytes(f"{parts[0]}.{parts[1]}".encode())
            signature.write_bytes(decoded(parts[2]))
            verified = subprocess.run(
                ["openssl", "dgst", "-sha256", "-verify", str(app.public_key),
                 "-signature", str(signature), str(signed)],
                capture_output=True, check=False,
            ).returncode == 0  # fmt: skip
        claims = json.loads(decoded(parts[1]))
        return verified and claims.get("iss") == app.client_id and claims["exp"] > time.time()

    def _mint(self, posted: dict[str, Any]) -> None:
        app = self.answers.app
        if app is None or not self._signed_by_app():
            self._send(401, b'{"message": "A JSON web token could not be decoded"}')
            return
        token = f"ghs_app_{len(app.tokens)}_{int(time.time())}"
        app.tokens[token] = json.dumps(posted.get("permissions"), sort_keys=True)
        body = {"token": token, "expires_at": "2099-01-01T00:00:00Z",
                "permissions": posted.get("permissions") or {}}  # fmt: skip
        self._send(201, json.dumps(body).encode())

    def do_GET(self) -> None:
        answers = self.answers
        parts = urllib.parse.urlsplit(self.path)
        answers.asked.append((parts.path, self.headers.get("Authorization")))
        if answers.status != 200:
            self._send(answers.status, b'{"message": "no"}')
            return
        if answers.raw_body is not None:
            self._send(200, answers.raw_body)
            return
        segments = parts.path.strip("/").split("/")
        query = urllib.parse.parse_qs(parts.query)
        if segments[-1] == "installation":
            if answers.app is None or not self._signed_by_app():
                self._send(401, b'{"message": "A JSON web token could not be decoded"}')
            else:
                body = {"id": answers.app.installation, "app_slug": answers.app.slug}
                self._send(200, json.dumps(body).encode())
            return
        if segments[-2] == "pulls" and segments[-1].isdigit() and answers.pull_body is not None:
            self._send(200, answers.pull_body)
            return
        if segments[-2] == "pulls" and segments[-1].isdigit():
            head_repo = answers.head_repo or f"{segments[1]}/{segments[2]}"
            pull = {
                "number": int(segments[-1]),
                "state": "open",
                "user": {"login": answers.author},
                "head": {"sha": answers.head, "ref": answers.head_ref,
                         "repo": {"full_name": head_repo}},
                "base": {"sha": answers.base, "ref": answers.base_ref},
            }  # fmt: skip
            self._send(200, json.dumps(pull).encode())
            return
        if segments[-2] == "runs" and segments[-1].isdigit():
            found = [run for run in answers.runs if run.get("id") == int(segments[-1])]
            if found:
                self._send(200, json.dumps(found[0]).encode())
            else:
                self._send(404, b'{"message": "Not Found"}')
            return
        if segments[-1] == "permission":
            permission = answers.permissions.get(segments[-2])
            if permission is None:
                self._send(404, b'{"message": "Not Found"}')
            else:
                body = {"permission": permission, "role_name": permission}
                self._send(200, json.dumps(body).encode())
            return
        lists = {
            "reviews": answers.reviews,
            "commits": answers.commits,
            "comments": answers.comments,
            "pulls": answers.commit_pulls,
            "runs": [
                run for run in answers.runs
                if all(str(run.get(key)) == query[key][0]
                       for key in ("head_sha", "event", "status") if key in query)
            ],
            "artifacts": answers.artifacts,
            "timeline": answers.timeline,
        }  # fmt: skip
        items = lists.get(segments[-1])
        if segments[-1] == "artifacts" and segments[-3] == "runs":
            items = answers.run_artifacts.get(int(segments[-2]), [])
        if segments[-1] == "jobs":
            items = _jobs(answers.jobs.get(int(segments[-2 if segments[-3] == "runs" else -4]), []),
                          segments, query)  # fmt: skip
        if items is None:
            self._send(404, b'{"message": "Not Found"}')
            return
        page = int(query.get("page", ["1"])[0])
        size = answers.per_page
        chunk = items[(page - 1) * size : page * size]
        link = None
        if page * size < len(items):
            host = answers.next_host or f"127.0.0.1:{self.server.server_address[1]}"
            kept = {
                key: values[0] for key, values in query.items() if key not in ("page", "per_page")
            }
            more = urllib.parse.urlencode({**kept, "per_page": 100, "page": page + 1})
            link = f'<http://{host}{parts.path}?{more}>; rel="next"'
        # The runs and artifacts endpoints wrap their page in an object, as GitHub's do.
        wrapped = {"runs": "workflow_runs", "artifacts": "artifacts", "jobs": "jobs"}.get(
            segments[-1]
        )
        body = chunk if wrapped is None else {"total_count": len(items), wrapped: chunk}
        self._send(200, json.dumps(body).encode(), link)


@contextmanager
def github_api(answers: Answers) -> Iterator[str]:
    """The stand-in's base URL, serving `answers` while the block runs."""
    handler = type("Handler", (_Handler,), {"answers": answers})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    # shutdown() waits for the serving loop's next poll: at the default half second
    # that wait, not the test, was most of the wall time of every test using it.
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def workflow_run_event(tmp_path: Path, head: str = HEAD) -> Path:
    """A fork's run, as `workflow_run` tells of it: no pull request named."""
    path = tmp_path / "event.json"
    path.write_text(json.dumps({"workflow_run": {"head_sha": head, "pull_requests": []}}))
    return path


def environment(tmp_path: Path, api: str) -> dict[str, str]:
    return {
        "GITHUB_API_URL": api,
        "GITHUB_TOKEN": "secret-token",
        "GITHUB_EVENT_PATH": str(workflow_run_event(tmp_path)),
        "GITHUB_REPOSITORY": "owner/repo",
    }


def use_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, api: str) -> None:
    """The process's environment as a fork's workflow_run job at the stand-in has it."""
    for key, value in environment(tmp_path, api).items():
        monkeypatch.setenv(key, value)


def fork_answers(comments: list[dict[str, Any]] | None = None) -> Answers:
    return Answers(
        commit_pulls=[{"number": 7, "state": "open", "head": {"sha": HEAD}}],
        comments=comments or [],
    )
