"""`waiver provenance --history-workflow` against the REST API stand-in: the default
branch's history that the report workflow shows beside the rows is the newest live
`waiver-history` artifact of a run of the writer's caller on the default branch; a pull
request's upload of the same name is passed over, and no history or an API error names
none, with a notice, and leaves the run whose reports are judged as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers.github_api import HEAD, Answers
from helpers.provenance_support import (
    CALLER,
    PIN,
    WRITER,
    artifact,
    commit_pull,
    gate_run,
    report_outputs,
    run_provenance,
    writer_run,
)
from waiver.cli import main

PULL = commit_pull(7)
NONE_SHOWN = "waiver: notice: no history of the default branch{}: the rows show none\n"


def provenance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answers: Answers
) -> tuple[dict[str, Any], dict[str, str]]:
    """`waiver provenance --history-workflow` for pull request #7's gate run: its file and
    outputs."""
    triggering = gate_run(42)
    answers.runs.append(triggering)
    answers.head = HEAD
    flags = ["--pull-request=7", f"--history-workflow={WRITER}"]
    return run_provenance(tmp_path, monkeypatch, answers, triggering, flags, default_branch="main")


def test_the_writer_s_newest_history_on_the_default_branch_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Newest first, as GitHub lists them: a fork's pull request whose branch is also named
    # main uploads an artifact of the same name from its own edit of the writer's file; one
    # on another branch, an expired one and one another workflow uploaded are passed over.
    answers = Answers(
        commit_pulls=[PULL],
        artifacts=[artifact(95), artifact(90), artifact(80, branch="fix"),
                   artifact(70, expired=True), artifact(60), artifact(50)],
        runs=[writer_run(95, event="pull_request"),
              writer_run(90, path=".github/workflows/other.yml"), writer_run(60),
              writer_run(50)],
        per_page=100,
    )  # fmt: skip
    document, outputs = provenance(tmp_path, monkeypatch, answers)

    assert (document["run"]["id"], document["error"]) == (42, None)
    assert "history_error" not in document
    assert outputs == report_outputs("42", **{"history-run-id": "60"})
    assert "notice" not in capsys.readouterr().err
    # The judged run's attempts, artifacts and jobs, then the history's candidates newest
    # first.
    looked_up = [path for path, _ in answers.asked if "/actions/runs/" in path]
    assert looked_up == [
        "/repos/owner/repo/actions/runs/42", "/repos/owner/repo/actions/runs/42/artifacts",
        "/repos/owner/repo/actions/runs/42/attempts/1/jobs",
        *(f"/repos/owner/repo/actions/runs/{n}" for n in (95, 90, 60)),
    ]  # fmt: skip


def test_no_history_names_none_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = Answers(
        commit_pulls=[PULL], artifacts=[artifact(95)],
        runs=[writer_run(95, event="pull_request")], per_page=100,
    )  # fmt: skip
    document, outputs = provenance(tmp_path, monkeypatch, answers)

    assert outputs == report_outputs("42", **{"history-run-id": ""})
    assert "history_error" not in document
    assert capsys.readouterr().err == NONE_SHOWN.format("")


def test_an_api_error_names_none_says_why_and_leaves_the_judged_run_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The writer's run of the newest artifact is not found.
    answers = Answers(commit_pulls=[PULL], artifacts=[artifact(60)], per_page=100)
    document, outputs = provenance(tmp_path, monkeypatch, answers)

    error = "GET /repos/owner/repo/actions/runs/60 answered HTTP 404"
    assert (document["run"]["id"], document["error"]) == (42, None)
    assert document["history_error"] == error
    assert outputs == report_outputs("42", **{"history-run-id": ""})
    assert capsys.readouterr().err == NONE_SHOWN.format(f" ({error})")


def test_an_api_that_fails_names_neither_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document, outputs = provenance(tmp_path, monkeypatch, Answers(status=500))

    assert document["run"] is None
    assert document["history_error"] == "GET /repos/owner/repo/actions/artifacts answered HTTP 500"
    assert outputs == report_outputs("", **{"history-run-id": ""})


def test_the_report_s_history_and_the_writer_s_are_not_named_at_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["provenance", "--out=p.json", f"--caller={CALLER}", "--default-branch",
                 f"--history-workflow={WRITER}", "--waiver-repository=waiver/waiver",
                 f"--waiver-ref={PIN}"])  # fmt: skip
    assert code == 2
    assert "not allowed with argument" in capsys.readouterr().err
