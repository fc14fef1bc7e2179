"""Measure the set-up share of the reusable workflow's test jobs on an rq-sized suite:
everything a job does but its test command, against the whole job, before and after the
lean install step and the dependency cache, and after them with every replay of a shard
in one job (`replays-per-job` set to the replays).

The suite is generated here in the shape of a Redis-backed library: 154 tests whose one
plain run takes about 10 s (each a 65 ms wait, a Redis round trip's stand-in) and a
property suite of about 3 s, in a project whose hatch test environment lists its test
dependencies beside its linters, type checkers, stubs, tox and a coverage uploader, and
whose `dev` dependency group holds more of the same (rq's own files had this shape).

A job's set-up is two parts:

- the workflow's own steps (checkouts, waiver's image, the lock check, the test tree's
  layout, the cache's restore, the uploads), the median per job kind of one run of the
  example under act with no set-up command (every job on this machine;
  tests/helpers/workflow_support.py), with a job for every replay and with all of a
  shard's replays in one job;
- the install step, run in a fresh virtualenv: before, the step `waiver init` wrote until
  now (the whole environment and `--group dev`), from an empty pip cache, as every job
  installed; after, the step it writes now (bench: `install_step`), with pip's cache filled
  by one earlier install, as a default-branch run leaves it for its pull requests.

The test command's seconds are the generated suite's own (`pytest` on all of it for a
replay, on the property folder for the property suite). The property job runs its suite
once and then the first cell of the replay matrix, as a replay job does: one replay, or
REPLAYS of them with all of a shard's replays in one job; a base replay job runs the same
suite at the base commit, as many times. The plan job runs no test
command: all of it is the gate's own, in the bill, and no test job's set-up. Reported per
job kind: set-up, test and share before, after, and after with the replays in one job,
against the target of at most a third. The section "Set-up share of a test job" of
bench/RESULTS.md is replaced with the table.

Usage: python bench/setup_share.py [--out PATH]
Needs the network to PyPI, a Docker engine with the local base image waiver-base:bookworm,
and act.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "tests"))

from act_log import job_steps, kind_of, set_up  # noqa: E402  (bench/, on the path)
from sections import SETUP_SHARE, write_section  # noqa: E402

from helpers.workflow_support import (  # noqa: E402  (the tests' act machinery, on the path above)
    Repositories,
    commit_all,
    demo_inputs,
    run_workflow,
)

TARGET = 1 / 3
REPLAYS = 5  # the example's, all in one job with the lever on
TESTS, TEST_WAIT = 154, 0.065
PROPERTIES, PROPERTY_WAIT = 6, 0.5
# The hatch test environment and dev group of a Redis-backed library.
PYPROJECT = """\
[project]
name = "rqlike"
version = "0"
dependencies = ["redis>=4", "click>=5"]

[dependency-groups]
dev = ["ruff", "mypy", "tox", "types-redis", "pytest", "coverage"]

[tool.hatch.envs.test]
dependencies = [
  "codecov", "psutil", "pytest", "pytest-cov", "coverage", "mypy", "packaging", "ruff",
  "tox", "types-redis",
]

[tool.pytest.ini_options]
testpaths = ["tests"]
"""
# What `waiver init` wrote for it before: every word of the environment, and the group.
BEFORE = (
    "python -m pip install 'pip>=25.1' && python -m pip install -e . codecov psutil pytest "
    "pytest-cov coverage mypy packaging ruff tox types-redis hypothesis --group dev"
)
TEST_MODULE = """\
import time

import rqlike


def test_{n}_0():
    time.sleep({wait})
    assert rqlike.ping() == "PONG"
"""
PROPERTY_MODULE = """\
import time

from hypothesis import given, settings, strategies as st

import rqlike


@settings(max_examples=5, deadline=None)
@given(st.integers())
def test_{n}(value):
    time.sleep({wait} / 5)
    assert rqlike.ping() == "PONG"
"""


def project(root: Path) -> None:
    """The rq-shaped project: its package, its tests and its property suite."""
    (root / "rqlike").mkdir(parents=True)
    (root / "rqlike" / "__init__.py").write_text('def ping():\n    return "PONG"\n')
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "tests" / "properties").mkdir(parents=True)
    for n in range(TESTS):
        (root / "tests" / f"test_{n}.py").write_text(TEST_MODULE.format(n=n, wait=TEST_WAIT))
    for n in range(PROPERTIES):
        (root / "tests" / "properties" / f"test_p{n}.py").write_text(
            PROPERTY_MODULE.format(n=n, wait=PROPERTY_WAIT)
        )


def after_step(root: Path) -> str:
    """The install step `waiver init` writes now, read from the project's files."""
    from waiver.runners.pytest.setup.suite_commands import install_step
    from waiver.runners.pytest.setup.tool_envs import read_tool_envs

    here = os.getcwd()
    os.chdir(root)
    try:
        return install_step(read_tool_envs())
    finally:
        os.chdir(here)


def install(root: Path, step: str, venv: Path, cache: Path | None) -> float:
    """The install step's seconds in the virtualenv at `venv`, made untimed when missing,
    with pip's cache at `cache` (None: no cache)."""
    if not venv.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    environment = {
        **os.environ,
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(venv),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        **({"PIP_CACHE_DIR": str(cache)} if cache else {"PIP_NO_CACHE_DIR": "1"}),
    }
    started = time.perf_counter()
    subprocess.run(
        ["bash", "-e", "-c", step], cwd=root, env=environment, check=True,
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return time.perf_counter() - started


def test_seconds(root: Path, venv: Path, *where: str) -> float:
    """One run of the test command's pytest on `where`, in the virtualenv at `venv`."""
    started = time.perf_counter()
    completed = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", *where],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit(f"the suite failed:\n{completed.stdout[-3000:]}")
    return seconds


def workflow_set_up(repositories: Repositories, per_job: int, name: str) -> dict[str, float]:
    """The median seconds of each job kind's own steps, but its test commands, in one run
    (`name`) of the example under act with `per_job` replays (and base replays) a job. Two
    shards, so that with every replay of a shard in one job there is a replay job beside the
    property job."""
    demo = repositories.change(name)
    (demo / "README.md").write_text("A change.\n")
    commit_all(demo, "a change")
    inputs = {
        "base-replays": REPLAYS, "shards": 2, "replays": REPLAYS, "replays-per-job": per_job,
    }  # fmt: skip
    run = run_workflow(
        demo, repositories.base_commit, demo_inputs(repositories.waiver_commit, **inputs)
    )
    if len(run.artifact_names("waiver-junit-run-")) != 2 * REPLAYS:
        raise SystemExit(f"not every replay arrived\n{run.log[-4000:]}")
    found: dict[str, list[float]] = {}
    for job, steps in job_steps(run.log).items():
        found.setdefault(kind_of(job), []).append(set_up(steps))
    return {kind: statistics.median(seconds) for kind, seconds in found.items()}


def workflow_set_ups(folder: Path) -> dict[str, dict[str, float]]:
    """Each job kind's own steps with a job for every replay ("after") and with all the
    replays of a shard in one job ("in one job"), after a warm-up run (the image is built).

    A job's own steps are the same but for the further uploads whatever its replays; yet
    under act the jobs of a run share this machine's cores, which hosted runners do not,
    and a run of fewer jobs waits less. So a job of all the replays is given the larger of
    the two measures."""
    repositories = Repositories(folder)
    workflow_set_up(repositories, 1, "warm-up")
    after = workflow_set_up(repositories, 1, "a-job-a-replay")
    one_job = workflow_set_up(repositories, REPLAYS, "one-job")
    return {"after": after, "in one job": {kind: max(after[kind], one_job[kind]) for kind in after}}


def section(workflow: dict[str, dict[str, float]], installs: dict[str, float],
            tests: dict[str, float], after: str) -> str:  # fmt: skip
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    floor_set_up = workflow["in one job"]["replay"] + installs["installed"]
    floor = floor_set_up / (floor_set_up + REPLAYS * tests["replay"])
    rows = []
    for kind in ("properties", "replay", "base replay"):
        cells, share = [], 0.0
        # Before the lean install, the jobs' own steps were as they are now.
        for jobs, step in (("after", "before"), ("after", "after"), ("in one job", "after")):
            job_set_up = workflow[jobs][kind] + installs[step]
            # The property job runs its suite, then its cell's replays as a replay job does.
            replays = REPLAYS if jobs == "in one job" else 1
            tested = replays * tests["replay"] + (tests[kind] if kind == "properties" else 0.0)
            share = job_set_up / (job_set_up + tested)
            cells.append(f"{job_set_up:.1f} | {tested:.1f} | {share:.0%}")
        met = "yes" if share <= TARGET else "no"
        rows.append(f"| {kind} | {' | '.join(cells)} | ≤ 33% | {met} |")
    return "\n".join(
        [
            SETUP_SHARE,
            "",
            "Regenerate with `python bench/setup_share.py` (needs PyPI, a Docker engine with "
            "`waiver-base:bookworm`, and act).",
            "",
            f"- Date: {now}; {os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
            f"1-minute load average {os.getloadavg()[0]:.2f} at the end (the machine is shared)",
            f"- An rq-sized suite: {TESTS} tests, one plain run {tests['replay']:.1f} s, the "
            f"property suite {tests['properties']:.1f} s.",
            f"- The workflow's own steps per job (everything but the set-up command and the "
            f"test commands), from the example under act: the property job "
            f"{workflow['after']['properties']:.1f} s, a replay job "
            f"{workflow['after']['replay']:.1f} s, a base replay job "
            f"{workflow['after']['base replay']:.1f} s; with `replays-per-job: {REPLAYS}`, "
            f"{workflow['in one job']['properties']:.1f} s for the property job, which then "
            f"runs all {REPLAYS} replays, each the larger of its measure and a job's of one "
            "replay (the jobs of a run share this machine under act). The plan job, which "
            f"runs no test command, {workflow['after']['plan']:.1f} s: the gate's own, in the "
            "bill.",
            "- The property job runs the property suite and then its cell of the replay "
            "matrix (replay 1 of shard 1; with the replays in one job, all of them). Before "
            "it did, it ran the property suite alone, and its set-up was 80% of it after the "
            "lean install (2026-12-06 09:48 UTC, same suite).",
            f"- Install step before ({installs['before']:.1f} s, no cache): `{BEFORE}`.",
            f"- Install step after ({installs['after']:.1f} s, pip's cache filled by the "
            f"default branch): `{after}`.",
            f"- Not built: an installed environment restored in place of the download cache "
            f"would leave {installs['installed']:.1f} s of the install step (the step again "
            f"where all of it is installed); with {REPLAYS} replays a job, a replay job's "
            f"share would then be {floor:.0%}.",
            "",
            "| job | set-up before (s) | test (s) | share before | set-up after (s) | test (s) "
            f"| share after | set-up, {REPLAYS} a job (s) | test (s) | share, {REPLAYS} a job "
            "| target | met |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
            *rows,
            "",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="waiver-setup-share-") as scratch:
        folder = Path(scratch)
        root = folder / "rqlike"
        project(root)
        after = after_step(root)
        print(f"after: {after}", flush=True)
        cache = folder / "pip-cache"
        install(root, after, folder / "fill", cache)  # the default branch's run
        installs = {
            "before": install(root, BEFORE, folder / "before", None),
            "after": install(root, after, folder / "after", cache),
            # Again where it is all installed: what an installed environment restored
            # would leave of the step.
            "installed": install(root, after, folder / "after", cache),
        }
        print(installs, flush=True)
        tests = {
            "replay": test_seconds(root, folder / "after", "tests", "--ignore=tests/properties"),
            "properties": test_seconds(root, folder / "after", "tests/properties"),
        }
        print(tests, flush=True)
        workflow = workflow_set_ups(folder / "workflow")
        print(workflow, flush=True)
    text = section(workflow, installs, tests, after)
    print(text)
    write_section(args.out, SETUP_SHARE, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
