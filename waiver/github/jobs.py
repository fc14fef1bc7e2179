"""A gate run's jobs as the REST API times them (every page): one attempt's, for what the
verdict cost (`waiver.decide.cost`), and every attempt's starts, for whether its base
replays came first (`waiver.decide.base_order`). A job or step that never started or
finished costs nothing here; one the API describes in another shape is an error."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from waiver.decide.base_order import JobStart
from waiver.decide.cost import JobTiming
from waiver.github.rest import Api, ApiFailed, read_time


def _seconds(item: Mapping[str, Any]) -> float:
    started, completed = item.get("started_at"), item.get("completed_at")
    if not isinstance(started, str) or not isinstance(completed, str):
        return 0.0
    start, end = read_time(started), read_time(completed)
    if start is None or end is None:
        raise ApiFailed("a job's start or completion is not a time")
    return max((end - start).total_seconds(), 0.0)


def _listed(api: Api, repository: str, run_id: int, path: str, query: str = "") -> list[Any]:
    """The jobs at `path` of run `run_id`, each an object with a name."""
    listed = api.pages(f"/repos/{repository}/actions/runs/{run_id}/{path}", query, key="jobs")
    for item in listed:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ApiFailed(f"a job of run {run_id} has no name")
    return listed


def run_jobs(api: Api, repository: str, run_id: int, attempt: int) -> list[JobTiming]:
    jobs = []
    for item in _listed(api, repository, run_id, f"attempts/{attempt}/jobs"):
        steps = item.get("steps", [])
        if not isinstance(steps, list):
            raise ApiFailed(f"a job of run {run_id} has no steps")
        timed = {
            step["name"]: _seconds(step)
            for step in steps
            if isinstance(step, dict) and isinstance(step.get("name"), str)
        }
        jobs.append(JobTiming(item["name"], _seconds(item), timed))
    return jobs


def job_starts(api: Api, repository: str, run_id: int) -> list[JobStart]:
    """When each job of run `run_id` started, in every attempt (`filter=all`: the API's
    default lists the latest attempt's alone)."""
    return [
        JobStart(
            item["name"], read_time(item.get("started_at")), item.get("conclusion") == "skipped"
        )
        for item in _listed(api, repository, run_id, "jobs", "filter=all")
    ]
