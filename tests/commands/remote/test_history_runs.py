"""`waiver provenance --default-branch` against the REST API stand-in: which gate run the
history writer may record (a push or schedule run of the caller on the default branch),
and which of its own earlier runs holds the history it continues."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers.github_api import HEAD, Answers
from helpers.provenance_support import (
    CALLER,
    GATE,
    PIN,
    WRITER,
    artifact,
    run_provenance,
    writer_run,
)


def gate_run(event: str = "push", **more: Any) -> dict[str, Any]:
    return {"id": 42, "path": CALLER, "head_sha": HEAD, "event": event, "head_branch": "main",
            "pull_requests": [], "referenced_workflows": [{"path": GATE, "sha": PIN}], **more}  # fmt: skip


def provenance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answers: Answers, triggering: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, str]]:
    """`waiver provenance --default-branch` on a workflow_run event: its file and outputs."""
    return run_provenance(
        tmp_path, monkeypatch, answers, triggering, ["--default-branch"],
        workflow_ref=f"owner/repo/{WRITER}@refs/heads/main", default_branch="main", branches=None,
    )  # fmt: skip


@pytest.mark.parametrize("event", ["push", "schedule"])
def test_a_default_branch_run_is_recorded_and_the_writer_s_latest_history_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, event: str
) -> None:
    # Newest first, as GitHub lists them: a pull request's upload of the same name, one on
    # another branch and an expired one are passed over.
    answers = Answers(
        artifacts=[artifact(90), artifact(80, branch="fix"), artifact(70, expired=True),
                   artifact(60), artifact(50)],
        runs=[writer_run(90, event="pull_request"), writer_run(60), writer_run(50)],
        per_page=100,
    )  # fmt: skip
    document, outputs = provenance(tmp_path, monkeypatch, answers, gate_run(event))

    assert document["error"] is None
    assert document["run"] == {"id": 42, "path": CALLER, "head_sha": HEAD, "head_branch": "main",
                               "event": event, "started_by": event, "attempt": 1,
                               "pull_request": None,
                               "referenced_workflows": [{"path": GATE, "sha": PIN}]}  # fmt: skip
    assert outputs == {"run-id": "42", "history-run-id": "60"}


@pytest.mark.parametrize(
    ("run", "error"),
    [
        (gate_run("pull_request"),
         "run 42 was started by pull_request: only push and schedule runs of the default "
         "branch are recorded"),
        (gate_run(head_branch="fix"), "run 42 ran on fix, not on main"),
        (gate_run(path=".github/workflows/evil.yml"),
         f"run 42 ran .github/workflows/evil.yml, not the gate's caller {CALLER}"),
        (gate_run(referenced_workflows=[{"path": GATE, "sha": "2" * 40}]),
         f"run 42: it calls {GATE} at {'2' * 40}, not at {PIN}"),
        (gate_run(referenced_workflows=[]),
         f"run 42: it calls no reusable workflow, not waiver/waiver's waiver-gate.yml at {PIN}"),
        (gate_run(referenced_workflows=[{"path": GATE, "sha": PIN},
                                        {"path": f"owner/repo/{WRITER}@main", "sha": "3" * 40}]),
         f"run 42: it calls owner/repo/{WRITER}@main, which is not waiver/waiver's "
         "waiver-gate.yml"),
        (gate_run(referenced_workflows=[{"path": GATE.replace("waiver/waiver", "mallory/waiver"),
                                         "sha": PIN}]),
         f"run 42: it calls {GATE.replace('waiver/waiver', 'mallory/waiver')}, which is not "
         "waiver/waiver's waiver-gate.yml"),
    ],
)  # fmt: skip
def test_any_other_run_is_named_and_not_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: dict[str, Any], error: str
) -> None:
    document, outputs = provenance(tmp_path, monkeypatch, Answers(), run)

    assert (document["run"], document["error"]) == (None, error)
    assert outputs == {"run-id": "", "history-run-id": ""}


def test_an_api_that_fails_starts_the_history_afresh_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    document, outputs = provenance(tmp_path, monkeypatch, Answers(status=500), gate_run())

    assert outputs == {"run-id": "42", "history-run-id": ""}
    error = "GET /repos/owner/repo/actions/artifacts answered HTTP 500"
    assert document["history_error"] == error
    assert capsys.readouterr().err == (
        f"waiver: warning: no earlier history of this writer to continue ({error}): the "
        "history starts afresh\n"
    )


def test_a_writer_with_no_earlier_history_says_it_starts_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    document, outputs = provenance(tmp_path, monkeypatch, Answers(per_page=100), gate_run())

    assert outputs == {"run-id": "42", "history-run-id": ""}
    assert "history_error" not in document
    assert capsys.readouterr().err == (
        "waiver: warning: no earlier history of this writer to continue: the history starts "
        "afresh\n"
    )
