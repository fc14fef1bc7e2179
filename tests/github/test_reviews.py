"""The reviews of a `workflow_run` job's pull request: the one the run was about, found by
its head commit when the event names none (a fork's run), as the API has it now; and the
step outputs `waiver approvals` leaves for the job to check out and gate by."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.github_api import (
    HEAD,
    Answers,
    environment,
    fork_answers,
    github_api,
    review,
    use_environment,
)
from helpers.support import read_github_output
from waiver.cli import main
from waiver.decide.approval import count_approvals
from waiver.github.rest import ApiFailed
from waiver.github.reviews import fetch_reviews
from waiver.read.evidence.review_data import review_data


def test_a_fork_run_reads_the_reviews_of_the_pull_request_its_head_belongs_to(
    tmp_path: Path,
) -> None:
    answers = fork_answers()
    answers.reviews = [review(1, "maintainer", "APPROVED", HEAD)]
    answers.permissions = {"maintainer": "write"}

    with github_api(answers) as api:
        document = fetch_reviews(environment(tmp_path, api))

    assert document["pull_request"] == {
        "number": 7, "user": {"login": "agent"},
        "head": {"sha": HEAD, "ref": "fix", "repo": {"full_name": "owner/repo"}},
        "base": {"sha": "b" * 40, "ref": "main"},
    }  # fmt: skip
    counted, _ = count_approvals(review_data(document), None)
    assert [approval.login for approval in counted] == ["maintainer"]
    assert [path for path, _ in answers.asked][:2] == [
        f"/repos/owner/repo/commits/{HEAD}/pulls", "/repos/owner/repo/pulls/7",
    ]  # fmt: skip


def _pull(number: int, branch: str) -> dict[str, object]:
    return {"number": number, "state": "open", "head": {"sha": HEAD}, "base": {"ref": branch}}


def test_a_run_is_judged_for_the_open_pull_request_into_a_named_branch(tmp_path: Path) -> None:
    # The run names #5, which targets a branch the change controls; #9 into main shares
    # the head. The status speaks for main's pull request alone.
    answers = Answers(commit_pulls=[_pull(5, "evil"), _pull(9, "main")])
    env = environment(tmp_path, "http://127.0.0.1:1")
    Path(env["GITHUB_EVENT_PATH"]).write_text(
        json.dumps({"workflow_run": {"head_sha": HEAD, "pull_requests": [{"number": 5}]}})
    )
    with github_api(answers) as api:
        fetch_reviews({**env, "GITHUB_API_URL": api, "WAIVER_BRANCHES": "main, release"})
    asked = [path for path, _ in answers.asked]
    assert asked[:3] == [
        f"/repos/owner/repo/commits/{HEAD}/pulls",
        "/repos/owner/repo/pulls/9",
        "/repos/owner/repo/pulls/9/reviews",
    ]
    assert not [path for path in asked if path.startswith("/repos/owner/repo/pulls/5")]


def test_no_open_pull_request_into_a_named_branch_has_none_to_judge(tmp_path: Path) -> None:
    answers = Answers(commit_pulls=[_pull(5, "evil")])
    with github_api(answers) as api, pytest.raises(ApiFailed) as raised:
        fetch_reviews({**environment(tmp_path, api), "WAIVER_BRANCHES": "main"})
    assert str(raised.value) == f"no open pull request into main has head {HEAD}"


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
    answers.pull_body = b"[]"
    with github_api(answers) as api, pytest.raises(ApiFailed) as raised:
        fetch_reviews(environment(tmp_path, api))
    assert str(raised.value) == "GET pull request #7 answered something that is not an object"


GROUP = "e" * 40
GROUP_BASE = "f" * 40


def _merge_group_env(tmp_path: Path, api: str, branch: str) -> dict[str, str]:
    env = environment(tmp_path, api)
    Path(env["GITHUB_EVENT_PATH"]).write_text(json.dumps({"workflow_run": {
        "event": "merge_group", "head_sha": GROUP, "head_branch": branch,
    }}))  # fmt: skip
    return env


def test_a_merge_group_s_reviews_are_its_queued_pull_request_s(tmp_path: Path) -> None:
    answers = Answers(head=HEAD)
    with github_api(answers) as api:
        env = _merge_group_env(tmp_path, api, f"gh-readonly-queue/main/pr-7-{GROUP_BASE}")
        document = fetch_reviews({**env, "WAIVER_BRANCHES": "main"})
    pull = document["pull_request"]
    assert (pull["number"], pull["head"]["sha"], pull["base"]) == (
        7, HEAD, {"sha": GROUP_BASE, "ref": "main"},
    )  # fmt: skip
    assert document["run_head"] == GROUP
    assert answers.asked[0][0] == "/repos/owner/repo/pulls/7"


@pytest.mark.parametrize(
    ("branch", "said"),
    [
        (
            f"gh-readonly-queue/release/pr-7-{GROUP_BASE}",
            "the merge group is for release, not main",
        ),
        ("feature/x", "the merge group's branch is not a merge queue's gh-readonly-queue/ branch"),
    ],
)
def test_a_merge_group_of_another_branch_or_none_reads_no_reviews(
    tmp_path: Path, branch: str, said: str
) -> None:
    answers = Answers()
    with github_api(answers) as api, pytest.raises(ApiFailed) as raised:
        fetch_reviews({**_merge_group_env(tmp_path, api, branch), "WAIVER_BRANCHES": "main"})
    assert str(raised.value) == said
    assert answers.asked == []
