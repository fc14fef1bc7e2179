"""A gate run's jobs as the REST API times them (every page of one attempt's jobs): what the
verdict cost (`waiver.decide.cost`). A job or step that never started or finished costs
nothing here; one the API describes in another shape is an error."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from waiver.decide.cost import JobTiming
from waiver.github.rest import Api, ApiFailed


def _seconds(item: Mapping[str, Any]) -> float:
    started, completed = item.get("started_at"), item.get("completed_at")
    if not isinstance(started, str) or not isinstance(completed, str):
        return 0.0
    try:
        spent = (
            datetime.fromisoformat(completed.replace("Z", "+00:00"))
            - datetime.fromisoformat(started.replace("Z", "+00:00"))
        ).total_seconds()
    except (ValueError, TypeError):
        raise ApiFailed("a job's start or completion is not a time") from None
    return max(spent, 0.0)


def run_jobs(api: Api, repository: str, run_id: int, attempt: int) -> list[JobTiming]:
    listed = api.pages(
        f"/repos/{repository}/actions/runs/{run_id}/attempts/{attempt}/jobs", key="jobs"
    )
    jobs = []
    for item in listed:
        name = item.get("name") if isinstance(item, dict) else None
        steps = item.get("steps", []) if isinstance(item, dict) else None
        if not isinstance(item, dict) or not isinstance(name, str) or not isinstance(steps, list):
            raise ApiFailed(f"a job of run {run_id} has no name or steps")
        timed = {
            step["name"]: _seconds(step)
            for step in steps
            if isinstance(step, dict) and isinstance(step.get("name"), str)
        }
        jobs.append(JobTiming(name, _seconds(item), timed))
    return jobs
