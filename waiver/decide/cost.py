"""What a verdict cost: the gate run's jobs, as the API times them, summed by what each job
does, and set against one plain run of the suite. Pure; the jobs are read elsewhere
(`waiver.github.jobs`).

A job of the reusable gate workflow is known by its name as the API spells a called
workflow's job (`waiver / replay 2, shard 1`): the part after the last ` / `. The property
job also runs the replays of the first replay job's cell (`properties, then replay 1, shard
1`): its replay steps count as replays, the rest of it as properties. GitHub bills each job
by the minute, rounded up. One plain run of the suite is what the first replay's shards
spent in their test command (the step `Run the assertion suite`), the most a team would pay
without the gate.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

CHANGE_TESTS = "change tests"
KINDS = ("plan", "properties", "replays", "base", "red-green", CHANGE_TESTS, "gate", "other")
TEST_STEP = "Run the assertion suite"
# The steps of a job that replay the suite: in the property job, replays' time.
REPLAY_STEPS = (TEST_STEP, "Run this job's further replays")
_KIND_OF = (
    (re.compile(r"plan\Z"), "plan"),
    (re.compile(r"properties(, then replay 1, shard 1)?\Z"), "properties"),
    (re.compile(r"replay \d+, shard \d+\Z"), "replays"),
    (re.compile(r"base replay \d+, shard \d+\Z"), "base"),
    (re.compile(r"red-green, shard \d+\Z"), "red-green"),
    (re.compile(r"change's tests, shard \d+\Z"), CHANGE_TESTS),
    (re.compile(r"gate\Z"), "gate"),
)
_FIRST_REPLAY = re.compile(r"(properties, then )?replay 1, shard \d+\Z")


@dataclass(frozen=True)
class JobTiming:
    name: str  # as the API names it
    seconds: float  # from its start to its completion
    steps: Mapping[str, float]  # each step's seconds, by name


@dataclass(frozen=True)
class Cost:
    jobs: int
    seconds: Mapping[str, float]  # runner-seconds by kind, in the order of KINDS
    billed_minutes: int  # each job rounded up to the minute, as GitHub bills it
    plain_run: float | None  # one plain run of the suite: the first replay's test steps


def called_name(name: str) -> str:
    """The reusable workflow's own name of a job, as the API spells a called workflow's
    job (`waiver / replay 2, shard 1`): the part after the last ` / `."""
    return name.rsplit(" / ", 1)[-1]


def job_kind(name: str) -> str:
    called = called_name(name)
    for pattern, kind in _KIND_OF:
        if pattern.match(called):
            return kind
    return "other"


def verdict_cost(jobs: Iterable[JobTiming]) -> Cost:
    listed = list(jobs)
    seconds = dict.fromkeys(KINDS, 0.0)
    plain: float | None = None
    for job in listed:
        kind = job_kind(job.name)
        if kind == "properties":
            replayed = min(sum(job.steps.get(step, 0.0) for step in REPLAY_STEPS), job.seconds)
            seconds["replays"] += replayed
            seconds[kind] += job.seconds - replayed
        else:
            seconds[kind] += job.seconds
        tested = job.steps.get(TEST_STEP)
        if tested is not None and _FIRST_REPLAY.match(called_name(job.name)):
            plain = (plain or 0.0) + tested
    return Cost(
        jobs=len(listed),
        seconds={kind: spent for kind, spent in seconds.items() if spent},
        billed_minutes=sum(math.ceil(job.seconds / 60) for job in listed),
        plain_run=plain,
    )
