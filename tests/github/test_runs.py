"""The gate run whose reports a `workflow_run` job judges (`waiver.github.runs`), and
`waiver provenance`, which writes it down for the gate, through a local stand-in of the REST
API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.github_api import HEAD, Answers, github_api
from waiver.cli import main
from waiver.github.rest import ApiFailed, connect
from waiver.github.runs import gate_run, workflow_path

CALLER = ".github/workflows/waiver.yml"
WAIVER_REF = "0123456789abcdef0123456789abcdef01234567"
REUSABLE = [{"path": "acme/waiver/.github/workflows/waiver-gate.yml@x", "sha": WAIVER_REF}]


def run(
    run_id: int, path: str = CALLER, event: str = "pull_request", **more: Any
) -> dict[str, Any]:
    return {
        "id": run_id,
        "path": path,
        "head_sha": HEAD,
        "event": event,
        "referenced_workflows": REUSABLE,
        **more,
    }


def judged(
    tmp_path: Path, answers: Answers, triggering: dict[str, Any], number: int | None = 7
) -> dict[str, object]:
    event = {"workflow_run": triggering}
    with github_api(answers) as url:
        api, repository = connect(
            {"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "owner/repo", "GITHUB_API_URL": url}
        )
        return gate_run(api, repository, event, CALLER, number)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (CALLER, CALLER),
        (f"owner/repo/{CALLER}@refs/pull/7/merge", CALLER),
        (
            "other/repo/.github/workflows/waiver.yml@main",
            "other/repo/.github/workflows/waiver.yml@main",
        ),
        ("", None),
        (None, None),
    ],
)
def test_a_run_s_path_is_read_in_both_spellings_of_the_api(
    path: object, expected: str | None
) -> None:
    assert workflow_path(path, "owner/repo") == expected


def test_a_pull_request_s_own_run_is_judged_with_what_made_it(tmp_path: Path) -> None:
    found = judged(tmp_path, Answers(), run(11, pull_requests=[{"number": 7}]))

    assert found == {
        "id": 11,
        "path": CALLER,
        "head_sha": HEAD,
        "event": "pull_request",
        "started_by": "pull_request",
        "referenced_workflows": REUSABLE,
    }


def test_a_review_s_run_judges_the_latest_completed_run_of_the_gate_workflow(
    tmp_path: Path,
) -> None:
    answers = Answers(
        runs=[
            run(20),
            run(30, path=".github/workflows/other.yml"),  # another file named waiver
            run(25),
            run(40, event="push"),
        ],
        commit_pulls=[{"number": 7, "state": "open", "head": {"sha": HEAD}}],
    )
    found = judged(tmp_path, answers, run(99, event="pull_request_review"))

    assert (found["id"], found["started_by"]) == (25, "pull_request_review")
    assert any(path.endswith("/actions/runs") for path, _ in answers.asked)


@pytest.mark.parametrize(
    ("triggering", "answers", "said"),
    [
        (
            run(11, pull_requests=[{"number": 8}]),
            Answers(),
            "the run was for pull request #8, not #7",
        ),
        (
            run(11, pull_requests=[]),
            Answers(commit_pulls=[{"number": 7}, {"number": 9}]),
            "the open pull requests with head",
        ),
        (run(11, event="pull_request_review"), Answers(), "no completed pull_request run of"),
        ({"head_sha": "short"}, Answers(), "the event names no head commit"),
        (
            run(11, referenced_workflows="x", pull_requests=[{"number": 7}]),
            Answers(),
            "is not a list",
        ),
    ],
)
def test_a_run_that_cannot_be_told_is_no_run(
    tmp_path: Path, triggering: dict[str, Any], answers: Answers, said: str
) -> None:
    with pytest.raises(ApiFailed, match=said):
        judged(tmp_path, answers, triggering)


def provenance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, triggering: dict[str, Any]
) -> tuple[int, dict[str, Any], str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"workflow_run": triggering}))
    outputs = tmp_path / "outputs"
    outputs.write_text("")
    for key, value in {
        "GITHUB_API_URL": url,
        "GITHUB_TOKEN": "t",
        "GITHUB_REPOSITORY": "owner/repo",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_WORKFLOW_REF": "owner/repo/.github/workflows/waiver-report.yml@refs/heads/main",
    }.items():
        monkeypatch.setenv(key, value)
    out = tmp_path / "provenance.json"
    code = main([
        "provenance", "--out", str(out), "--caller", CALLER, "--waiver-repository", "acme/waiver",
        "--waiver-ref", WAIVER_REF, "--pull-request", "7",
    ])  # fmt: skip
    return code, json.loads(out.read_text()), outputs.read_text()


def test_the_command_writes_the_run_and_names_it_in_a_step_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with github_api(Answers()) as url:
        code, document, outputs = provenance(
            tmp_path, monkeypatch, url, run(11, pull_requests=[{"number": 7}])
        )

    assert code == 0
    assert document["run"]["id"] == 11
    assert document["error"] is None
    assert document["caller"] == CALLER
    assert document["report_workflow"] == ".github/workflows/waiver-report.yml"
    assert document["waiver"] == {"repository": "acme/waiver", "commit": WAIVER_REF}
    assert "run-id" in outputs and "11" in outputs


def test_a_run_the_command_cannot_read_is_written_as_an_error_and_no_step_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with github_api(Answers(status=500)) as url:
        code, document, outputs = provenance(
            tmp_path, monkeypatch, url, run(11, event="pull_request_review")
        )

    assert code == 0
    assert document["run"] is None
    assert isinstance(document["error"], str) and document["error"]
    assert "run-id" in outputs and "11" not in outputs


@pytest.mark.parametrize(
    ("flag", "value"), [("--waiver-repository", "not a repository"), ("--waiver-ref", "main")]
)
def test_the_command_refuses_a_waiver_it_cannot_pin(
    tmp_path: Path, flag: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = {"--waiver-repository": "acme/waiver", "--waiver-ref": WAIVER_REF, flag: value}
    code = main(["provenance", "--out", str(tmp_path / "p.json"), "--caller", CALLER,
                 *(word for pair in args.items() for word in pair)])  # fmt: skip
    assert code == 2
    assert f"argument {flag}:" in capsys.readouterr().err
    assert not (tmp_path / "p.json").exists()
