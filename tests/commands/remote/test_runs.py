"""`waiver provenance` against the REST API stand-in: which gate run's reports a
`workflow_run` job judges, bound to the pull request, base and head it ran for, and what
GitHub says made that run. The stand-in answers as GitHub's schema says: the pull requests
of a commit include closed ones, a run's `pull_requests` may name pull requests it was not
for, a re-run keeps its id and counts its attempts, and a retarget is a `base_ref_changed`
event in the timeline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers.github_api import HEAD, Answers
from helpers.provenance_support import (
    CALLER,
    CREATED,
    GATE,
    PIN,
    commit_pull,
    gate_run,
    report_outputs,
    run_provenance,
)
from waiver.cli import main
from waiver.decide.base_order import NO_EVIDENCE
from waiver.github.runs import workflow_path

run = gate_run
pull = commit_pull


def provenance(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    answers: Answers,
    triggering: dict[str, Any],
    flags: tuple[str, ...] = ("--pull-request=7",),
) -> tuple[dict[str, Any], dict[str, str]]:
    """`waiver provenance` on a workflow_run event of `triggering`: its file and outputs."""
    return run_provenance(tmp_path, monkeypatch, answers, triggering, flags)


def honest(**more: Any) -> Answers:
    """#7 into main from branch fix, its one run 42, and no other pull request."""
    return Answers(commit_pulls=[pull(7)], runs=[run(42)], head=HEAD, **more)


def test_a_pull_request_s_own_run_is_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document, outputs = provenance(tmp_path, monkeypatch, honest(), run(42))
    assert document == {
        "caller": CALLER,
        "report_workflow": ".github/workflows/report.yml",
        "waiver": {"repository": "waiver/waiver", "commit": PIN},
        "run": {"id": 42, "path": CALLER, "head_sha": HEAD, "head_branch": "fix",
                "event": "pull_request", "started_by": "pull_request", "attempt": 1,
                "pull_request": 7, "referenced_workflows": [{"path": GATE, "sha": PIN}]},
        "artifacts": {"properties": [], "replays": [], "base_replays": [], "red_green": [],
                      "change_tests": [], "unexpected": []},
        "change_tests_ran": False,
        "error": None,
    }  # fmt: skip
    assert outputs == report_outputs("42")


@pytest.mark.parametrize(
    ("others", "named"),
    [
        pytest.param([pull(8, "evil")], "#8 (open, into evil)", id="open, into a branch the change controls"),
        pytest.param([pull(8, "evil", "closed")], "#8 (closed, into evil)", id="closed before the report"),
        pytest.param([pull(8, "main", "closed", sha="e" * 40)], "#8 (closed, into main)",
                     id="closed earlier, from the same branch"),
        pytest.param([pull(8, "evil", ref="other")], "#8 (open, into evil)",
                     id="another branch with the same head"),
    ],
)  # fmt: skip
def test_another_pull_request_that_had_the_head_earns_a_failure_that_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, others: list[dict[str, Any]], named: str
) -> None:
    # Whatever the run says of itself (here it names both), the commit's pull requests
    # decide: a run of #8 would look the same as #7's.
    answers = honest()
    answers.commit_pulls += others
    triggering = run(42, pull_requests=[{"number": 7}, {"number": 8}])
    document, outputs = provenance(tmp_path, monkeypatch, answers, triggering)
    assert document["run"] is None
    assert document["error"] == (
        f"pull request {named} has had head {HEAD} or its branch too, so the run may have been "
        "for it: close it and push a new commit to #7"
    )
    assert outputs == report_outputs("")


def test_a_stacked_pull_request_on_the_head_s_branch_is_no_other_run_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # #9 builds on #7's branch: the commit is in it, but #9's head is its own commit on its
    # own branch, so no run of #9 has #7's head.
    answers = honest()
    answers.commit_pulls.append(pull(9, "fix", ref="more", sha="9" * 40))
    document, _ = provenance(tmp_path, monkeypatch, answers, run(42))
    assert (document["run"]["id"], document["error"]) == (42, None)


def test_a_run_from_another_branch_at_the_same_commit_is_not_the_pull_request_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    triggering = run(42, head_branch="b2")
    answers = Answers(commit_pulls=[pull(7)], runs=[triggering], head=HEAD)
    document, _ = provenance(tmp_path, monkeypatch, answers, triggering)
    assert document["error"] == ("run 42 ran from owner/repo:b2, not from #7's head owner/repo:fix")


def test_a_fork_s_run_is_bound_by_its_head_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fork = {"full_name": "Agent/Fork"}
    triggering = run(42, head_repository=fork)
    answers = Answers(commit_pulls=[], runs=[triggering], head=HEAD, head_repo="agent/fork")
    document, _ = provenance(tmp_path, monkeypatch, answers, triggering)
    assert (document["run"]["id"], document["error"]) == (42, None)
    answers.head_repo = "other/fork"
    document, _ = provenance(tmp_path, monkeypatch, answers, triggering)
    assert document["error"] == "run 42 ran from agent/fork:fix, not from #7's head other/fork:fix"


@pytest.mark.parametrize(
    ("changed", "blocks"),
    [
        ("2026-12-01T10:30:00Z", True),  # retargeted while the run ran, or before a re-run
        ("2026-12-01T09:59:00Z", True),  # within the margin: its event may predate the change
        ("2026-12-01T09:50:00Z", False),  # long before: the run was on the new base
    ],
)
def test_a_base_changed_since_the_run_began_earns_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: str, blocks: bool
) -> None:
    answers = honest(timeline=[
        {"event": "commented", "created_at": "2026-12-01T11:00:00Z"},
        {"event": "base_ref_changed", "created_at": changed},
    ])  # fmt: skip
    document, _ = provenance(tmp_path, monkeypatch, answers, run(42, run_attempt=2))
    expected = (
        f"the base of #7 changed at {changed}, not before run 42 began ({CREATED}): it may "
        "have run another base's workflow; push a new commit for a run on main"
    )
    assert document["error"] == (expected if blocks else None)
    asked = [path for path, _ in answers.asked if path.endswith("/timeline")]
    assert asked == ["/repos/owner/repo/issues/7/timeline"]


def test_a_same_repository_run_for_another_base_earns_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    triggering = run(42, pull_requests=[{"number": 7, "base": {"ref": "evil"}}])
    document, _ = provenance(tmp_path, monkeypatch, honest(), triggering)
    assert document["error"] == "run 42 was for #7 into evil, not into main"


def test_an_older_run_posts_nothing_beside_a_newer_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = honest()
    answers.runs += [run(45, status="in_progress"), run(47, head_branch="b2")]
    document, outputs = provenance(tmp_path, monkeypatch, answers, run(42, run_attempt=2))
    said = "run 45 of the gate's caller for this head is newer than run 42: its verdict stands"
    assert (document["run"], document["error"], document["superseded"]) == (None, None, said)
    assert outputs["superseded"] == said and outputs["run-id"] == ""


def test_an_older_attempt_of_a_run_posts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = Answers(commit_pulls=[pull(7)], runs=[run(42, run_attempt=3)], head=HEAD)
    document, outputs = provenance(tmp_path, monkeypatch, answers, run(42, run_attempt=2))
    assert document["superseded"] == (
        "attempt 2 of run 42 is not its newest (attempt 3): the newest attempt reports"
    )
    assert outputs["run-id"] == ""


def test_a_review_re_judges_the_newest_run_of_this_pull_request_s_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = honest()
    answers.runs = [run(40), run(44, path=".github/workflows/evil.yml"), run(43),
                    run(46, head_branch="b2"), run(41)]  # fmt: skip
    document, outputs = provenance(
        tmp_path, monkeypatch, answers, run(99, event="pull_request_review")
    )
    assert (document["run"]["id"], document["run"]["started_by"]) == (43, "pull_request_review")
    assert outputs["run-id"] == "43"
    listed = [path for path, _ in answers.asked if path.endswith("/actions/runs")]
    assert listed == ["/repos/owner/repo/actions/runs"] * 3  # three pages of two


def test_a_review_waits_for_a_newest_run_still_under_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = honest()
    answers.runs.append(run(43, status="in_progress"))
    document, outputs = provenance(
        tmp_path, monkeypatch, answers, run(99, event="pull_request_review")
    )
    assert document["superseded"] == (
        f"run 43, the newest of {CALLER} for this head, is in_progress: it reports when it "
        "completes"
    )
    assert outputs["run-id"] == ""


def test_a_review_without_a_run_of_the_head_names_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = Answers(commit_pulls=[pull(7)], runs=[run(44, path=".github/workflows/x.yml")])
    document, outputs = provenance(
        tmp_path, monkeypatch, answers, run(99, event="pull_request_review")
    )
    assert document["run"] is None
    assert document["error"] == f"no pull_request run of {CALLER} ran for #7's head {HEAD}"
    assert outputs["run-id"] == ""


def test_a_head_that_moved_on_names_no_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answers = honest()
    answers.head = "d" * 40
    document, _ = provenance(tmp_path, monkeypatch, answers, run(42))
    assert document["error"] == f"#7's head is now {'d' * 40}, not {HEAD}"


def test_a_pull_request_into_another_branch_names_no_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = honest(base_ref="evil")
    document, _ = provenance(tmp_path, monkeypatch, answers, run(42))
    assert document["error"] == "#7 is into evil, not main"


def artifact(
    artifact_id: int, name: str, expired: bool = False, created: str | None = "2026-12-01T09:59:00Z"
) -> dict[str, Any]:
    """An artifact as the API lists it; by default created before any job that runs the
    change's code began (`HONEST_JOBS`)."""
    return {"id": artifact_id, "name": name, "expired": expired, "created_at": created}


def test_artifacts_are_taken_by_exact_name_and_every_other_name_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = honest()
    answers.run_artifacts[42] = [
        artifact(1, "waiver-properties"),
        artifact(2, "waiver-junit-run-1-shard-1"),
        artifact(3, "waiver-junit-run-2-shard-1", expired=True),
        artifact(4, "waiver-junit-run-1-shard-1 "),
        artifact(5, "waiver-junit-run-1-shard-1x"),
        artifact(6, "waiver-junit-run-1-shard-1"),  # a re-run attempt's: it replaces id 2
        artifact(7, "waiver-red-green-shard-1"),
        artifact(8, "waiver-base-junit-run-1-shard-1"),
        artifact(9, "waiver"),
        artifact(10, "Waiver-Properties", expired=True),
        artifact(11, "waiver-change-tests-shard-1"),
    ]
    answers.jobs[42] = HONEST_JOBS
    flags = ("--pull-request=7", "--replays=2", "--base-replays=1")
    document, outputs = provenance(tmp_path, monkeypatch, answers, run(42), flags)
    assert "base_order" not in document
    assert document["artifacts"] == {
        "properties": [1], "replays": [6], "base_replays": [8], "red_green": [7],
        "change_tests": [11],
        "unexpected": ["Waiver-Properties", "waiver-junit-run-1-shard-1 ",
                       "waiver-junit-run-1-shard-1x"],
    }  # fmt: skip
    # The change's tests ran apart: their artifact says so, though no job of theirs is listed.
    assert outputs == report_outputs(
        "42", **{"properties-artifacts": "1", "replay-artifacts": "6", "base-artifacts": "8",
                 "red-green-artifacts": "7", "change-tests-artifacts": "11",
                 "change-tests-ran": "true"},
    )  # fmt: skip
    listed = [path for path, _ in answers.asked if path.endswith("/artifacts")]
    assert listed == ["/repos/owner/repo/actions/runs/42/artifacts"] * 6  # every page


def test_an_artifact_of_another_shape_names_no_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = honest()
    answers.run_artifacts[42] = [{"id": "1", "name": "waiver-properties"}]
    document, outputs = provenance(tmp_path, monkeypatch, answers, run(42))
    assert document["error"] == "an artifact of run 42 has no id, name or expiry"
    assert outputs == report_outputs("")


def test_a_merge_group_s_run_needs_no_pull_request_of_its_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    group = run(42, event="merge_group")
    answers = Answers(runs=[group])
    document, _ = provenance(tmp_path, monkeypatch, answers, group)
    assert (document["run"]["event"], document["run"]["pull_request"]) == ("merge_group", None)
    assert document["error"] is None
    assert [path for path, _ in answers.asked] == [
        "/repos/owner/repo/actions/runs/42", "/repos/owner/repo/actions/runs/42/artifacts",
        "/repos/owner/repo/actions/runs/42/attempts/1/jobs",
    ]  # fmt: skip


def test_an_api_that_fails_is_written_down_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document, outputs = provenance(
        tmp_path, monkeypatch, Answers(status=500), run(99, event="pull_request_review")
    )
    assert document["error"] == "GET /repos/owner/repo/pulls/7 answered HTTP 500"
    assert outputs == report_outputs("")


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


def timed(
    name: str, start: str, end: str, steps: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {"name": name, "started_at": start, "completed_at": end, "steps": steps or []}


def test_what_the_run_cost_is_kept_from_its_attempt_s_jobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = honest()
    answers.runs = [run(42, run_attempt=2)]
    step = {"name": "Run the assertion suite", "started_at": "2026-12-01T10:02:10Z",
            "completed_at": "2026-12-01T10:02:25Z"}  # fmt: skip
    answers.jobs[42] = [
        timed("waiver / properties", "2026-12-01T10:00:00Z", "2026-12-01T10:00:40Z"),
        timed("waiver / replay 1, shard 1", "2026-12-01T10:01:00Z", "2026-12-01T10:03:00Z", [step]),
        timed("waiver / gate", "2026-12-01T10:04:00Z", None),  # never completed: costs nothing
    ]
    document, _ = provenance(tmp_path, monkeypatch, answers, run(42, run_attempt=2))
    assert document["cost"] == {
        "jobs": 3, "seconds": {"properties": 40.0, "replays": 120.0}, "billed_minutes": 3,
        "plain_run": 15.0,
    }  # fmt: skip
    asked = [path for path, _ in answers.asked if path.endswith("/jobs")]
    assert asked == ["/repos/owner/repo/actions/runs/42/attempts/2/jobs"] * 2  # two pages
    assert document["change_tests_ran"] is False


def test_a_run_s_change_s_tests_job_says_they_ran_though_nothing_arrived(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = honest()
    answers.jobs[42] = [timed("waiver / change's tests, shard 1", "2026-12-01T10:00:00Z",
                              "2026-12-01T10:00:09Z")]  # fmt: skip
    document, outputs = provenance(tmp_path, monkeypatch, answers, run(42))
    assert document["change_tests_ran"] is True
    assert outputs == report_outputs("42", **{"change-tests-ran": "true"})


def test_jobs_that_cannot_be_read_cost_a_notice_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = honest()
    answers.jobs[42] = [{"name": 7}]
    document, outputs = provenance(tmp_path, monkeypatch, answers, run(42))
    assert "cost" not in document and outputs["run-id"] == "42"
    assert "waiver: notice: what the run cost is not shown: a job of run 42 has no name" in (
        capsys.readouterr().err
    )


def started(
    name: str, start: str | None, attempt: int = 1, conclusion: str = "success"
) -> dict[str, Any]:
    """A job of run 42 as the API lists it, in attempt `attempt`."""
    return {"name": f"waiver / {name}", "run_attempt": attempt, "started_at": start,
            "completed_at": start, "conclusion": conclusion, "steps": []}  # fmt: skip


# An honest run: the plan, the base replays, then the jobs that run the change's code.
HONEST_JOBS = [
    started("plan", "2026-12-01T09:57:00Z"),
    started("base replay 1, shard 1", "2026-12-01T09:58:00Z"),
    started("properties, then replay 1, shard 1", "2026-12-01T10:00:00Z"),
    started("replay 2, shard 1", "2026-12-01T10:01:00Z"),
]
BASE_FLAGS = ("--pull-request=7", "--replays=2", "--base-replays=1")


def with_base(*listed: dict[str, Any], jobs: list[dict[str, Any]] = HONEST_JOBS) -> Answers:
    answers = honest()
    answers.run_artifacts[42] = [artifact(1, "waiver-properties"), *listed]
    answers.jobs[42] = jobs
    return answers


def test_base_replays_created_before_the_change_s_code_ran_are_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = with_base(artifact(8, "waiver-base-junit-run-1-shard-1"))
    document, outputs = provenance(tmp_path, monkeypatch, answers, run(42), BASE_FLAGS)
    assert "base_order" not in document and outputs["base-artifacts"] == "8"
    asked = [path for path, _ in answers.asked if path.endswith("/jobs")]
    assert "/repos/owner/repo/actions/runs/42/jobs" in asked


def test_a_base_replay_replaced_after_a_replay_job_began_is_no_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The replay job's code uploaded a base replay of its own under the base's name: the
    # newest of that name, so the one the verdict would read.
    answers = with_base(
        artifact(8, "waiver-base-junit-run-1-shard-1"),
        artifact(12, "waiver-base-junit-run-1-shard-1", created="2026-12-01T10:01:30Z"),
    )
    document, _ = provenance(tmp_path, monkeypatch, answers, run(42), BASE_FLAGS)
    assert document["base_order"] == (
        'waiver-base-junit-run-1-shard-1 created 2026-12-01T10:01:30Z after "properties, '
        f'then replay 1, shard 1" began 2026-12-01T10:00:00Z: {NO_EVIDENCE}'
    )


def test_an_earlier_attempt_s_jobs_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Attempt 2 re-ran the base replay alone, after attempt 1's jobs ran the change's code:
    # only the list of every attempt's jobs shows it.
    jobs = [*HONEST_JOBS, started("base replay 1, shard 1", "2026-12-01T11:00:00Z", attempt=2)]
    answers = with_base(
        artifact(8, "waiver-base-junit-run-1-shard-1", created="2026-12-01T11:01:00Z"), jobs=jobs
    )
    document, _ = provenance(tmp_path, monkeypatch, answers, run(42, run_attempt=2), BASE_FLAGS)
    assert document["base_order"].startswith(
        'waiver-base-junit-run-1-shard-1 created 2026-12-01T11:01:00Z after "properties'
    )


@pytest.mark.parametrize(
    ("created", "jobs", "said"),
    [
        pytest.param(None, HONEST_JOBS, "waiver-base-junit-run-1-shard-1 has no creation time",
                     id="no creation time"),
        pytest.param("yesterday", HONEST_JOBS, "waiver-base-junit-run-1-shard-1 has no creation",
                     id="a creation that is no time"),
        pytest.param("2026-12-01T09:59:00", HONEST_JOBS, "waiver-base-junit-run-1-shard-1 has no",
                     id="a creation without its zone"),
        pytest.param("2026-12-01T09:59:00Z",
                     [*HONEST_JOBS, started("replay 3, shard 1", None)],
                     'job "replay 3, shard 1" has no start time', id="no start time"),
        pytest.param("2026-12-01T09:59:00Z", [{"name": 7}],
                     "the jobs of the run cannot be read (a job of run 42 has no name)",
                     id="jobs of another shape"),
    ],
)  # fmt: skip
def test_a_time_that_cannot_be_read_leaves_the_base_replays_no_evidence(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    created: str | None,
    jobs: list[dict[str, Any]],
    said: str,
) -> None:
    answers = with_base(artifact(8, "waiver-base-junit-run-1-shard-1", created=created), jobs=jobs)
    document, _ = provenance(tmp_path, monkeypatch, answers, run(42), BASE_FLAGS)
    assert document["base_order"].startswith(said)
    assert document["base_order"].endswith(NO_EVIDENCE)


def test_a_run_without_base_replays_lists_no_job_of_other_attempts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = with_base(jobs=[started("properties", "2026-12-01T09:00:00Z")])
    document, _ = provenance(tmp_path, monkeypatch, answers, run(42), BASE_FLAGS)
    assert "base_order" not in document
    assert [path for path, _ in answers.asked if path.endswith("/jobs")] == [
        "/repos/owner/repo/actions/runs/42/attempts/1/jobs"
    ]


def test_a_job_github_skipped_before_a_base_replay_was_re_run_ran_no_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Attempt 1's base replay failed, so GitHub skipped the jobs after it; attempt 2 re-ran
    # the failed jobs, the base replay first.
    jobs = [
        started("base replay 1, shard 1", "2026-12-01T09:58:00Z"),
        started("properties, then replay 1, shard 1", "2026-12-01T09:59:00Z",
                conclusion="skipped"),
        started("base replay 1, shard 1", "2026-12-01T11:00:00Z", attempt=2),
        started("properties, then replay 1, shard 1", "2026-12-01T11:02:00Z", attempt=2),
    ]  # fmt: skip
    answers = with_base(
        artifact(8, "waiver-base-junit-run-1-shard-1", created="2026-12-01T11:01:00Z"), jobs=jobs
    )
    document, _ = provenance(tmp_path, monkeypatch, answers, run(42, run_attempt=2), BASE_FLAGS)
    assert "base_order" not in document
