"""What a verdict cost: a run's jobs, as the API names and times them, summed by kind, the
minutes GitHub bills, and one plain run of the suite (waiver.decide.cost); and the line the
summary and the comment show (waiver.write.words.bill)."""

from __future__ import annotations

import pytest

from waiver.decide.cost import Cost, JobTiming, job_kind, verdict_cost
from waiver.write.report.report_sections import cost_json
from waiver.write.words.bill import bill_line, duration

TEST = "Run the assertion suite"


def job(name: str, seconds: float, tested: float | None = None) -> JobTiming:
    steps = {"Check out the change": 2.0, **({TEST: tested} if tested is not None else {})}
    return JobTiming(f"waiver / {name}", seconds, steps)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("waiver / plan", "plan"),
        ("waiver / properties, then replay 1, shard 1", "properties"),
        ("waiver / properties", "properties"),
        ("waiver / replay 12, shard 3", "replays"),
        ("waiver / base replay 1, shard 1", "base"),
        ("waiver / red-green, shard 2", "red-green"),
        ("waiver / change's tests, shard 1", "change tests"),
        ("waiver / gate", "gate"),
        ("outputs", "other"),
        ("waiver / replay 1, shard 1 (extra)", "other"),
        ("waiver / properties, then replay 2, shard 1", "other"),
    ],
)
def test_a_job_is_known_by_the_name_of_its_called_job(name: str, kind: str) -> None:
    assert job_kind(name) == kind


def test_the_jobs_are_summed_by_kind_billed_by_the_minute_and_set_against_a_plain_run() -> None:
    first = JobTiming(
        "waiver / properties, then replay 1, shard 1", 61.0,
        {"Run the property suite once": 5.0, TEST: 10.0, "Run this job's further replays": 20.0},
    )  # fmt: skip
    cost = verdict_cost([
        job("plan", 14.0),
        first,
        job("replay 1, shard 2", 59.0, tested=8.0),
        job("replay 2, shard 1", 60.0, tested=30.0),
        job("base replay 1, shard 1", 50.0, tested=30.0),
        job("gate", 30.0),
    ])  # fmt: skip
    # The property job's two replay steps, 30 s, are replays' time; the rest is properties'.
    assert cost == Cost(
        jobs=6, seconds={"plan": 14.0, "properties": 31.0, "replays": 149.0, "base": 50.0,
                         "gate": 30.0},
        billed_minutes=1 + 2 + 1 + 1 + 1 + 1, plain_run=18.0,
    )  # fmt: skip
    assert bill_line(cost_json(cost)) == (
        "**What this verdict cost:** 6 jobs, 4 min 34 s of runner time (GitHub bills 7 min): "
        "plan 14 s, properties 31 s, replays 2 min 29 s, base 50 s, gate 30 s. One plain run "
        "of the suite took 18 s: the verdict cost 15 of them."
    )


def test_a_run_without_replays_has_no_plain_run_to_set_it_against() -> None:
    cost = verdict_cost([job("properties", 12.4), job("gate", 0.0)])
    assert (cost.plain_run, cost.billed_minutes) == (None, 1)
    assert bill_line(cost_json(cost)) == (
        "**What this verdict cost:** 2 jobs, 12 s of runner time (GitHub bills 1 min): "
        "properties 12 s."
    )


@pytest.mark.parametrize(
    ("seconds", "said"), [(0.4, "0 s"), (59.6, "1 min"), (185, "3 min 5 s"), (7260, "2 h 1 min")]
)
def test_a_duration_is_said_in_the_units_a_reader_uses(seconds: float, said: str) -> None:
    assert duration(seconds) == said
