"""Whether a gate run's base replays came before any job ran the change's code. Pure: the
artifacts' and jobs' times are read elsewhere (`waiver.github.artifacts`,
`waiver.github.jobs`).

A job that runs the change's code can reach the run's artifact token, and with it upload or
replace any artifact of the run, a base replay's too (docs/limits.md). The reusable
workflow runs every base replay before the first such job, so in an honest run each base
replay artifact the verdict reads was created strictly before the earliest start of any
job that runs the change's code, in any attempt of the run (a base job re-run after the
change's jobs ran makes a late artifact, as a forgery does). One created later, or a time
that cannot be read, could be the change's: the base replays are then no evidence, and
the verdict fails, naming the artifact, its time and the job. A job GitHub skipped ran
nothing and counts for nothing; a run without base replays is not judged here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from waiver.decide.cost import CHANGE_TESTS, called_name, job_kind
from waiver.decide.provenance_rules import Artifact

# The kinds of job (`waiver.decide.cost.job_kind`) that run the change's code.
CHANGE_CODE_KINDS = frozenset({"properties", "replays", CHANGE_TESTS, "red-green"})
NO_EVIDENCE = (
    "a job that runs the change's code can upload artifacts under any name, so the base "
    "replays are no evidence: start a new run of the gate (push a commit, or close and reopen the pull "
    "request); a re-run of the same run keeps the jobs that already ran"
)


@dataclass(frozen=True)
class JobStart:
    """When one job of a run, in any attempt, started, as the API says."""

    name: str  # as the API names it
    started_at: datetime | None  # None: the API gave no time that can be read
    skipped: bool  # GitHub skipped it: it never ran


def _api_time(moment: datetime) -> str:
    """A time as the API writes it: ISO 8601 in UTC, to the second, with `Z`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def unread_jobs(why: str) -> str:
    """Why the base replays are no evidence when the run's jobs cannot be read."""
    return (
        f"the jobs of the run cannot be read ({why}), so nothing shows that its base replays "
        f"came before the change's code ran; {NO_EVIDENCE}"
    )


def late_base_replays(base: Sequence[Artifact], jobs: Sequence[JobStart]) -> str | None:
    """Why the base replay artifacts `base` (those the verdict would read) are no evidence,
    given every job of the run in every attempt; None when each was created strictly
    before the earliest start of a job that runs the change's code, or there are none."""
    if not base:
        return None
    for artifact in base:
        if artifact.created_at is None:
            return f"{artifact.name} has no creation time that can be read; {NO_EVIDENCE}"
    # Only jobs of these kinds are named in a message: their called names match one of
    # `job_kind`'s patterns, so no text of the caller's workflow reaches the status.
    running = [job for job in jobs if not job.skipped and job_kind(job.name) in CHANGE_CODE_KINDS]
    starts = []
    for job in running:
        if job.started_at is None:
            return (
                f'job "{called_name(job.name)}" has no start time that can be read; {NO_EVIDENCE}'
            )
        starts.append((job.started_at, job))
    if not starts:
        return (
            "no job of the run that runs the change's code is listed, so nothing shows that "
            f"its base replays came first; {NO_EVIDENCE}"
        )
    first_start, first = min(starts, key=lambda start: start[0])
    for artifact in base:
        created = artifact.created_at
        if created is not None and created >= first_start:
            return (
                f'{artifact.name} created {_api_time(created)} after "{called_name(first.name)}" '
                f"began {_api_time(first_start)}: {NO_EVIDENCE}"
            )
    return None
