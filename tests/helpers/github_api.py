"""A local stand-in for the GitHub REST API endpoints waiver and its release workflow use,
on 127.0.0.1: a pull request's reviews and commits (paginated with `Link` headers, as the
API does), a collaborator's permission, a pull request and the pull requests of a commit,
an issue's comments, which it lets be created and edited, commit statuses and releases,
which it records, the repository's workflow runs (in an object, as `/actions/runs` answers
them, and one by id) and its artifacts (in an object too). Tests set what it answers and
read what it was asked."""

from __future__ import annotations

import json
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

HEAD = "a" * 40  # the head commit a run was about


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
    base_ref: str = "main"  # the pull request's base branch


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
        posted = json.loads(self.rfile.read(length))
        segments = parts.path.strip("/").split("/")
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
        if segments[-2] == "pulls" and segments[-1].isdigit() and answers.pull_body is not None:
            self._send(200, answers.pull_body)
            return
        if segments[-2] == "pulls" and segments[-1].isdigit():
            pull = {
                "number": int(segments[-1]),
                "user": {"login": answers.author},
                "head": {"sha": answers.head},
                "base": {"sha": answers.base, "ref": answers.base_ref},
            }
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
            "runs": answers.runs,
            "artifacts": answers.artifacts,
        }
        items = lists.get(segments[-1])
        if items is None:
            self._send(404, b'{"message": "Not Found"}')
            return
        page = int(urllib.parse.parse_qs(parts.query).get("page", ["1"])[0])
        size = answers.per_page
        chunk = items[(page - 1) * size : page * size]
        link = None
        if page * size < len(items):
            host = answers.next_host or f"127.0.0.1:{self.server.server_address[1]}"
            link = f'<http://{host}{parts.path}?per_page=100&page={page + 1}>; rel="next"'
        # The runs and artifacts endpoints wrap their page in an object, as GitHub's do.
        wrapped = {"runs": "workflow_runs", "artifacts": "artifacts"}.get(segments[-1])
        body = chunk if wrapped is None else {"total_count": len(items), wrapped: chunk}
        self._send(200, json.dumps(body).encode(), link)


@contextmanager
def github_api(answers: Answers) -> Iterator[str]:
    """The stand-in's base URL, serving `answers` while the block runs."""
    handler = type("Handler", (_Handler,), {"answers": answers})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
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
