"""The report workflow (.github/workflows/waiver-report.yml) end to end under act, on a
`workflow_run` event shaped as a fork's: it names no pull request, so the pull request is
found by its head commit through a stand-in of the REST API (tests/helpers/github_api.py). The
base commit holds the gate's caller, so the run whose reports are judged can be the base's
own gate workflow's, or, as a change would have it, another.

The change fixes the example's bug, adds a registered test and edits a known one, so both
block until a maintainer approves the head. The triggering run's reports are replays made
here beforehand, in the artifact folder the download stand-in reads
(tests/helpers/workflow_support.py). The checkout stand-in serves refs/pull/7/merge, a merge of
the head into the base, as GitHub does.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers.change_support import add_a_test, replay_and_gate
from helpers.github_api import Answers, comment, github_api, review
from helpers.support import NOW, git
from helpers.workflow_support import (
    DEMO_REPOSITORY,
    WAIVER_REPOSITORY,
    Repositories,
    commit_all,
    run_report,
)
from waiver.cli import main
from waiver.github.comment import MARKER

pytestmark = [pytest.mark.container, pytest.mark.slow]

TOKEN = "ghs_report_test_token"
MOVED = "d" * 40
# The gate run whose artifacts there are: a download that names any other finds none.
RUN = "run-42"


def open_pull(number: int, head: str, branch: str = "main") -> dict[str, Any]:
    return {"number": number, "state": "open", "head": {"sha": head}, "base": {"ref": branch}}


GATE_CALLER = ".github/workflows/waiver.yml"
GATE_CALLER_TEXT = """\
name: waiver
on: [pull_request, pull_request_review, merge_group]
permissions: {}
jobs:
  waiver:
    permissions: {contents: read, pull-requests: read}
    uses: waiver/waiver/.github/workflows/waiver-gate.yml@PIN
"""


class Fork:
    """The example's repository with the gate's caller committed on its base, the change as
    a fork's pull request #7, and the triggering run's artifacts."""

    def __init__(self, folder: Path) -> None:
        repositories = Repositories(folder)
        self.waiver_commit = repositories.waiver_commit
        self.demo = repositories.change("fork")
        self.run = self.demo.parents[2]
        caller = self.demo / GATE_CALLER
        caller.parent.mkdir(parents=True)
        caller.write_text(GATE_CALLER_TEXT.replace("PIN", self.waiver_commit))
        self.base = commit_all(self.demo, "the gate's caller")
        add_a_test(self.demo)
        self.head = commit_all(self.demo, "change")
        self.group = self._merge(self.base, self.head, "refs/pull/7/merge")
        self.queue = f"gh-readonly-queue/main/pr-7-{self.base}"
        git(self.demo, "update-ref", f"refs/heads/{self.queue}", self.group)
        self.artifacts = self.run / "artifacts"
        self._replay_artifacts(self.run / "replayed")

    def _merge(self, base: str, head: str, ref: str) -> str:
        git(self.demo, "checkout", "--quiet", "--detach", base)
        git(self.demo, "merge", "--quiet", "--no-ff", "-m", "Merge the head", head)
        git(self.demo, "update-ref", ref, "HEAD")
        merged = git(self.demo, "rev-parse", "HEAD")
        git(self.demo, "checkout", "--quiet", "--detach", head)
        return merged

    def commit_on_head(self, edit: Callable[[Path], None], ref: str) -> str:
        """Another head: the change plus `edit`, with its merge ref `ref`; its commit."""
        git(self.demo, "checkout", "--quiet", "--detach", self.head)
        edit(self.demo)
        other = commit_all(self.demo, "more")
        self._merge(self.base, other, ref)
        return other

    def _replay_artifacts(self, scratch: Path) -> None:
        git(self.run, "clone", "--quiet", str(self.demo), str(scratch))
        git(scratch, "checkout", "--quiet", "--detach", self.head)
        replay_and_gate(scratch, self.base, tests_from=True, replays=5)
        properties = self.artifacts / RUN / "waiver-properties"
        properties.mkdir(parents=True)
        shutil.copy(scratch / "reports" / "properties.xml", properties)
        for n in range(1, 6):
            shard = self.artifacts / RUN / f"waiver-junit-run-{n}-shard-1" / f"run-{n}"
            shard.mkdir(parents=True)
            shutil.copy(scratch / "reports" / f"run-{n}.xml", shard / "shard-1.xml")

    def gate_run(self, **more: Any) -> dict[str, Any]:
        """The triggering run as GitHub tells of it: the base's gate caller, on the head."""
        return {
            "id": 42, "event": "pull_request", "head_sha": self.head, "pull_requests": [],
            "path": GATE_CALLER, "head_branch": "fix",
            "referenced_workflows": [{
                "path": f"{WAIVER_REPOSITORY}/.github/workflows/waiver-gate.yml@{self.waiver_commit}",
                "sha": self.waiver_commit, "ref": self.waiver_commit,
            }],
            **more,
        }  # fmt: skip

    def report(self, api: str, name: str, **run: Any) -> str:
        """act on a workflow_run event of `gate_run(**run)`; the log."""
        log, _ = run_report(self.demo, self.waiver_commit, self.gate_run(**run), api, TOKEN, name)
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
        commit_pulls=[open_pull(7, fork.head)],
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
        commit_pulls=[open_pull(7, fork.head)],
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


def edit_the_gate_caller(work: Path) -> None:
    """Run no test, and upload JUnit files of its own, under the names the report reads."""
    caller = work / GATE_CALLER
    caller.write_text(caller.read_text() + "  # forged: runs no test, uploads its own reports\n")


def test_reports_of_an_edited_gate_caller_earn_a_failure_that_names_it(fork: Fork) -> None:
    forged = fork.commit_on_head(edit_the_gate_caller, "refs/pull/9/merge")
    answers = Answers(commit_pulls=[open_pull(9, forged)], head=forged, base=fork.base)
    with github_api(answers) as api:
        log = fork.report(api, "edited-caller", head_sha=forged)

    assert [s["state"] for s in answers.statuses] == ["failure"], log[-6000:]
    description = answers.statuses[0]["description"]
    assert description.startswith(f"blocked: the reports come from run 42 of {GATE_CALLER}, which")
    assert fork.gated()["rows"] == []
    assert f"{GATE_CALLER} is not the base's, byte for byte" in fork.gated()["run_blockers"][0]
    assert f"{GATE_CALLER} is not the base" in log


def test_reports_of_another_file_named_waiver_earn_a_failure_that_names_it(fork: Fork) -> None:
    answers = Answers(commit_pulls=[open_pull(7, fork.head)], head=fork.head, base=fork.base)
    answers.reviews = [review(1, "maintainer", "APPROVED", fork.head)]
    answers.permissions = {"maintainer": "write"}
    with github_api(answers) as api:
        log = fork.report(api, "evil", path=".github/workflows/evil.yml")

    assert [s["state"] for s in answers.statuses] == ["failure"], log[-6000:]
    assert answers.statuses[0]["description"] == (
        "blocked: the reports come from run 42 of .github/workflows/evil.yml, not from the "
        f"base's gate workflow {GATE_CALLER}"
    )
    ours = [c for c in answers.comments if c["user"]["login"] == "github-actions[bot]"]
    assert ".github/workflows/evil.yml" in ours[0]["body"]


def test_a_second_pull_request_with_the_same_head_earns_no_success(fork: Fork) -> None:
    # #8 shares the head and targets a branch the change controls; its run is the one that
    # triggered this. The status speaks for #7 into main, and #8's reports are not #7's.
    answers = Answers(
        commit_pulls=[open_pull(7, fork.head), open_pull(8, fork.head, "evil")],
        head=fork.head, base=fork.base,
        reviews=[review(1, "maintainer", "APPROVED", fork.head)],
        permissions={"maintainer": "write"},
    )  # fmt: skip
    with github_api(answers) as api:
        log = fork.report(api, "second", pull_requests=[{"number": 8}])

    assert [s["state"] for s in answers.statuses] == ["failure"], log[-6000:]
    assert "the run was for pull request #8, not #7" in answers.statuses[0]["description"]
    assert not [
        path for path, _ in answers.asked if path.startswith(f"/repos/{DEMO_REPOSITORY}/pulls/8")
    ]


def test_a_review_is_re_judged_on_the_latest_run_s_reports_without_replays(fork: Fork) -> None:
    answers = Answers(
        commit_pulls=[open_pull(7, fork.head)],
        head=fork.head, base=fork.base,
        reviews=[review(1, "maintainer", "APPROVED", fork.head)],
        permissions={"maintainer": "write"},
        runs=[fork.gate_run(id=41, path=".github/workflows/other.yml"), fork.gate_run()],
    )  # fmt: skip
    with github_api(answers) as api:
        log = fork.report(api, "review", id=99, event="pull_request_review")

    assert [s["state"] for s in answers.statuses] == ["success"], log[-6000:]
    assert "download stand-in: from run 42" in log and "from run 99" not in log
    assert fork.gated()["provenance"]["run_id"] == 42


def test_a_merge_group_gets_the_status_on_its_commit_and_keeps_what_was_approved(
    fork: Fork,
) -> None:
    group = {"id": 42, "event": "merge_group", "head_sha": fork.group, "head_branch": fork.queue}
    answers = Answers(head=fork.head, base=fork.base)
    with github_api(answers) as api:
        unapproved = fork.report(api, "group", **group)
        answers.reviews = [review(1, "maintainer", "APPROVED", fork.head)]
        answers.permissions = {"maintainer": "write"}
        approved = fork.report(api, "group-approved", **group)

    assert [s["state"] for s in answers.statuses] == ["failure", "success"], approved[-6000:]
    status_writes = [w for w in answers.writes if "/statuses/" in w[1]]
    assert status_writes == [("POST", f"/repos/{DEMO_REPOSITORY}/statuses/{fork.group}")] * 2
    assert fork.gated()["trusted_revision"] == fork.base
    admitted = [row["test_id"] for row in fork.gated()["rows"] if "admitted_by" in row]
    assert admitted and unapproved


HISTORY_CALLER = ".github/workflows/waiver-history.yml"


def history_artifact(run_id: int) -> dict[str, Any]:
    return {"name": "waiver-history", "expired": False,
            "workflow_run": {"id": run_id, "head_branch": "main"}}  # fmt: skip


def test_the_summary_shows_the_default_branch_s_history_beside_the_unstable_row(
    fork: Fork,
) -> None:
    # The default branch's history is one gate run of the replays made for the fork (its
    # round trip is unstable), uploaded by run 60 of the writer's caller. Run 61, a pull
    # request's run of the same file on a branch it named main, uploaded one of the same
    # name: it is passed over.
    history = fork.artifacts / "run-60" / "waiver-history" / "history.gz"
    history.parent.mkdir(parents=True)
    assert main(["history", "record", "--history", str(history), "--now", NOW,
                 "--report", str(fork.run / "replayed" / "waiver.json"), "--out", str(history)]) == 0  # fmt: skip
    shutil.copytree(history.parent.parent, fork.artifacts / "run-61")
    answers = Answers(
        commit_pulls=[open_pull(7, fork.head)], head=fork.head, base=fork.base, per_page=100,
        artifacts=[history_artifact(61), history_artifact(60)],
        runs=[{"id": 61, "path": HISTORY_CALLER, "event": "pull_request", "head_branch": "main"},
              {"id": 60, "path": HISTORY_CALLER, "event": "workflow_run", "head_branch": "main"}],
    )  # fmt: skip
    with github_api(answers) as api:
        log = fork.report(api, "history")

    [unstable] = [row for row in fork.gated()["rows"] if row["class"] == "unstable_assertion"]
    shown = {"runs": 1, "flipped": 1, "failed": 0, "flagged": False}
    assert unstable["history"] == shown, log[-6000:]
    assert "download stand-in: from run 60" in log and "from run 61" not in log
    [ours] = [c for c in answers.comments if c["user"]["login"] == "github-actions[bot]"]
    [line] = [line for line in ours["body"].splitlines() if unstable["test_id"] in line]
    assert "flipped in 1 of the last 1 run on main" in line
    assert "| on main |" in ours["body"]


def test_no_history_leaves_the_column_empty_with_a_notice(fork: Fork) -> None:
    answers = Answers(commit_pulls=[open_pull(7, fork.head)], head=fork.head, base=fork.base)
    with github_api(answers) as api:
        log = fork.report(api, "no-history")

    assert [s["state"] for s in answers.statuses] == ["failure"], log[-6000:]
    assert "waiver: notice: no history of the default branch: the rows show none" in log
    assert "history" not in fork.gated()
    assert "on main" not in answers.comments[0]["body"]
