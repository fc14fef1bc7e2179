"""`waiver provenance` run on a `workflow_run` event against the REST API stand-in, and the
runs and artifacts the stand-in answers with: what the run lookups of the report workflow
and of the history writer are tested with."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from helpers.github_api import HEAD, Answers, environment, github_api
from helpers.support import read_github_output
from waiver.cli import main

CALLER = ".github/workflows/waiver.yml"
WRITER = ".github/workflows/waiver-history.yml"
PIN = "1" * 40
GATE = f"waiver/waiver/.github/workflows/waiver-gate.yml@{PIN}"
REPORT_WORKFLOW_REF = "owner/repo/.github/workflows/report.yml@refs/heads/main"


CREATED = "2026-12-01T10:00:00Z"


def gate_run(run_id: int, event: str = "pull_request", **more: Any) -> dict[str, Any]:
    """A completed run of the gate's caller from pull request #7's head branch `fix` at
    HEAD, as the API describes it."""
    return {"id": run_id, "path": CALLER, "head_sha": HEAD, "event": event,
            "status": "completed", "run_attempt": 1, "created_at": CREATED,
            "head_branch": "fix", "head_repository": {"full_name": "owner/repo"},
            "pull_requests": [], "referenced_workflows": [{"path": GATE, "sha": PIN}],
            **more}  # fmt: skip


def report_outputs(run_id: str, **more: str) -> dict[str, str]:
    """The step outputs of `waiver provenance` in the report workflow for run `run_id`
    ('' for none) with no artifacts, and `more`."""
    kinds = ("properties", "replay", "base", "red-green", "change-tests")
    outputs = {"run-id": run_id, "superseded": "", "change-tests-ran": ""}
    return outputs | {f"{k}-artifacts": "" for k in kinds} | more


def commit_pull(
    number: int, branch: str = "main", state: str = "open", ref: str = "fix", sha: str = HEAD
) -> dict[str, Any]:
    """A pull request as `GET /commits/{sha}/pulls` lists it."""
    return {"number": number, "state": state, "base": {"ref": branch},
            "head": {"sha": sha, "ref": ref, "repo": {"full_name": "owner/repo"}}}  # fmt: skip


def writer_run(run_id: int, **more: Any) -> dict[str, Any]:
    """A run of the history writer's caller on the default branch."""
    return {"id": run_id, "path": WRITER, "event": "workflow_run", "head_branch": "main", **more}


def artifact(run_id: int, branch: str = "main", expired: bool = False) -> dict[str, Any]:
    """A `waiver-history` artifact that run `run_id` uploaded on `branch`."""
    return {"name": "waiver-history", "expired": expired,
            "workflow_run": {"id": run_id, "head_branch": branch}}  # fmt: skip


def run_provenance(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    answers: Answers,
    triggering: dict[str, Any],
    flags: Sequence[str],
    *,
    workflow_ref: str = REPORT_WORKFLOW_REF,
    default_branch: str | None = None,
    branches: str | None = "main",
) -> tuple[dict[str, Any], dict[str, str]]:
    """`waiver provenance --caller CALLER ... FLAGS` in a job of `workflow_ref` that
    `triggering` started, with WAIVER_BRANCHES set to `branches`: the file it wrote and its
    step outputs."""
    output = tmp_path / "output"
    output.touch()
    out = tmp_path / "provenance.json"
    event: dict[str, Any] = {"workflow_run": triggering}
    if default_branch is not None:
        event["repository"] = {"default_branch": default_branch}
    with github_api(answers) as api:
        env = environment(tmp_path, api)
        Path(env["GITHUB_EVENT_PATH"]).write_text(json.dumps(event))
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.setenv("GITHUB_OUTPUT", str(output))
        if branches is not None:
            monkeypatch.setenv("WAIVER_BRANCHES", branches)
        monkeypatch.setenv("GITHUB_WORKFLOW_REF", workflow_ref)
        code = main(["provenance", f"--out={out}", f"--caller={CALLER}",
                     "--waiver-repository=waiver/waiver", f"--waiver-ref={PIN}", *flags])  # fmt: skip
    assert code == 0
    return json.loads(out.read_text()), read_github_output(output.read_text())
