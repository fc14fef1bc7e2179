"""Base replays are evidence only when each artifact the verdict reads was created strictly
before any job that runs the change's code began, in any attempt of the run
(waiver.decide.base_order): a late one, or a time that cannot be read, is named, never
passed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from waiver.decide.base_order import (
    CHANGE_CODE_KINDS,
    NO_EVIDENCE,
    JobStart,
    late_base_replays,
    unread_jobs,
)
from waiver.decide.cost import job_kind
from waiver.decide.provenance_rules import Artifact

T0 = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def base(replay: int, created: datetime | None) -> Artifact:
    return Artifact(100 + replay, f"waiver-base-junit-run-{replay}-shard-1", False, created)


def job(name: str, started: datetime | None, skipped: bool = False) -> JobStart:
    return JobStart(f"waiver / {name}", started, skipped)


# An honest run of the reusable workflow: the plan, the base replays, then every job that
# runs the change's code, then the gate.
HONEST_JOBS = [
    job("plan", at(0)),
    job("base replay 1, shard 1", at(20)),
    job("base replay 2, shard 1", at(20)),
    job("properties, then replay 1, shard 1", at(90)),
    job("replay 2, shard 1", at(150)),
    job("change's tests, shard 1", at(150)),
    job("gate", at(240)),
]
HONEST_BASE = [base(1, at(70)), base(2, at(75))]


def test_an_honest_ordering_is_evidence() -> None:
    assert late_base_replays(HONEST_BASE, HONEST_JOBS) is None


def test_a_run_without_base_replays_is_not_judged_by_its_times() -> None:
    assert late_base_replays([], []) is None
    assert late_base_replays([], [job("replay 1, shard 1", None)]) is None


def test_a_base_artifact_replaced_after_a_replay_job_began_is_named() -> None:
    # The replay job's code uploads a flipping base replay under the base's name: the
    # newest of that name, created while the change's code ran.
    forged = base(2, at(160))
    problem = late_base_replays([HONEST_BASE[0], forged], HONEST_JOBS)
    assert problem == (
        'waiver-base-junit-run-2-shard-1 created 2026-12-01T10:02:40Z after "properties, '
        f'then replay 1, shard 1" began 2026-12-01T10:01:30Z: {NO_EVIDENCE}'
    )


def test_an_artifact_created_the_second_a_change_job_began_is_late() -> None:
    problem = late_base_replays([base(1, at(90))], HONEST_JOBS)
    assert problem is not None and problem.startswith("waiver-base-junit-run-1-shard-1 created")


def test_a_base_job_re_run_after_an_earlier_attempt_s_change_jobs_is_late() -> None:
    # Attempt 1 ran the change's code from 10:01:30; attempt 2 re-ran a base replay alone.
    jobs = [*HONEST_JOBS, job("base replay 2, shard 1", at(600))]
    problem = late_base_replays([HONEST_BASE[0], base(2, at(640))], jobs)
    assert problem is not None and problem.startswith(
        'waiver-base-junit-run-2-shard-1 created 2026-12-01T10:10:40Z after "properties'
    )


def test_a_job_github_skipped_ran_nothing() -> None:
    # A base replay failed, so the jobs after it were skipped; re-run, it came before any
    # job that ran the change's code.
    jobs = [
        job("properties, then replay 1, shard 1", at(30), skipped=True),
        job("base replay 1, shard 1", at(300)),
        job("properties, then replay 1, shard 1", at(400)),
    ]
    assert late_base_replays([base(1, at(350))], jobs) is None


@pytest.mark.parametrize(
    ("artifacts", "jobs", "said"),
    [
        pytest.param(
            [base(1, at(70)), base(2, None)], HONEST_JOBS,
            f"waiver-base-junit-run-2-shard-1 has no creation time that can be read; {NO_EVIDENCE}",
            id="an artifact's creation",
        ),
        pytest.param(
            HONEST_BASE, [*HONEST_JOBS, job("red-green, shard 1", None)],
            f'job "red-green, shard 1" has no start time that can be read; {NO_EVIDENCE}',
            id="a change job's start",
        ),
        pytest.param(
            HONEST_BASE, [job("plan", at(0)), job("base replay 1, shard 1", at(20))],
            "no job of the run that runs the change's code is listed, so nothing shows that "
            f"its base replays came first; {NO_EVIDENCE}",
            id="no change job listed",
        ),
    ],
)  # fmt: skip
def test_a_time_that_cannot_be_read_fails_closed(
    artifacts: list[Artifact], jobs: list[JobStart], said: str
) -> None:
    assert late_base_replays(artifacts, jobs) == said


def test_a_job_that_runs_no_change_code_may_start_any_time() -> None:
    jobs = [*HONEST_JOBS, job("base replay 3, shard 1", None), job("gate", at(1))]
    assert late_base_replays(HONEST_BASE, jobs) is None


def test_jobs_that_cannot_be_read_name_why() -> None:
    assert unread_jobs("GET /x answered HTTP 500") == (
        "the jobs of the run cannot be read (GET /x answered HTTP 500), so nothing shows that "
        f"its base replays came before the change's code ran; {NO_EVIDENCE}"
    )


JOB_NAMES = st.sampled_from(
    [
        "plan", "gate", "review", "base replay 1, shard 1", "base replay 2, shard 2",
        "properties", "properties, then replay 1, shard 1", "replay 2, shard 1",
        "replay 3, shard 2", "change's tests, shard 1", "red-green, shard 2",
    ]
) | st.text(max_size=40)  # fmt: skip
# A time to the second, as the API gives it, in any zone it might be written in; few
# seconds, so that an artifact and a job often share one.
ZONES = st.sampled_from([UTC, timezone(timedelta(hours=2)), timezone(timedelta(hours=-5))])
TIMES = st.none() | st.builds(
    lambda seconds, zone: at(seconds).astimezone(zone), st.integers(0, 12), ZONES
)


@given(
    st.lists(TIMES, min_size=1, max_size=4),
    st.lists(st.tuples(JOB_NAMES, TIMES, st.booleans()), max_size=12),
)
def test_no_ordering_in_which_a_base_artifact_postdates_a_change_job_s_start_is_evidence(
    created: list[datetime | None], listed: list[tuple[str, datetime | None, bool]]
) -> None:
    artifacts = [base(n, moment) for n, moment in enumerate(created, 1)]
    jobs = [job(name, started, skipped) for name, started, skipped in listed]
    ran = [j for j in jobs if not j.skipped and job_kind(j.name) in CHANGE_CODE_KINDS]
    problem = late_base_replays(artifacts, jobs)
    trusted = (
        bool(ran)
        and all(a.created_at is not None for a in artifacts)
        and all(j.started_at is not None for j in ran)
        and all(
            a.created_at < j.started_at
            for a in artifacts
            for j in ran
            if a.created_at is not None and j.started_at is not None
        )
    )
    assert (problem is None) == trusted
    if problem is not None:
        assert problem.endswith(NO_EVIDENCE)
