"""Measure the runner-seconds of one pull request's verdict through the reusable workflow as
it is (.github/workflows/waiver-gate.yml: a plan job that runs none of the change's code,
then the property job, which also runs replay 1 of shard 1, and the replay jobs run the
base's test tree against the change's code, the change's new and edited tests run in jobs
of their own),
three ways: without base replays; with base replays (the suite replayed at the base commit
in jobs of their own); and with base evidence from the history (the default branch's run of
the base commit, read by the report workflow's gate: no base replay job).

The pull request edits one registered test, with the inputs `waiver init` writes
(`red-green-command` set), 5 replays by 2 shards; base replays are 5, as many as the
change's.

On the example, the workflow runs end to end under act (every job on this machine,
stand-ins for what needs github.com; tests/helpers/workflow_support.py) without and with
base replays, interleaved, after one untimed warm-up run of each. A run's runner-seconds are
the sum of every job's step times as act logs them. With base evidence from the history the
gate workflow runs the very jobs it runs without base replays: only the report workflow's
gate reads more, which is measured on the large suite.

On a generated suite of 60,000 tests (bench/generate.py, with bench/edited.py's real test
modules, one test edited) each job's work that grows with the suite is measured on this
machine: one run of the whole suite (split over the shards of a replay, the same at the
base), the base's test tree's layout, the plan of the change's tests, the edited test's
file and its red-green run (`replays` times each in the change's tests' job), and the gate
command of the gate job and of the report workflow: without base evidence, with the base
replays' reports, and with a history of 30 runs of the default branch whose newest replayed
the base commit (the report's gate reads the history in all three; only in the third does
it hold the base). Each job's own steps (checkouts, image, cache) are taken from the
example's act runs. The report workflow's other steps are the same in all three and are
left out of all three.

Reported: each verdict's runner-seconds and jobs, against the verdict without base replays
(target: with base evidence from the history, no more). The section "Reusable workflow
under act" of bench/RESULTS.md is replaced with the tables.

Usage: python bench/workflow.py [--repeat 2] [--tests 60000] [--out PATH]
Needs a Docker engine with the local base image waiver-base:bookworm, and act.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "tests"))

from act_log import TEST_STEPS, job_steps, kind_of, set_up  # noqa: E402  (bench/, on the path)
from edited import commit_change, make_repository  # noqa: E402
from run import ensure_set, gate_command, measure, warm_page_cache  # noqa: E402
from sections import WORKFLOW, write_section  # noqa: E402

from helpers.workflow_support import (  # noqa: E402  (the tests' act machinery, on the path above)
    Repositories,
    commit_all,
    demo_inputs,
    run_workflow,
)

REPLAYS, SHARDS, BASE_REPLAYS = 5, 2, 5
# The gate commands differ by tenths of a second on the large suite, less than one run's
# spread on a shared machine: each is the median of this many runs, interleaved.
GATE_RUNS = 9
HISTORY_RUNS = 30
VERDICTS = {
    "without": "without base replays",
    "with": f"with {BASE_REPLAYS} base replays",
    "history": "with base evidence from the history",
}
PROPERTY_STEP, GATE_STEP = TEST_STEPS[0], "Classify every test id"
# The generated packages share module names: pytest imports them by path.
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib"]
EDITED_MODULE = "tests/pkg_0/test_mod_0.py"


def edit_one_test(demo: Path) -> None:
    """One registered test edited, as an honest refactor of its loop would."""
    test = demo / "tests" / "assertions" / "test_slug.py"
    test.write_text(test.read_text().replace("for case in CASES:", "for case in CASES[:]:"))


def red_green_command() -> str:
    from waiver.runners.pytest import PYTEST as RUNNER

    return RUNNER.red_green_command().replace(" python ", f' "{sys.executable}" ')


@dataclass
class Example:
    """Each run's runner-seconds and job count, without and with base replays; each job
    kind's set-up, and the seconds of the steps the large suite's model replaces."""

    seconds: dict[str, list[float]] = field(default_factory=lambda: {"without": [], "with": []})
    jobs: dict[str, int] = field(default_factory=dict)
    set_up: dict[str, list[float]] = field(default_factory=dict)
    steps: dict[str, list[float]] = field(default_factory=dict)

    def median_set_up(self, kind: str) -> float:
        return statistics.median(self.set_up[kind])

    def median_step(self, name: str) -> float:
        return statistics.median(self.steps[name])


def example_runs(folder: Path, repeat: int) -> Example:
    repositories = Repositories(folder)
    measured = Example()
    for round_number in range(-1, repeat):
        for which, base_replays in (("without", 0), ("with", BASE_REPLAYS)):
            demo = repositories.change(f"{which}-{round_number}")
            edit_one_test(demo)
            commit_all(demo, "one edited test")
            inputs = {"base-replays": base_replays, "red-green-command": red_green_command()}
            run = run_workflow(
                demo, repositories.base_commit, demo_inputs(repositories.waiver_commit, **inputs)
            )
            ran = (
                len(run.artifact_names("waiver-junit-run-")),
                len(run.artifact_names("waiver-base-junit-run-")),
            )
            if ran != (REPLAYS * SHARDS, base_replays * SHARDS):
                raise SystemExit(f"{which}: replays and base replays {ran}\n{run.log[-4000:]}")
            steps = job_steps(run.log)
            total = sum(seconds for job in steps.values() for _, seconds in job)
            print(f"{which} {round_number}: {total:.1f} runner-seconds, {len(steps)} jobs")
            if round_number < 0:
                continue  # the warm-up: the image is built
            measured.seconds[which].append(total)
            measured.jobs[which] = len(steps)
            for job, job_step_list in steps.items():
                measured.set_up.setdefault(kind_of(job), []).append(set_up(job_step_list))
                for name, seconds in job_step_list:
                    if name in (PROPERTY_STEP, GATE_STEP):
                        measured.steps.setdefault(name, []).append(seconds)
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
    red_green: float  # one red-green run of the edited test
    lay_out: float  # the base's test tree over the change's checkout
    plan: float  # the change's tests' plan
    gate: dict[str, float]  # the gate command's median seconds, by GATES' names


# The gate commands of the gate job and the report workflow, by what they read beside the
# replays: nothing, the base replays, a history that does or does not hold the base.
GATES = {
    "plain": (),
    "base": ("base",),
    "history": ("other",),
    "history and base": ("other", "base"),
    "history of the base": ("history",),
}


def recorded_history(test_ids: Sequence[str], newest_head: str) -> bytes:
    """The default branch's last HISTORY_RUNS hourly runs, every test passing, the newest
    having replayed `newest_head` REPLAYS times, as `waiver history record` writes it."""
    from waiver.decide.history_fold import History, HistoryRun, TestHistory
    from waiver.write.history.history_file import history_bytes

    now = datetime.datetime.now(datetime.UTC)
    runs = tuple(
        HistoryRun(f"{n:040x}", now - datetime.timedelta(hours=HISTORY_RUNS - n), "h",
                   len(test_ids), 0, False,
                   newest_head if n == HISTORY_RUNS - 1 else f"{n:040x}", REPLAYS)
        for n in range(HISTORY_RUNS)
    )  # fmt: skip
    steady = TestHistory("P" * HISTORY_RUNS, (), False, None)
    return history_bytes(History(runs, dict.fromkeys(test_ids, steady)))


def gate_seconds(work: Path, base: str, folder: Path) -> dict[str, float]:
    """The median seconds of each of GATES on the large suite, GATE_RUNS runs interleaved;
    each must read its base evidence as asked."""
    first = folder / "first"
    measure([*gate_command(first), "--trusted-ref", base], work, first)
    report = json.loads((first / "waiver.json").read_text(encoding="utf-8"))
    ids = [row["test_id"] for row in report["rows"]]
    histories = {"other": folder / "other.json.gz", "history": folder / "base.json.gz"}
    histories["other"].write_bytes(recorded_history(ids, "f" * 40))
    histories["history"].write_bytes(recorded_history(ids, base))
    flags = {
        "base": ["--base-reports", "reports", "--base-replays", str(REPLAYS)],
        "other": ["--history", str(histories["other"])],
        "history": ["--history", str(histories["history"])],
    }
    runs: dict[str, list[float]] = {name: [] for name in GATES}
    warm_page_cache(work)
    for attempt in range(GATE_RUNS):
        for name, reads in GATES.items():
            logs = folder / f"{attempt}-{name.replace(' ', '-')}"
            command = [*gate_command(logs), "--trusted-ref", base]
            run = measure([*command, *(flag for read in reads for flag in flags[read])], work, logs)
            written = json.loads((logs / "waiver.json").read_text(encoding="utf-8"))
            base_read = "base" in written
            if run.exit_code not in (0, 1) or base_read != (name not in ("plain", "history")):
                raise SystemExit(
                    f"{name}: exit {run.exit_code}, base read {base_read}\n{run.stderr}"
                )
            runs[name].append(run.seconds)
    return {name: statistics.median(seconds) for name, seconds in runs.items()}


def large_suite(data: Path, tests: int, folder: Path) -> Large:
    """The work that grows with the suite, on `tests`."""
    from waiver.gate.change_plan import change_plan
    from waiver.read.policy.settings import Flags, effective
    from waiver.read.trusted.git import GitRevision
    from waiver.runners.pytest import PYTEST as RUNNER
    from waiver.write.tree.restore import TrustedHarness
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

    def lay_out() -> None:
        harness = TrustedHarness(
            root, GitRevision(root, base), str(work / "fixture.lock"),
            RUNNER.harness((), frozenset()),
        )  # fmt: skip
        trusted = TrustedTests(harness, RUNNER.test_tree)
        restore_tests(trusted, plan_of(trusted))

    laid_out = timed(lay_out)
    subprocess.run(["git", "checkout", "--quiet", "--force", "HEAD"], cwd=work, check=True)
    settings = effective(None, Flags(registry=str(work / "known-tests.txt")), root)
    plan = timed(lambda: change_plan(GitRevision(root, base), settings, root))
    gate = gate_seconds(work, base, folder / "gates")
    return Large(suite, edited_file, red_green, laid_out, plan, gate)


def large_totals(large: Large, example: Example) -> dict[str, tuple[float, int, str]]:
    """Each verdict's runner-seconds on the large suite, its job count and its parts: each
    job's own steps from the example, the work that grows with the suite from the large
    suite, as the jobs run them; and the report workflow's gate."""
    plan_job = example.median_set_up("plan") + large.plan
    # The property suite, then replay 1 of shard 1: the replay jobs run every other cell.
    property_job = (
        example.median_set_up("properties") + large.lay_out
        + example.median_step(PROPERTY_STEP) + large.suite / SHARDS
    )  # fmt: skip
    replay_jobs = (REPLAYS * SHARDS - 1) * (
        example.median_set_up("replay") + large.lay_out + large.suite / SHARDS
    )
    base_jobs = (
        BASE_REPLAYS * SHARDS * (example.median_set_up("base replay") + large.suite / SHARDS)
    )
    change_job = (
        example.median_set_up("change's tests") + large.plan
        + REPLAYS * (large.edited_file + large.red_green)
    )  # fmt: skip
    # The example's gate step read the example's reports; the large suite's gate replaces it.
    gate_job = example.median_set_up("gate") - example.median_step(GATE_STEP)
    common = plan_job + property_job + replay_jobs + change_job + gate_job
    # The plan, the property job, the other replay jobs, the change's tests, the gate.
    jobs = 1 + 1 + (REPLAYS * SHARDS - 1) + 1 + 1
    parts = {
        "without": (0.0, large.gate["plain"], large.gate["history"]),
        "with": (base_jobs, large.gate["base"], large.gate["history and base"]),
        "history": (0.0, large.gate["plain"], large.gate["history of the base"]),
    }
    totals = {}
    for which, (base, gate, report) in parts.items():
        words = (
            f"plan {plan_job:.0f}, properties and replay 1 of shard 1 {property_job:.0f}, "
            f"other replays {replay_jobs:.0f}, base {base:.0f}, "
            f"change's tests {change_job:.0f}, gate {gate_job + gate:.0f}, report's gate "
            f"{report:.1f}"
        )
        totals[which] = (
            common + base + gate + report,
            jobs + (BASE_REPLAYS * SHARDS if base else 0),
            words,
        )
    return totals


def row(where: str, which: str, seconds: float, jobs: int, against: float) -> str:
    return f"| {where} | {VERDICTS[which]} | {seconds:.1f} | {jobs} | {seconds / against:.2f} |"


def section(example: Example, large: Large, repeat: int, tests: int) -> str:
    medians = {which: statistics.median(found) for which, found in example.seconds.items()}
    # The same jobs as without base replays: the history is read by the report workflow.
    medians["history"], example.jobs["history"] = medians["without"], example.jobs["without"]
    totals = large_totals(large, example)
    history, without = totals["history"][0], totals["without"][0]
    over = history - without
    met = "met" if over <= 0 else f"not met by {over:.2f} s ({over / without:.2%})"
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
            f"- A pull request with one edited test through `.github/workflows/waiver-gate.yml` "
            f"as it is, {REPLAYS} replays by {SHARDS} shards, `red-green-command` set; base "
            f"replays, when run, {BASE_REPLAYS}. With base evidence from the history, the gate "
            "workflow runs the jobs it runs without base replays, and the report workflow's "
            f"gate reads the base's run from a history of {HISTORY_RUNS} runs.",
            f"- Example: {repeat} runs without and with base replays under act, interleaved, "
            "after a warm-up; runner-seconds are the sum of every job's step times as act "
            "logs them (the gate workflow's jobs).",
            f"- Large suite: {tests:,} tests (bench/edited.py's modules), the work that grows "
            f"with it measured here (one run of the whole suite {large.suite:.1f} s, of the "
            f"edited file {large.edited_file:.2f} s, its red-green run {large.red_green:.2f} s, "
            f"the test tree's layout {large.lay_out:.2f} s, the plan {large.plan:.2f} s; the "
            + ", ".join(f"gate {name} {seconds:.2f} s" for name, seconds in large.gate.items())
            + f", each the median of {GATE_RUNS} runs), summed as the jobs run them, each "
            "job's own steps from the example's runs, "
            "and the report workflow's gate.",
            "",
            "| pull request | verdict | runner-seconds | jobs | x without base replays |",
            "|---|---|---|---|---|",
            *(
                row(
                    "example, under act",
                    which,
                    medians[which],
                    example.jobs[which],
                    medians["without"],
                )
                for which in VERDICTS
            ),
            *(
                row(f"{tests:,} tests, from its parts", which, seconds, jobs, without)
                for which, (seconds, jobs, _) in totals.items()
            ),
            "",
            f"On {tests:,} tests, in runner-seconds: "
            + "; ".join(f"{VERDICTS[which]}: {words}" for which, (_, _, words) in totals.items())
            + ".",
            "",
            f"Target (issue 53): with base evidence from the history, no more than without "
            f"base replays: {history:.1f} against {without:.1f} runner-seconds, {met}. The "
            "gate workflow runs the same jobs either way; the report's gate reads the "
            f"history's run of the base in {large.gate['history of the base']:.2f} s, against "
            f"{large.gate['history']:.2f} s for a history without it.",
            "",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--tests", type=int, default=60_000)
    parser.add_argument("--data", type=Path, default=BENCH / "data")
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="waiver-workflow-bench-") as scratch:
        folder = Path(scratch)
        large = large_suite(args.data, args.tests, folder / "large")
        print(large, flush=True)
        example = example_runs(folder / "example", args.repeat)
    text = section(example, large, args.repeat, args.tests)
    print(text)
    write_section(args.out, WORKFLOW, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
