"""The reviews of a `workflow_run` job's pull request: the one the run was about, found by
its head commit when the event names none (a fork's run), as the API has it now; and the
step outputs `waiver approvals` leaves for the job to check out and gate by."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from github_api import HEAD, Answers, environment, fork_answers, github_api, review, use_environment
from support import read_github_output
from waiver.approval import count_approvals
from waiver.cli import main
from waiver.github.rest import ApiFailed
from waiver.github.reviews import fetch_reviews
from waiver.read.approvals import review_data


def test_a_fork_run_reads_the_reviews_of_the_pull_request_its_head_belongs_to(
    tmp_path: Path,
) -> None:
    answers = fork_answers()
    answers.reviews = [review(1, "maintainer", "APPROVED", HEAD)]
    answers.permissions = {"maintainer": "write"}

    with github_api(answers) as api:
        document = fetch_reviews(environment(tmp_path, api))

    assert document["pull_request"] == {
        "number": 7, "user": {"login": "agent"}, "head": {"sha": HEAD},
        "base": {"sha": "b" * 40},
    }  # fmt: skip
    counted, _ = count_approvals(review_data(document), None)
    assert [approval.login for approval in counted] == ["maintainer"]
    assert [path for path, _ in answers.asked][:2] == [
        f"/repos/owner/repo/commits/{HEAD}/pulls", "/repos/owner/repo/pulls/7",
    ]  # fmt: skip


def test_a_run_that_names_its_pull_request_is_not_looked_up_by_commit(tmp_path: Path) -> None:
    answers = Answers()
    env = environment(tmp_path, "http://127.0.0.1:1")
    Path(env["GITHUB_EVENT_PATH"]).write_text(
        json.dumps({"workflow_run": {"head_sha": HEAD, "pull_requests": [{"number": 9}]}})
    )
    with github_api(answers) as api:
        fetch_reviews({**env, "GITHUB_API_URL": api})
    assert answers.asked[0][0] == "/repos/owner/repo/pulls/9"


def test_a_pull_request_that_moved_on_has_no_reviews_to_judge(tmp_path: Path) -> None:
    answers = fork_answers()
    answers.head = "c" * 40
    with github_api(answers) as api, pytest.raises(ApiFailed) as raised:
        fetch_reviews(environment(tmp_path, api))
    assert str(raised.value) == f"pull request #7 has moved on from {HEAD}, which the run was about"


def test_the_command_names_the_pull_request_in_step_outputs_and_none_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = tmp_path / "output"
    output.touch()
    answers = fork_answers()
    with github_api(answers) as api:
        use_environment(monkeypatch, tmp_path, api)
        monkeypatch.setenv("GITHUB_OUTPUT", str(output))
        assert main(["approvals", "--out", str(tmp_path / "a.json")]) == 0
        first = read_github_output(output.read_text())
        output.write_text("")
        answers.status = 500
        assert main(["approvals", "--out", str(tmp_path / "b.json")]) == 0
    assert first == {"pull-request": "7", "head": HEAD, "base": "b" * 40}
    assert read_github_output(output.read_text()) == {"pull-request": "", "head": "", "base": ""}
    assert "answered HTTP 500" in json.loads((tmp_path / "b.json").read_text())["error"]


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"<html>rate limited</html>", "answered something that is not JSON"),
        (b'{"number": 7}', "answered something that is not a list"),
    ],
)
def test_a_body_of_the_wrong_kind_reads_no_reviews(tmp_path: Path, body: bytes, said: str) -> None:
    answers = fork_answers()
    answers.raw_body = body
    with github_api(answers) as api, pytest.raises(ApiFailed) as raised:
        fetch_reviews(environment(tmp_path, api))
    assert said in str(raised.value)


def test_a_pull_request_answered_as_a_list_reads_no_reviews(tmp_path: Path) -> None:
    answers = fork_answers()
    with github_api(answers) as api:
        env = environment(tmp_path, api)
        Path(env["GITHUB_EVENT_PATH"]).write_text(
            json.dumps({"workflow_run": {"head_sha": HEAD, "pull_requests": [{"number": 9}]}})
        )
        answers.raw_body = b"[]"
        with pytest.raises(ApiFailed) as raised:
            fetch_reviews(env)
    assert str(raised.value) == "GET pull request #9 answered something that is not an object"
