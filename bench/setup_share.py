"""Measure the set-up share of the reusable workflow's test jobs on an rq-sized suite:
everything a job does but its test command, against the whole job, before and after the
lean install step and the dependency cache.

The suite is generated here in the shape of a Redis-backed library: 154 tests whose one
plain run takes about 10 s (each a 65 ms wait, a Redis round trip's stand-in) and a
property suite of about 3 s, in a project whose hatch test environment lists its test
dependencies beside its linters, type checkers, stubs, tox and a coverage uploader, and
whose `dev` dependency group holds more of the same (rq's own files had this shape).

A job's set-up is two parts:

- the workflow's own steps (checkouts, waiver's image, the lock check, the test tree's
  layout, the cache's restore), the median per job kind of one run of the example under
  act with no set-up command (every job on this machine; tests/helpers/workflow_support.py);
- the install step, run in a fresh virtualenv: before, the step `waiver init` wrote until
  now (the whole environment and `--group dev`), from an empty pip cache, as every job
  installed; after, the step it writes now (bench: `install_step`), with pip's cache filled
  by one earlier install, as a default-branch run leaves it for its pull requests.

The test command's seconds are the generated suite's own (`pytest` on all of it for a
replay job, on the property folder for the property job). Reported per job kind: set-up,
test and share before and after, against the target of at most a third. The section
"Set-up share of a test job" of bench/RESULTS.md is replaced with the table.

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
    """The install step's seconds in a fresh virtualenv at `venv` (made untimed), with pip's
    cache at `cache` (None: no cache)."""
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


def workflow_set_up(folder: Path) -> dict[str, float]:
    """The median seconds of each test job kind's own steps, but its test command, in one run
    of the example under act (a warm-up run first: the image is built)."""
    repositories = Repositories(folder)
    found: dict[str, list[float]] = {}
    for attempt in ("warm-up", "measured"):
        demo = repositories.change(attempt)
        (demo / "README.md").write_text("A change.\n")
        commit_all(demo, "a change")
        run = run_workflow(
            demo, repositories.base_commit,
            demo_inputs(repositories.waiver_commit, **{"base-replays": 0, "shards": 1}),
        )  # fmt: skip
        if not run.artifact_names("waiver-junit-run-"):
            raise SystemExit(f"no replay job ran\n{run.log[-4000:]}")
    for job, steps in job_steps(run.log).items():
        found.setdefault(kind_of(job), []).append(set_up(steps))
    return {kind: statistics.median(seconds) for kind, seconds in found.items()}


def section(workflow: dict[str, float], installs: dict[str, float], tests: dict[str, float],
            after: str) -> str:  # fmt: skip
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    rows = []
    for kind in ("properties", "replay"):
        cells = []
        for which in ("before", "after"):
            job_set_up = workflow[kind] + installs[which]
            share = job_set_up / (job_set_up + tests[kind])
            cells.append((job_set_up, share))
        (set_up_before, share_before), (set_up_after, share_after) = cells
        met = "yes" if share_after <= TARGET else "no"
        rows.append(
            f"| {kind} | {set_up_before:.1f} | {set_up_after:.1f} | {tests[kind]:.1f} "
            f"| {share_before:.0%} | {share_after:.0%} | ≤ 33% | {met} |"
        )
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
            f"test command), from the example under act: properties "
            f"{workflow['properties']:.1f} s, replay {workflow['replay']:.1f} s.",
            f"- Install step before ({installs['before']:.1f} s, no cache): `{BEFORE}`.",
            f"- Install step after ({installs['after']:.1f} s, pip's cache filled by the "
            f"default branch): `{after}`.",
            "",
            "| job | set-up before (s) | set-up after (s) | test (s) | share before "
            "| share after | target | met |",
            "|---|---|---|---|---|---|---|---|",
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
        }
        print(installs, flush=True)
        tests = {
            "replay": test_seconds(root, folder / "after", "tests", "--ignore=tests/properties"),
            "properties": test_seconds(root, folder / "after", "tests/properties"),
        }
        print(tests, flush=True)
        workflow = workflow_set_up(folder / "workflow")
        print(workflow, flush=True)
    text = section(workflow, installs, tests, after)
    print(text)
    write_section(args.out, SETUP_SHARE, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
