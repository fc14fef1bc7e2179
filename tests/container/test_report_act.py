"""The report workflow (.github/workflows/waiver-report.yml) end to end under act, on a
`workflow_run` event shaped as a fork's: it names no pull request, so the pull request is
found by its head commit through a stand-in of the REST API (tests/helpers/github_api.py).

The change fixes the example's bug, adds a registered test and edits a known one, so both
block until a maintainer approves the head. The triggering run's reports are replays made
here beforehand, in the artifact folder the download stand-in reads
(tests/helpers/workflow_support.py). The checkout stand-in serves refs/pull/7/merge, a merge of
the head into the base, as GitHub does.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers.change_support import add_a_test, replay_and_gate
from helpers.github_api import Answers, comment, github_api, review
from helpers.support import REPO, git
from helpers.workflow_support import (
    DEMO_REPOSITORY,
    WAIVER_REPOSITORY,
    Repositories,
    act,
    commit_all,
    stand_ins,
)
from waiver.github.comment import MARKER

pytestmark = [pytest.mark.container, pytest.mark.slow]

REPORT_WORKFLOW = REPO / ".github" / "workflows" / "waiver-report.yml"
TOKEN = "ghs_report_test_token"
MOVED = "d" * 40


class Fork:
    """The example's repository with the change as a fork's pull request #7, and the
    triggering run's artifacts."""

    def __init__(self, folder: Path) -> None:
        repositories = Repositories(folder)
        self.waiver_commit = repositories.waiver_commit
        self.base = repositories.base_commit
        self.demo = repositories.change("fork")
        self.run = self.demo.parents[2]
        add_a_test(self.demo)
        self.head = commit_all(self.demo, "change")
        git(self.demo, "checkout", "--quiet", "--detach", self.base)
        git(self.demo, "merge", "--quiet", "--no-ff", "-m", "Merge the head", self.head)
        git(self.demo, "update-ref", "refs/pull/7/merge", "HEAD")
        git(self.demo, "checkout", "--quiet", "--detach", self.head)
        self.artifacts = self.run / "artifacts"
        self._replay_artifacts(self.run / "replayed")

    def _replay_artifacts(self, scratch: Path) -> None:
        git(self.run, "clone", "--quiet", str(self.demo), str(scratch))
        git(scratch, "checkout", "--quiet", "--detach", self.head)
        replay_and_gate(scratch, self.base, harness_from=True, replays=5)
        properties = self.artifacts / "waiver-properties"
        properties.mkdir(parents=True)
        shutil.copy(scratch / "reports" / "properties.xml", properties)
        for n in range(1, 6):
            shard = self.artifacts / f"waiver-junit-run-{n}-shard-1" / f"run-{n}"
            shard.mkdir(parents=True)
            shutil.copy(scratch / "reports" / f"run-{n}.xml", shard / "shard-1.xml")

    def caller(self) -> str:
        document = {
            "name": "report",
            "on": "workflow_run",
            "permissions": {},
            "jobs": {
                "report": {
                    "uses": "./.github/workflows/waiver-report.yml",
                    "permissions": {"actions": "read", "contents": "read"}
                    | {"pull-requests": "write", "statuses": "write"},
                    "with": {
                        "waiver-repository": WAIVER_REPOSITORY,
                        "waiver-ref": self.waiver_commit,
                        "replays": 5,
                        "known-tests": "known-tests.txt",
                        "freezes": "freezes.json",
                        "base-image": "waiver-base:bookworm",
                    },
                }
            },
        }
        return yaml.safe_dump(document, sort_keys=False)

    def report(self, api: str, name: str) -> str:
        """act on the fork's workflow_run event; the log."""
        workflows = self.demo / ".github" / "workflows"
        workflows.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPORT_WORKFLOW, workflows / "waiver-report.yml")
        (workflows / "report.yml").write_text(self.caller())
        event = self.run / f"{name}.json"
        event.write_text(json.dumps({"workflow_run": {
            "id": 42, "event": "pull_request", "head_sha": self.head, "pull_requests": [],
        }}))  # fmt: skip
        shutil.rmtree(self.artifacts / "waiver-report", ignore_errors=True)
        _, log = act(
            ["workflow_run", "--eventpath", str(event), "-W", ".github/workflows/report.yml",
             "--no-skip-checkout", *stand_ins(self.run / "stand-ins"),
             "--env", f"WAIVER_ARTIFACTS={self.artifacts}",
             "--env", f"WAIVER_GIT={self.run / 'git'}",
             "--env", f"GITHUB_API_URL={api}", "-s", f"GITHUB_TOKEN={TOKEN}"],
            self.demo, self.run / f"home-{name}",
        )  # fmt: skip
        return log

    def gated(self) -> dict[str, Any]:
        document: dict[str, Any] = json.loads(
            (self.artifacts / "waiver-report" / "waiver.json").read_text()
        )
        return document


@pytest.fixture(scope="module")
def fork(act_ready: None, tmp_path_factory: pytest.TempPathFactory) -> Fork:
    return Fork(tmp_path_factory.mktemp("report"))


def test_the_status_turns_green_on_an_approval_and_the_one_comment_is_edited_in_place(
    fork: Fork,
) -> None:
    forged = comment(1, "mallory", MARKER + "\n## ✅ waiver: clean\n")
    answers = Answers(
        commit_pulls=[{"number": 7, "state": "open", "head": {"sha": fork.head}}],
        comments=[forged, comment(2, "someone", "looks fine")],
        head=fork.head,
        base=fork.base,
    )
    with github_api(answers) as api:
        blocked_log = fork.report(api, "unreviewed")
        assert [s["state"] for s in answers.statuses] == ["failure"], blocked_log[-6000:]
        assert fork.gated()["trusted_revision"] == fork.base

        answers.reviews = [review(1, "maintainer", "APPROVED", fork.head)]
        answers.permissions = {"maintainer": "write"}
        approved_log = fork.report(api, "approved")

    assert [s["state"] for s in answers.statuses] == ["failure", "success"], approved_log[-6000:]
    assert {s["context"] for s in answers.statuses} == {"waiver"}
    assert answers.statuses[1]["description"] == ("review: admitted by the approval of maintainer")
    status_writes = [w for w in answers.writes if "/statuses/" in w[1]]
    assert status_writes == [("POST", f"/repos/{DEMO_REPOSITORY}/statuses/{fork.head}")] * 2
    # One comment of the tool's own account: posted by the first run, edited by the next;
    # the human's comment that carries the marker is never touched.
    comment_writes = [w for w in answers.writes if "/statuses/" not in w[1]]
    assert comment_writes == [
        ("POST", f"/repos/{DEMO_REPOSITORY}/issues/7/comments"),
        ("PATCH", f"/repos/{DEMO_REPOSITORY}/issues/comments/1002"),
    ]
    ours = [c for c in answers.comments if c["user"]["login"] == "github-actions[bot]"]
    assert len(ours) == 1 and ours[0]["body"].startswith(MARKER + "\n## ⚠️ waiver: review")
    assert forged["body"] == MARKER + "\n## ✅ waiver: clean\n"
    assert {authorization for _, authorization in answers.asked} == {f"Bearer {TOKEN}"}
    assert TOKEN not in blocked_log + approved_log


def test_a_head_that_moved_on_posts_nothing(fork: Fork) -> None:
    answers = Answers(
        commit_pulls=[{"number": 7, "state": "open", "head": {"sha": fork.head}}],
        head=MOVED,
        base=fork.base,
    )
    with github_api(answers) as api:
        log = fork.report(api, "moved")

    assert answers.writes == [], log[-6000:]
    assert f"No pull request has head {fork.head} any more" in log


def test_an_api_that_fails_posts_nothing_and_says_why(fork: Fork) -> None:
    answers = Answers(status=500)
    with github_api(answers) as api:
        log = fork.report(api, "failing")

    assert answers.writes == [], log[-6000:]
    assert f"GET /repos/{DEMO_REPOSITORY}/commits/{fork.head}/pulls answered HTTP 500" in log
    assert f"No pull request has head {fork.head} any more" in log
