"""The reusable workflow's `replays-per-job` end to end under act, on the example: 5 replays
by 2 shards in jobs of 3 replays each, and 3 base replays by 2 shards in jobs of 3, every
replay reaching the gate under its own name, with the verdict that a job for every replay
gives (tests/container/test_workflow_act.py)."""

from __future__ import annotations

import re

import pytest

from helpers.support import EMPTY, KNOWN, ROUND_TRIP, classes
from helpers.workflow_support import (
    Repositories,
    WorkflowRun,
    commit_all,
    demo_inputs,
    run_workflow,
)

pytestmark = [pytest.mark.container, pytest.mark.slow]


@pytest.fixture(scope="module")
def three_a_job(act_ready: None, tmp_path_factory: pytest.TempPathFactory) -> WorkflowRun:
    repositories = Repositories(tmp_path_factory.mktemp("per-job"))
    demo = repositories.change("three-a-job")
    slugify = demo / "slugify.py"
    slugify.write_text(slugify.read_text().replace("def slugify", "# ASCII.\ndef slugify", 1))
    commit_all(demo, "a comment")
    inputs = demo_inputs(repositories.waiver_commit, **{"replays-per-job": 3, "base-replays": 3})
    return run_workflow(demo, repositories.base_commit, inputs)


def test_each_replay_job_runs_three_replays_of_its_shard(three_a_job: WorkflowRun) -> None:
    run = three_a_job
    named = r"\[waiver/waiver gate/((?:properties, then )?replay \d+, shard \d+)"
    # The property job runs the first cell: replays 1 to 3 of shard 1.
    assert set(re.findall(named, run.log)) == {
        "properties, then replay 1, shard 1", "replay 1, shard 2", "replay 4, shard 1",
        "replay 4, shard 2",
    }, run.log[-4000:]  # fmt: skip
    further = re.findall(r"Replay (\d+): the test command exited \d+\.", run.log)
    assert sorted(further) == ["2", "2", "3", "3", "5", "5"]
    assert run.artifact_names("waiver-junit-") == sorted(
        f"waiver-junit-run-{r}-shard-{s}" for r in range(1, 6) for s in (1, 2)
    )
    # One base job a shard, each running base replays 1 to 3.
    base = r"\[waiver/waiver gate/(base replay \d+, shard \d+)"
    assert set(re.findall(base, run.log)) == {"base replay 1, shard 1", "base replay 1, shard 2"}
    further = re.findall(r"Base replay (\d+): the test command exited \d+\.", run.log)
    assert sorted(further) == ["2", "2", "3", "3"]
    assert run.artifact_names("waiver-base-junit-") == sorted(
        f"waiver-base-junit-run-{r}-shard-{s}" for r in range(1, 4) for s in (1, 2)
    )


def test_the_verdict_is_the_one_a_job_for_every_replay_gives(three_a_job: WorkflowRun) -> None:
    report = three_a_job.report()
    assert classes(report) == {
        EMPTY: "stable_assertion_fail", KNOWN: "stable_pass", ROUND_TRIP: "unstable_assertion",
    }  # fmt: skip
    # The flipping test fails on odd replays: each replay ran with its own number.
    assert [(r["replay_pass"], r["replay_total"]) for r in report["rows"]] == [
        (0, 5), (5, 5), (2, 5)
    ]  # fmt: skip
    assert report["replays"] == {"count": 5, "read": 5, "errors": []}
    assert report["base"]["count"] == 3
