"""The approval path end to end, under act (tests/helpers/act_support.py): the action reads the
pull request's reviews from a stand-in of the REST API on 127.0.0.1 (tests/helpers/github_api.py)
in its own step, and the gate, in its container without network or token, counts them.

The change fixes the example's bug, adds a registered test and edits a known one: without
an approval both block for review. Its reviews hold every kind the gate must refuse beside
one it must count, spread over pages.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers.act_support import ActRun, install_action, run_act, uploaded
from helpers.change_support import (
    CHANGE_TESTS,
    NEW,
    add_a_test,
    commit_base,
    commit_change,
    replay_and_gate,
)
from helpers.docker_support import BASE
from helpers.github_api import Answers, commit, github_api, review
from helpers.support import EMPTY, KNOWN, git

pytestmark = [pytest.mark.container, pytest.mark.slow]

TOKEN = "ghs_act_test_token"
STALE = "b" * 40


@pytest.fixture(scope="module")
def change(act_ready: None, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """The base commit, the change committed on it and replayed five times: (work, base, head)."""
    work = tmp_path_factory.mktemp("approvals") / "demo"
    base = commit_base(work)
    commit_change(work, add_a_test)
    replay_and_gate(work, base, tests_from=True, replays=5)
    (work / "waiver.json").unlink()
    return work, base, git(work, "rev-parse", "HEAD")


def every_kind_of_review(head: str) -> Answers:
    return Answers(
        reviews=[
            review(1, "stale", "APPROVED", STALE),  # a push came after it
            review(2, "agent", "APPROVED", head),  # the pull request's author
            review(3, "reader", "APPROVED", head),  # read permission only
            review(4, "helper[bot]", "APPROVED", head, bot=True),
            review(5, "withdrawn", "APPROVED", head),
            review(6, "withdrawn", "DISMISSED", head),
            review(7, "coauthor", "APPROVED", head),  # committed one of the commits
            review(8, "maintainer", "APPROVED", head),
            review(9, "maintainer", "COMMENTED", head),  # a comment withdraws nothing
        ],
        commits=[commit("agent", "agent"), commit("agent", "coauthor")],
        permissions=dict.fromkeys(["stale", "helper[bot]", "withdrawn", "coauthor"], "write")
        | {"agent": "admin", "reader": "read", "maintainer": "maintain"},
        head=head,
    )


def gate_under_act(change: tuple[Path, str, str], tmp_path: Path, answers: Answers) -> ActRun:
    work, base, head = change
    checkout = tmp_path / "demo"
    shutil.copytree(work, checkout, symlinks=True)
    install_action(checkout, tmp_path)
    event = {
        "pull_request": {
            "number": 7,
            "user": {"login": "agent"},
            "base": {"sha": base},
            "head": {"sha": head},
        }
    }
    inputs = {
        "reports": "reports",
        "properties": "reports/properties.xml",
        # The reports are of the base's test tree; the change's tests ran apart.
        "change-tests": CHANGE_TESTS,
        "known-tests": "known-tests.txt",
        "base-image": BASE,
    }
    with github_api(answers) as url:
        return run_act(
            checkout, tmp_path, inputs, event,
            ("--env", f"GITHUB_API_URL={url}", "--env", "GITHUB_REPOSITORY=owner/demo",
             "-s", f"GITHUB_TOKEN={TOKEN}"),
        )  # fmt: skip


def test_one_counted_approval_admits_what_blocks_for_review_and_every_other_is_refused(
    change: tuple[Path, str, str], tmp_path: Path
) -> None:
    _, _, head = change
    answers = every_kind_of_review(head)

    run = gate_under_act(change, tmp_path, answers)

    assert run.returncode == 0, run.log[-6000:]
    assert (run.outputs["exit-code"], run.outputs["verdict"]) == ("0", "review")
    report = uploaded(run)
    by = {"login": "maintainer", "review_id": 8, "commit": head}
    assert report["approvals"]["counted"] == [by]
    refused = {entry["login"]: entry["reason"] for entry in report["approvals"]["refused"]}
    assert refused == {
        "stale": f"approved commit {STALE}, not the head {head}",
        "agent": "the pull request's author",
        "reader": "has read permission, not write, maintain or admin",
        "helper[bot]": "a bot",
        "withdrawn": "their approval was dismissed",
        "coauthor": "an author or committer of a commit of the pull request",
    }
    rows = {row["test_id"]: row for row in report["rows"]}
    assert rows[NEW]["class"] == rows[KNOWN]["class"] == "unknown_test"
    assert rows[NEW]["admitted_by"] == rows[KNOWN]["admitted_by"] == by
    assert rows[EMPTY]["class"] == "stable_pass"
    # Every page was read, with the token, which never reached the log.
    asked = [path for path, _ in answers.asked]
    assert asked.count("/repos/owner/demo/pulls/7/reviews") == 5
    assert {authorization for _, authorization in answers.asked} == {f"Bearer {TOKEN}"}
    assert TOKEN not in run.log
    assert "maintainer" in run.log  # the summary names the reviewer


def test_an_api_error_admits_nothing_and_the_gate_blocks_as_it_would_without_reviews(
    change: tuple[Path, str, str], tmp_path: Path
) -> None:
    _, _, head = change

    run = gate_under_act(change, tmp_path, Answers(status=500, head=head))

    assert run.returncode != 0 and "Job failed" in run.log, run.log[-6000:]
    assert (run.outputs["exit-code"], run.outputs["verdict"]) == ("1", "blocked")
    report = uploaded(run)
    assert report["approvals"]["counted"] == []
    assert report["approvals"]["problem"].startswith("no approval is counted: ")
    assert report["approvals"]["problem"] in run.log  # named in the summary
    assert not any("admitted_by" in row for row in report["rows"])
