"""Measure the runner-seconds of a pull request with one edited test: the reusable workflow
as it was (a git ref, `main` by default: replays on the change's tree with the base's
harness restored, and a red-green job) against this checkout's (replays on the base's test
tree, and the change's own tests apart).

On the example, each workflow runs end to end under act (every job on this machine,
stand-ins for what needs github.com; tests/helpers/workflow_support.py) on the same change,
one edited test, with the inputs `waiver init` writes (`red-green-command` set), 5 replays
by 2 shards and no base replays, interleaved, after one untimed warm-up run of each. A run's
runner-seconds are the sum of every job's step times as act logs them, and its job count.

On a generated suite of 60,000 tests (bench/generate.py, with bench/edited.py's real test
modules, one test edited) the workflows differ in three places, each measured here as a
command or call on this machine: what each property and replay job does before its test
command (the harness restore, or the base's test tree's layout), the plan of the change's
tests (in the property job and in each of their jobs), and the change's-tests job's runs
of the edited test's file on the change's tree, `replays` times; the rest, the same in both
(each job's own set-up, one run of the whole suite per replay split over its shards, the
gate), is measured too. A workflow's runner-seconds are then those parts summed as its jobs
run them, each job's set-up taken from the act runs of the example.

Reported: both totals, their ratio (target at most 1.1), and the job counts. The section
"Reusable workflow under act" of bench/RESULTS.md is replaced with the tables.

Usage: python bench/workflow.py [--repeat 3] [--tests 60000] [--today main] [--out PATH]
Needs a Docker engine with the local base image waiver-base:bookworm, and act.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "tests"))

from edited import commit_change, make_repository  # noqa: E402  (bench/, on the path)
from run import ensure_set  # noqa: E402
from sections import WORKFLOW, write_section  # noqa: E402

from helpers.workflow_support import (  # noqa: E402  (the tests' act machinery, on the path above)
    Repositories,
    commit_all,
    demo_inputs,
    run_workflow,
)

RATIO_TARGET = 1.1
REPLAYS, SHARDS = 5, 2
# `[waiver/waiver gate/replay 2, shard 1-3  ]   ✅  Success - Main <step> [1.2s]`
STEP_LINE = re.compile(
    r"^\[[^/]+/[^/]+/(?P<job>[^\]]+?)(?:-\d+)?\s*\]\s+(?:✅|❌)\s+(?:Success|Failure) - "
    r"(?:Pre |Main |Post )?(?P<step>.+?) \[(?P<duration>[0-9.a-zµ]+)\]$"
)
UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6, "ns": 1e-9}
TEST_STEPS = ("Run the property suite once", "Run the assertion suite")
# The generated packages share module names: pytest imports them by path.
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib"]
EDITED_MODULE = "tests/pkg_0/test_mod_0.py"


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


def edit_one_test(demo: Path) -> None:
    """One registered test edited, as an honest refactor of its loop would."""
    test = demo / "tests" / "assertions" / "test_slug.py"
    test.write_text(test.read_text().replace("for case in CASES:", "for case in CASES[:]:"))


def red_green_command() -> str:
    from waiver.runners.pytest import PYTEST as RUNNER

    return RUNNER.red_green_command().replace(" python ", f' "{sys.executable}" ')


@dataclass
class Example:
    """Per workflow: each run's runner-seconds and job count, and each job kind's set-up."""

    seconds: dict[str, list[float]] = field(default_factory=lambda: {"today": [], "now": []})
    jobs: dict[str, int] = field(default_factory=dict)
    set_up: dict[str, dict[str, list[float]]] = field(
        default_factory=lambda: {"today": {}, "now": {}}
    )


def kind_of(job: str) -> str:
    """`replay 2, shard 1` is a replay job; a job's kind is its name before the matrix."""
    return re.split(r" \d|,", job, maxsplit=1)[0].strip()


def example_runs(folder: Path, today: Path, repeat: int) -> Example:
    repositories = {
        "today": Repositories(folder / "today", source=today),
        "now": Repositories(folder / "now"),
    }
    workflow = {"today": today / ".github/workflows/waiver-gate.yml"}
    inputs = {"base-replays": 0, "red-green-command": red_green_command()}
    measured = Example()
    for round_number in range(-1, repeat):
        for which, found in repositories.items():
            demo = found.change(f"{which}-{round_number}")
            edit_one_test(demo)
            commit_all(demo, "one edited test")
            run = run_workflow(
                demo, found.base_commit, demo_inputs(found.waiver_commit, **inputs),
                **({"workflow": workflow[which]} if which in workflow else {}),
            )  # fmt: skip
            if not run.artifact_names("waiver-junit-run-"):
                raise SystemExit(f"{which}: no replay job ran\n{run.log[-4000:]}")
            steps = job_steps(run.log)
            total = sum(seconds for job in steps.values() for _, seconds in job)
            print(f"{which} {round_number}: {total:.1f} runner-seconds, {len(steps)} jobs")
            if round_number < 0:
                continue  # the warm-up: the image is built
            measured.seconds[which].append(total)
            measured.jobs[which] = len(steps)
            for job, job_step_list in steps.items():
                measured.set_up[which].setdefault(kind_of(job), []).append(set_up(job_step_list))
    return measured


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def run_command(command: list[str], cwd: Path) -> None:
    subprocess.run(command, cwd=cwd, check=False, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)  # fmt: skip


@dataclass
class Large:
    suite: float  # one run of every test
    edited_file: float  # one run of the edited test's file
    restore_harness: float  # today's step before a test command
    lay_out: float  # this checkout's
    plan_today: float
    plan_now: float
    red_green: float  # one red-green run of the edited test, on the base's code


def large_suite(data: Path, tests: int, folder: Path) -> Large:
    """The parts that differ between the workflows, and the suite's own run, on `tests`."""
    from waiver.gate.change_plan import change_plan, red_green_tests
    from waiver.read.policy.settings import Flags, effective
    from waiver.read.trusted.git import GitRevision
    from waiver.runners.pytest import PYTEST as RUNNER
    from waiver.write.tree.restore import TrustedHarness, restore_locked_files
    from waiver.write.tree.tree_layout import TrustedTests, plan_of, restore_tests

    source = data / f"t{tests}"
    ensure_set(source, tests)
    work = folder / "repository"
    base = make_repository(source, work)
    commit_change(work, base, "one")
    suite = timed(lambda: run_command([*PYTEST, "tests", f"--junitxml={folder}/all.xml"], work))
    ran = (folder / "all.xml").read_text(encoding="utf-8")
    if 'errors="0"' not in ran:
        raise SystemExit(f"the suite did not run whole: {ran[:2000]}")
    edited_file = timed(
        lambda: run_command([*PYTEST, EDITED_MODULE, f"--junitxml={folder}/one.xml"], work)
    )
    edited_id = f"{EDITED_MODULE}::test_case_0"
    red_green = timed(
        lambda: run_command([*PYTEST, edited_id, f"--junitxml={folder}/rg.xml"], work)
    )
    root = str(work)

    def harness() -> TrustedHarness:
        revision = GitRevision(root, base)
        lock = str(work / "fixture.lock")
        return TrustedHarness(root, revision, lock, RUNNER.harness((), frozenset()))

    restore_harness = timed(lambda: restore_locked_files(harness()))

    def lay_out() -> None:
        source = TrustedTests(harness(), RUNNER.test_tree)
        restore_tests(source, plan_of(source))

    laid_out = timed(lay_out)
    subprocess.run(["git", "checkout", "--quiet", "--force", "HEAD"], cwd=work, check=True)
    settings = effective(None, Flags(registry=str(work / "known-tests.txt")), root)
    plan_today = timed(lambda: red_green_tests(GitRevision(root, base), settings, root))
    plan_now = timed(lambda: change_plan(GitRevision(root, base), settings, root))
    return Large(suite, edited_file, restore_harness, laid_out, plan_today, plan_now, red_green)


def large_totals(large: Large, example: Example) -> dict[str, tuple[float, int]]:
    """Each workflow's runner-seconds on the large suite and its job count: the example's
    job set-ups (without the parts measured on the large suite), and the large parts, as
    the jobs run them."""

    def median(which: str, kind: str) -> float:
        found = example.set_up[which].get(kind, [0.0])
        return statistics.median(found)

    # Each job's set-up on the example holds the example's harness restore or layout and
    # plans: those are replaced by the large suite's.
    properties_today = median("today", "properties") + large.restore_harness + large.plan_today
    properties_now = median("now", "properties") + large.lay_out + large.plan_now
    replay_today = median("today", "replay") + large.restore_harness + large.suite / SHARDS
    replay_now = median("now", "replay") + large.lay_out + large.suite / SHARDS
    gate = median("now", "gate")
    red_green_today = median("today", "red-green") + large.plan_today + REPLAYS * large.red_green
    change_tests = (
        median("now", "change's tests")
        + large.plan_now
        + REPLAYS * (large.red_green + large.edited_file)
    )
    jobs = REPLAYS * SHARDS
    today = properties_today + jobs * replay_today + SHARDS * red_green_today + gate
    now = properties_now + jobs * replay_now + change_tests + gate
    return {"today": (today, jobs + SHARDS + 2), "now": (now, jobs + 1 + 2)}


def section(example: Example, large: Large, repeat: int, today_ref: str, tests: int) -> str:
    medians = {which: statistics.median(found) for which, found in example.seconds.items()}
    ratio = medians["now"] / medians["today"]
    totals = large_totals(large, example)
    large_ratio = totals["now"][0] / totals["today"][0]
    met = {True: "yes", False: "no"}
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return "\n".join(
        [
            WORKFLOW,
            "",
            "Regenerate with `python bench/workflow.py` (needs a Docker engine with "
            "`waiver-base:bookworm`, and act).",
            "",
            f"- Date: {now}; {os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
            f"1-minute load average {os.getloadavg()[0]:.2f} at the end (the machine is shared)",
            f"- A pull request with one edited test, 5 replays by 2 shards, no base replays, "
            f"`red-green-command` set; today's workflow is `{today_ref}`'s (replays on the "
            "change's tree with the base's harness restored, a red-green job per shard), now's "
            "this checkout's (replays on the base's test tree, the change's tests apart, one "
            "job per shard that holds them).",
            f"- Example: {repeat} runs of each under act, interleaved, after a warm-up; "
            "runner-seconds are the sum of every job's step times as act logs them.",
            f"- Large suite: {tests:,} tests (bench/edited.py's modules), the parts that differ "
            "measured on it (one run of the whole suite "
            f"{large.suite:.1f} s, of the edited file {large.edited_file:.2f} s, the harness "
            f"restore {large.restore_harness:.2f} s, the test tree's layout {large.lay_out:.2f} s, "
            f"the plan {large.plan_now:.2f} s), summed as the jobs run them, each job's set-up "
            "from the example's runs.",
            "",
            "| pull request | today (runner-s) | now (runner-s) | jobs today / now | ratio | target | met |",
            "|---|---|---|---|---|---|---|",
            f"| example, under act | {medians['today']:.1f} | {medians['now']:.1f} "
            f"| {example.jobs['today']} / {example.jobs['now']} | {ratio:.2f} "
            f"| ≤ {RATIO_TARGET:g} | {met[ratio <= RATIO_TARGET]} |",
            f"| {tests:,} tests, from its parts | {totals['today'][0]:.1f} | {totals['now'][0]:.1f} "
            f"| {totals['today'][1]} / {totals['now'][1]} | {large_ratio:.2f} "
            f"| ≤ {RATIO_TARGET:g} | {met[large_ratio <= RATIO_TARGET]} |",
            "",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tests", type=int, default=60_000)
    parser.add_argument("--today", default="main", help="the git ref of today's workflow")
    parser.add_argument("--data", type=Path, default=BENCH / "data")
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="waiver-workflow-bench-") as scratch:
        folder = Path(scratch)
        today = folder / "today-source"
        today.mkdir()
        archive = subprocess.run(
            ["git", "archive", args.today], cwd=BENCH.parent, capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(today)], input=archive.stdout, check=True)
        large = large_suite(args.data, args.tests, folder / "large")
        print(large, flush=True)
        example = example_runs(folder / "example", today, args.repeat)
    text = section(example, large, args.repeat, args.today, args.tests)
    print(text)
    write_section(args.out, WORKFLOW, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
