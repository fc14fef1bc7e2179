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

The stand-in answers as GitHub's schema says, and the attacks on the required verdict are
run as an attacker would stage them: a second pull request from the same branch into a
branch the change controls (open, or closed before the report; the run naming both, or, a
fork's, none), a review that would re-judge another pull request's run, a retarget while
the run ran and its re-run, a re-run of an older green run after a newer red one, a run
that called no, more or another waiver, near-duplicate artifact names, and base replays
uploaded under the base's names after a job that runs the change's code began. Each earns a
failure that names why, or nothing at all; the honest run still earns success. The
verdict as the check run of the team's own app is minted and posted in the job, and a
job without the app's key posts nothing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers.change_support import CHANGE_TESTS, add_a_test, replay_and_gate
from helpers.github_api import VERDICT_APP, Answers, App, comment, github_api, review
from helpers.junit_support import case, junit
from helpers.support import NOW, gate_args, git
from helpers.workflow_support import (
    BASE_CREATED,
    DEMO_REPOSITORY,
    WAIVER_REPOSITORY,
    Repositories,
    commit_all,
    listed_artifacts,
    run_report,
)
from waiver.cli import main
from waiver.decide.base_order import NO_EVIDENCE
from waiver.github.comment_body import MARKER
from waiver.github.commit_status import post_check_run

pytestmark = [pytest.mark.container, pytest.mark.slow]

TOKEN = "ghs_report_test_token"
MOVED = "d" * 40
# The gate run whose artifacts there are: a download that names any other finds none.
RUN = "run-42"


CREATED = "2026-12-01T10:00:00Z"


def open_pull(
    number: int, head: str, branch: str = "main", state: str = "open", ref: str = "fix"
) -> dict[str, Any]:
    """A pull request as `GET /commits/{sha}/pulls` lists it."""
    return {"number": number, "state": state, "base": {"ref": branch},
            "head": {"sha": head, "ref": ref, "repo": {"full_name": DEMO_REPOSITORY}}}  # fmt: skip


GATE_CALLER = ".github/workflows/waiver.yml"
BLOCKING_POLICY = "waiver-block.yml"
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
        # Only the base-evidence tests name it (`config`): the others judge without a policy.
        (self.demo / BLOCKING_POLICY).write_text(
            "registry: known-tests.txt\nintroduced_instability: block\n"
        )
        self.base = commit_all(self.demo, "the gate's caller")
        add_a_test(self.demo)
        self.head = commit_all(self.demo, "change")
        self.group = self._merge(self.base, self.head, "refs/pull/7/merge")
        self.queue = f"gh-readonly-queue/main/pr-7-{self.base}"
        git(self.demo, "update-ref", f"refs/heads/{self.queue}", self.group)
        self.artifacts = self.run / "artifacts"
        self._replay_artifacts(self.run / "replayed")
        self.listed = listed_artifacts(self.artifacts / RUN)

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
        # The change's new and edited tests, which ran apart on its own tree.
        shutil.copytree(
            scratch / CHANGE_TESTS, self.artifacts / RUN / "waiver-change-tests-shard-1"
        )

    def gate_run(self, **more: Any) -> dict[str, Any]:
        """The triggering run as GitHub tells of it: the base's gate caller, on the head of
        #7's branch `fix`, completed."""
        return {
            "id": 42, "event": "pull_request", "head_sha": self.head, "pull_requests": [],
            "path": GATE_CALLER, "head_branch": "fix", "status": "completed",
            "run_attempt": 1, "created_at": CREATED,
            "head_repository": {"full_name": DEMO_REPOSITORY},
            "referenced_workflows": [{
                "path": f"{WAIVER_REPOSITORY}/.github/workflows/waiver-gate.yml@{self.waiver_commit}",
                "sha": self.waiver_commit, "ref": self.waiver_commit,
            }],
            **more,
        }  # fmt: skip

    def answers(self, **more: Any) -> Answers:
        """What the API says of pull request #7 into main, its one gate run 42 and that run's
        artifacts."""
        settled: dict[str, Any] = {
            "commit_pulls": [open_pull(7, self.head)], "head": self.head, "base": self.base,
            "runs": [self.gate_run()], "run_artifacts": {42: list(self.listed)},
        }  # fmt: skip
        return Answers(**{**settled, **more})

    def report(
        self,
        api: str,
        name: str,
        inputs: dict[str, Any] | None = None,
        secrets: dict[str, str] | None = None,
        **run: Any,
    ) -> str:
        """act on a workflow_run event of `gate_run(**run)`; the log."""
        log, _ = run_report(
            self.demo, self.waiver_commit, self.gate_run(**run), api, TOKEN, name, inputs, secrets
        )
        return log

    def base_history(self, head: str) -> Path:
        """The default branch's history after one gate run of the base in which every test
        passed every replay, recorded as having replayed `head`: the writer's artifact of
        run 60."""
        scratch = self.run / f"base-run-{head[:8]}"
        git(self.run, "clone", "--quiet", str(self.demo), str(scratch))
        git(scratch, "checkout", "--quiet", "--detach", self.base)
        reports = scratch / "reports"
        reports.mkdir()
        passing = [
            case(test_id.split("::")[0].removesuffix(".py").replace("/", "."), test_id.split("::")[1])
            for test_id in (scratch / "known-tests.txt").read_text().split()
        ]  # fmt: skip
        for replay in range(1, 6):
            (reports / f"run-{replay}.xml").write_text(junit(*passing))
        shutil.copy(self.artifacts / RUN / "waiver-properties" / "properties.xml", scratch)
        assert main(gate_args(scratch)) == 0
        history = self.artifacts / "run-60" / "waiver-history" / "history.gz"
        shutil.rmtree(history.parent, ignore_errors=True)
        history.parent.mkdir(parents=True)
        assert main(["history", "record", "--history", str(history), "--now", NOW, "--head", head,
                     "--report", str(scratch / "waiver.json"), "--out", str(history)]) == 0  # fmt: skip
        return history

    def gated(self) -> dict[str, Any]:
        document: dict[str, Any] = json.loads(
            (self.artifacts / "waiver-report" / "waiver.json").read_text()
        )
        return document


@pytest.fixture(scope="module")
def fork(act_ready: None, tmp_path_factory: pytest.TempPathFactory) -> Fork:
    return Fork(tmp_path_factory.mktemp("report"))


JOBS = [
    {"name": f"waiver / {name}", "started_at": start, "completed_at": end,
     "steps": [{"name": "Run the assertion suite", "started_at": start, "completed_at": tested}]}
    for name, start, end, tested in (
        ("properties", "2026-12-01T10:00:00Z", "2026-12-01T10:00:30Z", None),
        ("replay 1, shard 1", "2026-12-01T10:01:00Z", "2026-12-01T10:01:50Z", "2026-12-01T10:01:12Z"),
        ("replay 2, shard 1", "2026-12-01T10:01:00Z", "2026-12-01T10:01:55Z", "2026-12-01T10:01:12Z"),
        ("gate", "2026-12-01T10:02:00Z", "2026-12-01T10:02:40Z", None),
    )
]  # fmt: skip


def test_the_status_turns_green_on_an_approval_and_the_one_comment_is_edited_in_place(
    fork: Fork,
) -> None:
    forged = comment(1, "mallory", MARKER + "\n## ✅ waiver: clean\n")
    answers = fork.answers(comments=[forged, comment(2, "someone", "looks fine")],
                           jobs={42: JOBS})  # fmt: skip
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
    # The reports came by the ids of their exact names, and nothing else did.
    fetched = re.findall(r"download stand-in: artifact (\d+) is (\S+)", approved_log)
    assert sorted(name for _, name in fetched) == sorted(
        ["waiver-properties", "waiver-change-tests-shard-1"]
        + [f"waiver-junit-run-{n}-shard-1" for n in range(1, 6)]
    )
    assert answers.check_runs == []
    # What the verdict cost, from the run's jobs, in the comment and the report.
    bill = (
        "**What this verdict cost:** 4 jobs, 2 min 55 s of runner time (GitHub bills 4 min): "
        "properties 30 s, replays 1 min 45 s, gate 40 s. One plain run of the suite took 12 s: "
        "the verdict cost 15 of them."
    )
    assert bill in ours[0]["body"].splitlines()
    assert fork.gated()["cost"]["billed_minutes"] == 4


def test_a_head_that_moved_on_posts_nothing(fork: Fork) -> None:
    answers = fork.answers(head=MOVED)
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
    answers = fork.answers(commit_pulls=[open_pull(9, forged)], head=forged,
                           runs=[fork.gate_run(head_sha=forged)])  # fmt: skip
    with github_api(answers) as api:
        log = fork.report(api, "edited-caller", head_sha=forged)

    assert [s["state"] for s in answers.statuses] == ["failure"], log[-6000:]
    description = answers.statuses[0]["description"]
    assert description.startswith(f"blocked: the reports come from run 42 of {GATE_CALLER}, which")
    assert fork.gated()["rows"] == []
    assert f"{GATE_CALLER} is not the base's, byte for byte" in fork.gated()["run_blockers"][0]
    assert f"{GATE_CALLER} is not the base" in log


def test_reports_of_another_file_named_waiver_earn_a_failure_that_names_it(fork: Fork) -> None:
    evil = ".github/workflows/evil.yml"
    answers = fork.answers(
        reviews=[review(1, "maintainer", "APPROVED", fork.head)],
        permissions={"maintainer": "write"},
        runs=[fork.gate_run(path=evil)],
    )
    with github_api(answers) as api:
        log = fork.report(api, "evil", path=evil)

    assert [s["state"] for s in answers.statuses] == ["failure"], log[-6000:]
    assert answers.statuses[0]["description"] == (
        f"blocked: the reports come from run 42 of {evil}, not from the base's gate workflow "
        f"{GATE_CALLER}"
    )
    ours = [c for c in answers.comments if c["user"]["login"] == "github-actions[bot]"]
    assert evil in ours[0]["body"]


APPROVED = {"permissions": {"maintainer": "write"}}


def approved(fork: Fork, **more: Any) -> Answers:
    """#7's answers with a maintainer's approval of its head: only a binding stops success."""
    return fork.answers(reviews=[review(1, "maintainer", "APPROVED", fork.head)], **APPROVED,
                        **more)  # fmt: skip


@pytest.mark.parametrize(
    ("other", "named", "said"),
    [
        pytest.param(open_pull(8, "", "evil"), [{"number": 7}, {"number": 8}],
                     "#8 (open, into evil)", id="open into a branch the change controls"),
        pytest.param(open_pull(8, "", "evil", "closed"), [],
                     "#8 (closed, into evil)", id="closed before the report, a fork's run"),
    ],
)  # fmt: skip
def test_a_second_pull_request_from_the_same_branch_earns_a_failure_that_names_it(
    fork: Fork, other: dict[str, Any], named: list[dict[str, Any]], said: str
) -> None:
    # #8 has #7's head and targets a branch the change controls, whose waiver.yml would
    # upload forged reports; the run that triggered this looks the same either way.
    other["head"]["sha"] = fork.head
    answers = approved(fork, commit_pulls=[open_pull(7, fork.head), other])
    with github_api(answers) as api:
        log = fork.report(api, f"second-{other['state']}", pull_requests=named)

    assert [s["state"] for s in answers.statuses] == ["failure"], log[-6000:]
    blocker = fork.gated()["run_blockers"][0]
    assert f"pull request {said} has had head {fork.head} or its branch too" in blocker
    assert fork.gated()["rows"] == []
    assert answers.check_runs == []


def test_a_review_re_judges_the_newest_run_of_the_pull_request_s_own_branch(fork: Fork) -> None:
    # Run 44 ran from branch b2 at the same commit, for #8 into evil, which has moved on
    # since (so it no longer has the head): it is not #7's, however new.
    moved_on = open_pull(8, MOVED, "evil", ref="b2")
    answers = approved(
        fork,
        commit_pulls=[open_pull(7, fork.head), moved_on],
        runs=[fork.gate_run(id=41, path=".github/workflows/other.yml"), fork.gate_run(),
              fork.gate_run(id=44, head_branch="b2")],
    )  # fmt: skip
    with github_api(answers) as api:
        log = fork.report(api, "review", id=99, event="pull_request_review")

    assert [s["state"] for s in answers.statuses] == ["success"], log[-6000:]
    assert "download stand-in: from run 42" in log
    assert "from run 44" not in log and "from run 99" not in log
    assert fork.gated()["provenance"]["run_id"] == 42


@pytest.mark.parametrize("attempt", [1, 2])
def test_a_pull_request_retargeted_after_its_run_began_earns_a_failure(
    fork: Fork, attempt: int
) -> None:
    # Opened into evil, whose caller the run executed; retargeted to main while it ran
    # (attempt 1), or before a re-run (attempt 2, which replays the same event).
    changed = {"event": "base_ref_changed", "created_at": "2026-12-01T10:05:00Z"}
    answers = approved(fork, timeline=[changed],
                       runs=[fork.gate_run(run_attempt=attempt)])  # fmt: skip
    with github_api(answers) as api:
        log = fork.report(api, f"retarget-{attempt}", run_attempt=attempt)

    assert [s["state"] for s in answers.statuses] == ["failure"], log[-6000:]
    assert (
        "the base of #7 changed at 2026-12-01T10:05:00Z, not before run 42 began"
        in (fork.gated()["run_blockers"][0])
    )


def test_a_re_run_of_an_older_green_run_never_replaces_a_newer_red_verdict(fork: Fork) -> None:
    # Run 45 is newer and posted failure; run 42 is re-run (attempt 2) and completes green.
    answers = approved(
        fork,
        runs=[fork.gate_run(run_attempt=2), fork.gate_run(id=45)],
        statuses=[{"state": "failure", "context": "waiver", "description": "run 45"}],
    )
    with github_api(answers) as api:
        log = fork.report(api, "older", run_attempt=2)

    assert answers.statuses == [
        {"state": "failure", "context": "waiver", "description": "run 45"}
    ], log[-6000:]
    assert answers.writes == []
    assert (
        "Nothing is posted for this run. run 45 of the gate's caller for this head is newer" in log
    )


GATE_WORKFLOW = f"{WAIVER_REPOSITORY}/.github/workflows/waiver-gate.yml"


@pytest.mark.parametrize(
    ("called", "said"),
    [
        pytest.param([], "it calls no reusable workflow", id="none"),
        pytest.param(
            [{"path": f"{GATE_WORKFLOW}@PIN", "sha": "PIN"},
             {"path": f"{DEMO_REPOSITORY}/.github/workflows/up.yml@main", "sha": "e" * 40}],
            f"it calls {DEMO_REPOSITORY}/.github/workflows/up.yml@main, which is not",
            id="an extra workflow",
        ),
        pytest.param(
            [{"path": "attacker/waiver/.github/workflows/waiver-gate.yml@PIN", "sha": "PIN"}],
            "it calls attacker/waiver/.github/workflows/waiver-gate.yml@",
            id="a lookalike waiver at the pin",
        ),
    ],
)  # fmt: skip
def test_a_run_that_called_anything_but_exactly_waiver_earns_a_failure(
    fork: Fork, called: list[dict[str, str]], said: str
) -> None:
    pinned = [{key: value.replace("PIN", fork.waiver_commit) for key, value in item.items()}
              for item in called]  # fmt: skip
    answers = approved(fork, runs=[fork.gate_run(referenced_workflows=pinned)])
    with github_api(answers) as api:
        log = fork.report(api, f"called-{len(called)}", referenced_workflows=pinned)

    assert [s["state"] for s in answers.statuses] == ["failure"], log[-6000:]
    assert said in fork.gated()["run_blockers"][0]


@pytest.mark.parametrize("name", ["waiver-junit-run-1-shard-1 ", "waiver-junit-run-1-shard-1x"])
def test_a_near_duplicate_artifact_name_earns_a_failure_and_is_never_downloaded(
    fork: Fork, name: str
) -> None:
    # Its report says every test passed: downloaded by pattern into the same folder, it
    # would replace replay 1's.
    planted = {"id": 90, "name": name, "expired": False}
    answers = approved(fork, run_artifacts={42: [*fork.listed, planted]})
    with github_api(answers) as api:
        log = fork.report(api, f"near-{name[-1].strip() or 'space'}")

    assert [s["state"] for s in answers.statuses] == ["failure"], log[-6000:]
    assert fork.gated()["run_blockers"] == [
        f"run 42 of {GATE_CALLER} uploaded artifacts that no job of waiver's gate workflow "
        f"uploads: {json.dumps(name)}"
    ]
    assert "artifact 90" not in log


# An honest run in the reusable workflow's order: the plan, the base replays, then the jobs
# that run the change's code, then the gate.
BASE_JOBS = [
    {"name": f"waiver / {name}", "run_attempt": 1, "started_at": start, "completed_at": end,
     "conclusion": "success", "steps": []}
    for name, start, end in (
        ("plan", "2026-12-01T09:58:00Z", "2026-12-01T09:58:40Z"),
        *((f"base replay {n}, shard 1", "2026-12-01T09:58:50Z", "2026-12-01T09:59:40Z")
          for n in range(1, 6)),
        ("properties, then replay 1, shard 1", "2026-12-01T10:00:00Z", "2026-12-01T10:00:50Z"),
        *((f"replay {n}, shard 1", "2026-12-01T10:01:00Z", "2026-12-01T10:01:55Z")
          for n in range(2, 6)),
        ("gate", "2026-12-01T10:02:00Z", "2026-12-01T10:02:40Z"),
    )
]  # fmt: skip


def base_replays(fork: Fork, created: str) -> list[dict[str, Any]]:
    """Five base replays that flip as the change's do (its own replays, uploaded under the
    base's names), created at `created`, ids from 101: the artifacts as the API lists them."""
    ids = fork.artifacts / RUN / ".ids"
    listed = []
    for n in range(1, 6):
        name = f"waiver-base-junit-run-{n}-shard-1"
        shard = fork.artifacts / RUN / name / f"run-{n}"
        shard.mkdir(parents=True, exist_ok=True)
        shutil.copy(fork.run / "replayed" / "reports" / f"run-{n}.xml", shard / "shard-1.xml")
        (ids / str(100 + n)).write_text(name)
        listed.append({"id": 100 + n, "name": name, "expired": False, "created_at": created})
    return listed


@pytest.mark.parametrize(
    ("created", "state"),
    [
        pytest.param(BASE_CREATED, "success", id="before any job ran the change's code"),
        pytest.param("2026-12-01T10:00:40Z", "failure", id="while the property job ran"),
    ],
)
def test_base_replays_uploaded_after_the_change_s_code_began_are_no_evidence(
    fork: Fork, created: str, state: str
) -> None:
    # The base replays flip as the change's do. Created before any job ran the change's
    # code, they are the base's: the row is already flaky there, so under
    # introduced_instability: block it earns a proposal, and the approved change passes.
    # The same replays created while the property job ran could be its code's, uploaded
    # with the run's artifact token to turn an introduced flip into an old one: the status
    # fails, and names the artifact, its time and the job.
    answers = approved(fork, run_artifacts={42: [*fork.listed, *base_replays(fork, created)]},
                       jobs={42: BASE_JOBS})  # fmt: skip
    with github_api(answers) as api:
        log = fork.report(api, f"base-replays-{state}",
                          inputs={"config": BLOCKING_POLICY, "base-replays": 5})  # fmt: skip

    assert [s["state"] for s in answers.statuses] == [state], log[-6000:]
    gated = fork.gated()
    if state == "success":
        [unstable] = [row for row in gated["rows"] if row["class"] == "unstable_assertion"]
        assert unstable["base"]["meaning"] == "already_flaky" and gated["run_blockers"] == []
        assert "download stand-in: artifact 101 is waiver-base-junit-run-1-shard-1" in log
    else:
        late = (
            'waiver-base-junit-run-1-shard-1 created 2026-12-01T10:00:40Z after "properties, '
            'then replay 1, shard 1" began 2026-12-01T10:00:00Z'
        )
        assert gated["run_blockers"] == [f"{late}: {NO_EVIDENCE} (run 42)"]
        assert gated["rows"] == []
        assert answers.statuses[0]["description"] == f"blocked: {late}…"


def test_a_merge_group_gets_the_status_on_its_commit_and_keeps_what_was_approved(
    fork: Fork,
) -> None:
    group = {"id": 42, "event": "merge_group", "head_sha": fork.group, "head_branch": fork.queue}
    answers = fork.answers(runs=[fork.gate_run(**group)])
    with github_api(answers) as api:
        unapproved = fork.report(api, "group", **group)
        answers.reviews = [review(1, "maintainer", "APPROVED", fork.head)]
        answers.permissions = {"maintainer": "write"}
        approved_log = fork.report(api, "group-approved", **group)

    assert [s["state"] for s in answers.statuses] == ["failure", "success"], approved_log[-6000:]
    status_writes = [w for w in answers.writes if "/statuses/" in w[1]]
    assert status_writes == [("POST", f"/repos/{DEMO_REPOSITORY}/statuses/{fork.group}")] * 2
    assert fork.gated()["trusted_revision"] == fork.base
    admitted = [row["test_id"] for row in fork.gated()["rows"] if "admitted_by" in row]
    assert admitted and unapproved


@pytest.fixture(scope="module")
def app_key(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """A GitHub App's private key, and the public half the API checks JWTs with."""
    folder = tmp_path_factory.mktemp("app")
    private, public = folder / "app.pem", folder / "app.pub"
    subprocess.run(["openssl", "genrsa", "-out", str(private), "2048"], check=True,
                   capture_output=True)  # fmt: skip
    subprocess.run(["openssl", "rsa", "-in", str(private), "-pubout", "-out", str(public)],
                   check=True, capture_output=True)  # fmt: skip
    return private.read_text(), public


CLIENT_ID = "Iv23liWaiverVerdict"


def test_the_verdict_is_the_check_run_of_the_app_whose_token_the_job_mints(
    fork: Fork, app_key: tuple[str, Path]
) -> None:
    key, public = app_key
    answers = approved(fork, app=App(CLIENT_ID, public))
    with github_api(answers) as api:
        log = fork.report(api, "app", inputs={"app-client-id": CLIENT_ID},
                          secrets={"WAIVER_APP_PRIVATE_KEY": key})  # fmt: skip

    assert len(answers.check_runs) == 1, log[-6000:]
    [check] = answers.check_runs
    assert (check["app"], check["name"], check["head_sha"]) == (VERDICT_APP, "waiver", fork.head)
    assert (check["status"], check["conclusion"]) == ("completed", "success")
    assert check["output"]["title"] == "review: admitted by the approval of maintainer"
    assert answers.statuses == []
    assert answers.app is not None and list(answers.app.tokens.values()) == ['{"checks": "write"}']
    assert key.splitlines()[1] not in log


def test_without_the_app_s_key_nothing_is_posted_and_the_check_stays_pending(
    fork: Fork, app_key: tuple[str, Path]
) -> None:
    # A pull request's own workflow is refused the environment, so it has no key: it can
    # mint no token, and what it posts with its own token is the GitHub Actions app's.
    _, public = app_key
    answers = approved(fork, app=App(CLIENT_ID, public))
    with github_api(answers) as api:
        log = fork.report(api, "no-key", inputs={"app-client-id": CLIENT_ID})

    assert (answers.check_runs, answers.statuses) == ([], []), log[-6000:]
    assert "Input required and not supplied: private-key" in log
    with github_api(answers) as api:
        post_check_run({"GITHUB_API_URL": api, "GITHUB_TOKEN": TOKEN,
                        "GITHUB_REPOSITORY": DEMO_REPOSITORY}, fork.head, ("success", "forged"), None)  # fmt: skip
    assert [check["app"] for check in answers.check_runs] == ["github-actions"]


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
    answers = fork.answers(
        per_page=100, artifacts=[history_artifact(61), history_artifact(60)],
        runs=[{"id": 61, "path": HISTORY_CALLER, "event": "pull_request", "head_branch": "main"},
              {"id": 60, "path": HISTORY_CALLER, "event": "workflow_run", "head_branch": "main"},
              fork.gate_run()],
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


WRITER_RUNS = [
    {"id": 60, "path": HISTORY_CALLER, "event": "workflow_run", "head_branch": "main"},
]


@pytest.mark.parametrize("recorded", [True, False], ids=["recorded base", "unrecorded base"])
def test_a_base_the_default_branch_ran_is_the_evidence_and_a_flip_the_change_brought_blocks(
    fork: Fork, recorded: bool
) -> None:
    # The default branch's run of the base passed every test every time; the change's round
    # trip flips. Under introduced_instability: block it blocks, the base run named, with
    # no base replay job. A base the history never ran falls back: no base evidence, and
    # the unstable row blocks with its base unknown.
    fork.base_history(fork.base if recorded else MOVED)
    answers = approved(fork, per_page=100, artifacts=[history_artifact(60)],
                       runs=[*WRITER_RUNS, fork.gate_run()])  # fmt: skip
    with github_api(answers) as api:
        log = fork.report(api, f"base-evidence-{recorded}",
                          inputs={"config": BLOCKING_POLICY})  # fmt: skip

    assert [s["state"] for s in answers.statuses] == ["failure"], log[-6000:]
    gated = fork.gated()
    [unstable] = [row for row in gated["rows"] if row["class"] == "unstable_assertion"]
    assert "waiver-base-junit" not in log and "from run 60" in log
    [ours] = [c for c in answers.comments if c["user"]["login"] == "github-actions[bot]"]
    if recorded:
        assert unstable["base"] == {
            "replay_pass": 5, "replay_total": 5, "meaning": "introduced", "blocks": True,
        }  # fmt: skip
        assert gated["base"]["history_run"]["commit"] == fork.base
        assert "introduced by this change" in ours["body"]
    else:
        assert unstable["base"]["meaning"] == "base_unknown" and unstable["base"]["blocks"]
        assert "base" not in gated
    assert unstable["freeze"] is None


def test_no_history_leaves_the_column_empty_with_a_notice(fork: Fork) -> None:
    answers = fork.answers()
    with github_api(answers) as api:
        log = fork.report(api, "no-history")

    assert [s["state"] for s in answers.statuses] == ["failure"], log[-6000:]
    assert "waiver: notice: no history of the default branch: the rows show none" in log
    assert "history" not in fork.gated()
    assert "on main" not in answers.comments[0]["body"]
