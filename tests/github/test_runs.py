"""`waiver provenance` against the REST API stand-in: which gate run's reports a
`workflow_run` job judges, and what GitHub says made that run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers.github_api import HEAD, Answers
from helpers.provenance_support import CALLER, GATE, PIN, run_provenance
from waiver.cli import main
from waiver.github.runs import workflow_path


def run(run_id: int, event: str = "pull_request", **more: Any) -> dict[str, Any]:
    return {"id": run_id, "path": CALLER, "head_sha": HEAD, "event": event,
            "pull_requests": [], "referenced_workflows": [{"path": GATE, "sha": PIN}], **more}  # fmt: skip


def open_pull(number: int, branch: str = "main") -> dict[str, Any]:
    return {"number": number, "state": "open", "head": {"sha": HEAD}, "base": {"ref": branch}}


def provenance(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    answers: Answers,
    triggering: dict[str, Any],
    pull_request: int | None = 7,
) -> tuple[dict[str, Any], dict[str, str]]:
    """`waiver provenance` on a workflow_run event of `triggering`: its file and outputs."""
    number = [] if pull_request is None else [f"--pull-request={pull_request}"]
    return run_provenance(tmp_path, monkeypatch, answers, triggering, number)


def test_a_pull_request_s_run_is_its_own_reports_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = Answers(commit_pulls=[open_pull(7)])
    document, outputs = provenance(tmp_path, monkeypatch, answers, run(42))
    assert document == {
        "caller": CALLER,
        "report_workflow": ".github/workflows/report.yml",
        "waiver": {"repository": "waiver/waiver", "commit": PIN},
        "run": {"id": 42, "path": CALLER, "head_sha": HEAD, "event": "pull_request",
                "started_by": "pull_request", "referenced_workflows": [{"path": GATE, "sha": PIN}]},
        "error": None,
    }  # fmt: skip
    assert outputs == {"run-id": "42"}


def test_a_review_s_run_judges_the_latest_completed_pull_request_run_of_the_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = Answers(
        commit_pulls=[open_pull(7)],
        runs=[run(40), run(44, path=".github/workflows/evil.yml"), run(43), run(41)],
    )
    document, outputs = provenance(
        tmp_path, monkeypatch, answers, run(99, event="pull_request_review")
    )
    assert (document["run"]["id"], document["run"]["started_by"]) == (43, "pull_request_review")
    assert outputs == {"run-id": "43"}
    asked = [path for path, _ in answers.asked if path.endswith("/actions/runs")]
    assert asked == ["/repos/owner/repo/actions/runs"] * 2  # two pages of two


def test_a_review_without_a_completed_run_names_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = Answers(commit_pulls=[open_pull(7)], runs=[run(44, path=".github/workflows/x.yml")])
    document, outputs = provenance(
        tmp_path, monkeypatch, answers, run(99, event="pull_request_review")
    )
    assert document["run"] is None
    assert document["error"] == f"no completed pull_request run of {CALLER} has head {HEAD}"
    assert outputs == {"run-id": ""}


@pytest.mark.parametrize(
    ("pulls", "named", "error"),
    [
        pytest.param(
            [open_pull(7), open_pull(8, "evil")], [{"number": 8}],
            "the run was for pull request #8, not #7", id="a run for another pull request",
        ),
        pytest.param(
            [open_pull(7), open_pull(8, "evil")], [],
            f"the run names no pull request and the open pull requests with head {HEAD} are "
            "#7, #8: which one it ran for cannot be told",
            id="a fork's run beside another pull request with its head",
        ),
        pytest.param(
            [open_pull(7), open_pull(9)], [{"number": 7}],
            f"pull requests #7, #9 share head {HEAD}: one status cannot speak for each; "
            "close all but one",
            id="two pull requests into main with one head",
        ),
    ],
)  # fmt: skip
def test_a_run_that_may_be_another_pull_request_s_names_no_run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pulls: list[dict[str, Any]],
    named: list[dict[str, Any]],
    error: str,
) -> None:
    answers = Answers(commit_pulls=pulls)
    document, outputs = provenance(tmp_path, monkeypatch, answers, run(42, pull_requests=named))
    assert (document["run"], document["error"], outputs) == (None, error, {"run-id": ""})


def test_a_merge_group_s_run_needs_no_pull_request_of_its_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = Answers()
    document, _ = provenance(tmp_path, monkeypatch, answers, run(42, event="merge_group"))
    assert (document["run"]["event"], document["error"]) == ("merge_group", None)
    assert answers.asked == []


def test_an_api_that_fails_is_written_down_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document, outputs = provenance(
        tmp_path, monkeypatch, Answers(status=500), run(99, event="pull_request_review")
    )
    assert document["error"] == "GET /repos/owner/repo/actions/runs answered HTTP 500"
    assert outputs == {"run-id": ""}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (CALLER, CALLER),
        (f"owner/repo/{CALLER}@refs/heads/main", CALLER),
        (f"other/repo/{CALLER}@refs/heads/main", f"other/repo/{CALLER}@refs/heads/main"),
        ("", None),
        (None, None),
    ],
)
def test_a_run_s_path_is_read_in_either_spelling(path: object, expected: str | None) -> None:
    assert workflow_path(path, "owner/repo") == expected


def test_a_waiver_ref_that_is_not_a_full_commit_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["provenance", f"--out={tmp_path / 'p.json'}", f"--caller={CALLER}",
                 "--waiver-repository=waiver/waiver", "--waiver-ref=main"])  # fmt: skip
    assert code == 2
    assert "argument --waiver-ref: must be a full commit id" in capsys.readouterr().err
    assert not (tmp_path / "p.json").exists()
