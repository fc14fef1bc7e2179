"""Read a run of the reusable workflow from act's log: each job's steps and their seconds,
and which steps run a test command (the rest of a job is its set-up)."""

from __future__ import annotations

import re

# `[waiver/waiver gate/replay 2, shard 1-3  ]   ✅  Success - Main <step> [1.2s]`
STEP_LINE = re.compile(
    r"^\[[^/]+/[^/]+/(?P<job>[^\]]+?)(?:-\d+)?\s*\]\s+(?:✅|❌)\s+(?:Success|Failure) - "
    r"(?:Pre |Main |Post )?(?P<step>.+?) \[(?P<duration>[0-9.a-zµ]+)\]$"
)
UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6, "ns": 1e-9}
# The steps that run a test command: the rest of a job is its set-up.
TEST_STEPS = (
    "Run the property suite once",
    "Run the assertion suite",
    "Run this job's further replays",
    "Run the assertion suite at the base",
    "Replay this shard's test files on the change's tree",
    "Replay this shard's tests on the base's code",
)


def seconds_of(duration: str) -> float:
    """A Go duration as act prints it (`1m2.5s`, `23.4ms`, `998µs`) in seconds."""
    parts = re.findall(r"([0-9.]+)(h|ms|µs|us|ns|m|s)", duration)
    return sum(float(number) * UNITS[unit] for number, unit in parts)


def job_steps(log: str) -> dict[str, list[tuple[str, float]]]:
    """Each job of a run (by its name, matrix cells apart), its steps with their seconds."""
    steps: dict[str, list[tuple[str, float]]] = {}
    for line in log.splitlines():
        match = STEP_LINE.match(line.strip())
        if match:
            steps.setdefault(match["job"], []).append(
                (match["step"], seconds_of(match["duration"]))
            )
    return steps


def set_up(steps: list[tuple[str, float]]) -> float:
    """A job's seconds but its test command's."""
    return sum(seconds for name, seconds in steps if name not in TEST_STEPS)


def kind_of(job: str) -> str:
    """`replay 2, shard 1` is a replay job; a job's kind is its name before the matrix."""
    return re.split(r" \d|,", job, maxsplit=1)[0].strip()
