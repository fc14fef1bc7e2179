"""Measure what the reusable workflow's harness restore costs, under act, in one run.

The reusable workflow runs end to end under act (jobs on this machine, stand-ins for
what needs github.com; see tests/helpers/workflow_support.py) on a comment-only change to the
bundled example: properties, 5 replays by 2 shards, 3 base replays by 2 shards, the gate.
It is run with `harness-from-base: true` (the default: every replay job checks waiver out
and restores the base commit's harness from waiver's image) and `false` (no waiver in the
replay jobs at all), interleaved, after one untimed warm-up run that builds the image.

Reported: the wall time of each act run, the ratio of the medians (target at most 2.5
times), and the set-up of a replay job before its test command (the sum of the step times
act logs; target ≤ 3 s with a warm cache), both in those runs, where 16 matrix jobs share
the machine's cores, and in runs of a single replay job (1 replay, 1 shard, no base
replays), where it has them to itself. The section "Reusable workflow under act" of
bench/RESULTS.md is replaced with the table.

Usage: python bench/workflow.py [--repeat 3] [--out PATH]
Needs a Docker engine with the local base image waiver-base:bookworm, and act.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "tests"))

from helpers.workflow_support import (  # noqa: E402  (the tests' act machinery, on the path above)
    Repositories,
    WorkflowRun,
    commit_all,
    demo_inputs,
    run_workflow,
)

SECTION = "## Reusable workflow under act"
NEXT_SECTION = "## Action start-up"
RATIO_TARGET = 2.5
SET_UP_TARGET = 3.0
TEST_STEP = "Run the assertion suite"
# `[waiver/waiver gate/replay 2, shard 1-3  ]   ✅  Success - Main <step> [1.2s]`
STEP_LINE = re.compile(
    r"^\[[^/]+/[^/]+/(?P<job>replay \d+, shard \d+)[^\]]*\]\s+✅\s+Success - Main "
    r"(?P<step>.+?) \[(?P<duration>[0-9.a-zµ]+)\]$"
)
UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6, "ns": 1e-9}


def seconds_of(duration: str) -> float:
    """A Go duration as act prints it (`1m2.5s`, `23.4ms`, `998µs`) in seconds."""
    parts = re.findall(r"([0-9.]+)(h|ms|µs|us|ns|m|s)", duration)
    return sum(float(number) * UNITS[unit] for number, unit in parts)


def replay_job_steps(log: str) -> dict[str, list[tuple[str, float]]]:
    """Per replay job of the change, its steps in order with their seconds."""
    steps: dict[str, list[tuple[str, float]]] = {}
    for line in log.splitlines():
        match = STEP_LINE.match(line.strip())
        if match:
            steps.setdefault(match["job"], []).append(
                (match["step"], seconds_of(match["duration"]))
            )
    return steps


def set_up_and_test(log: str) -> list[tuple[float, float]]:
    """Per replay job of the change: (seconds before the test command, of the command)."""
    found = []
    for done in replay_job_steps(log).values():
        names = [name for name, _ in done]
        if TEST_STEP in names:
            index = names.index(TEST_STEP)
            found.append((sum(seconds for _, seconds in done[:index]), done[index][1]))
    return found


def one_run(
    repositories: Repositories, name: str, harness_from_base: bool, **matrix: int
) -> WorkflowRun:
    demo = repositories.change(name)
    slugify = demo / "slugify.py"
    slugify.write_text("# Slugs are ASCII.\n" + slugify.read_text())
    commit_all(demo, "a comment")
    inputs = demo_inputs(
        repositories.waiver_commit, **{"harness-from-base": harness_from_base, **matrix}
    )
    run = run_workflow(demo, repositories.base_commit, inputs)
    if not run.artifact_names("waiver-junit-run-"):
        raise SystemExit(f"{name}: no replay job ran\n{run.log[-4000:]}")
    return run


@dataclass
class Measured:
    wall: dict[bool, list[float]] = field(default_factory=lambda: {True: [], False: []})
    # (set-up, test command) per replay job, in the full matrix and alone.
    matrix_jobs: list[tuple[float, float]] = field(default_factory=list)
    lone_jobs: list[tuple[float, float]] = field(default_factory=list)


def measure(repeat: int, folder: Path) -> Measured:
    repositories = Repositories(folder)
    one_run(repositories, "warm-up", True)
    measured = Measured()
    for round_number in range(repeat):
        for harness_from_base in (True, False):
            name = f"round-{round_number}-{'harness' if harness_from_base else 'plain'}"
            run = one_run(repositories, name, harness_from_base)
            measured.wall[harness_from_base].append(run.seconds)
            if harness_from_base:
                measured.matrix_jobs += set_up_and_test(run.log)
            print(f"{name}: {run.seconds:.1f} s", flush=True)
        lone = one_run(
            repositories, f"round-{round_number}-lone", True,
            replays=1, shards=1, **{"base-replays": 0},
        )  # fmt: skip
        measured.lone_jobs += set_up_and_test(lone.log)
    return measured


def job_row(label: str, jobs: list[tuple[float, float]]) -> str:
    set_up = [first for first, _ in jobs]
    tests = statistics.median(second for _, second in jobs)
    met = "yes" if max(set_up) <= SET_UP_TARGET else "no"
    return (
        f"| {label} ({len(jobs)} jobs; their test command: median {tests:.2f} s) "
        f"| {statistics.median(set_up):.2f} | {min(set_up):.2f}-{max(set_up):.2f} "
        f"| ≤ {SET_UP_TARGET:g} s | {met} |"
    )


def section(measured: Measured, repeat: int) -> str:
    wall = measured.wall
    with_harness, without = (statistics.median(wall[flag]) for flag in (True, False))
    ratio = with_harness / without
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    rows = [
        "| measured | median (s) | min-max (s) | target | met |",
        "|---|---|---|---|---|",
        f"| act run, `harness-from-base: true` | {with_harness:.1f} "
        f"| {min(wall[True]):.1f}-{max(wall[True]):.1f} | — | — |",
        f"| act run, `harness-from-base: false` | {without:.1f} "
        f"| {min(wall[False]):.1f}-{max(wall[False]):.1f} | — | — |",
        f"| ratio of the medians | {ratio:.2f} | — | ≤ {RATIO_TARGET:g} "
        f"| {'yes' if ratio <= RATIO_TARGET else 'no'} |",
        job_row("replay job set-up, in the full matrix", measured.matrix_jobs),
        job_row("replay job set-up, a job alone", measured.lone_jobs),
    ]
    return "\n".join(
        [
            SECTION,
            "",
            "Regenerate with `python bench/workflow.py` (needs a Docker engine with "
            "`waiver-base:bookworm`, and act).",
            "",
            f"- Date: {now}; {os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
            f"1-minute load average {os.getloadavg()[0]:.2f} at the end (the machine is shared)",
            f"- Repeats: {repeat}, interleaved, after one untimed warm-up run (image built); "
            "each round also runs a single replay job alone.",
            "- Each run: the reusable workflow under act on a comment-only change to the "
            "example, 5 replays by 2 shards and 3 base replays by 2 shards, all jobs on this "
            "machine (act runs the matrix jobs side by side on its 2 cores).",
            "- Set-up: per replay job with `harness-from-base: true`, the steps before the "
            "test command as act times them (naming waiver, its checkout and move, the "
            "change's checkout, the image step, the harness restore), warm; the met column "
            "holds the slowest job to the target. In the full matrix the jobs share 2 cores "
            "(compare their test command's time with the lone job's).",
            "",
            *rows,
            "",
        ]
    )


def write_section(out: Path, text: str) -> None:
    """Replace this section of `out`; a new one goes before the start-up section (whose
    script rewrites everything from its heading on), else at the end."""
    existing = out.read_text(encoding="utf-8") if out.exists() else ""
    if f"\n{SECTION}\n" in existing:
        before, _, rest = existing.partition(f"\n{SECTION}\n")
        after = rest.partition("\n## ")
        tail = f"\n## {after[2]}" if after[1] else ""
        out.write_text(f"{before}\n{text}{tail}", encoding="utf-8")
    elif f"\n{NEXT_SECTION}\n" in existing:
        before, _, rest = existing.partition(f"\n{NEXT_SECTION}\n")
        out.write_text(f"{before}\n{text}\n{NEXT_SECTION}\n{rest}", encoding="utf-8")
    else:
        out.write_text(f"{existing.rstrip()}\n\n{text}", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="waiver-workflow-bench-") as folder:
        measured = measure(args.repeat, Path(folder))
    text = section(measured, args.repeat)
    print(text)
    write_section(args.out, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
