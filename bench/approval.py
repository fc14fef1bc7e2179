"""Measure how long an approval takes to reach the `waiver` status, against a full run.

Under act (jobs on this machine, stand-ins for what needs github.com; see
tests/workflow_support.py), on the bundled example with the gate's caller committed on its
base and a change that adds a registered test and edits a known one, with a test command
that sleeps 20 s before each replay:

- a full run: the reusable gate workflow on `pull_request` (the property suite, 5 replays,
  the gate), as the change's push starts it;
- approval to status: the report workflow on the `workflow_run` of a review's run, which
  replays nothing, finds the full run through the REST API stand-in, re-judges its reports
  with the approval read afresh and posts the status (checked to be `success`).

Reported: the wall time of each, their medians over `--repeat` runs, and the ratio (target
at most 0.25). The section "Approval to status under act" of bench/RESULTS.md is replaced.

Usage: python bench/approval.py [--repeat 1] [--out PATH]
Needs a Docker engine with the local base image waiver-base:bookworm, and act.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "tests"))

from sections import APPROVAL, write_section  # noqa: E402

from helpers.change_support import add_a_test  # noqa: E402  (the tests' machinery, on the path above)
from helpers.github_api import Answers, github_api, review  # noqa: E402
from helpers.support import git  # noqa: E402
from helpers.workflow_support import (  # noqa: E402
    WAIVER_REPOSITORY,
    Repositories,
    commit_all,
    demo_inputs,
    run_report,
    run_workflow,
)

CALLER = ".github/workflows/waiver.yml"
RATIO_TARGET = 0.25
SLEEP_SECONDS = 20
RUN_ID = 42


def measure(folder: Path, name: str, repositories: Repositories) -> tuple[float, float]:
    """One full run and one approval to status: their seconds."""
    demo = repositories.change(name)
    waiver = repositories.waiver_commit
    caller = demo / CALLER
    caller.parent.mkdir(parents=True, exist_ok=True)
    caller.write_text(f"name: waiver\n# {WAIVER_REPOSITORY}/.github/workflows/waiver-gate.yml\n")
    base = commit_all(demo, "the gate's caller")
    add_a_test(demo)
    head = commit_all(demo, "change")
    inputs = demo_inputs(waiver, shards=1, **{"base-replays": 0})
    inputs["test-command"] = (
        f'sleep {SLEEP_SECONDS}; "{sys.executable}" -m pytest -q tests/assertions '
        '--junitxml="$WAIVER_JUNIT"'
    )
    full = run_workflow(demo, base, inputs)
    # The full run's reports, as the run the review's run names.
    artifacts = full.artifacts
    (artifacts / f"run-{RUN_ID}").mkdir()
    for artifact in list(artifacts.glob("waiver-*")):
        shutil.move(artifact, artifacts / f"run-{RUN_ID}" / artifact.name)
    git(demo, "checkout", "--quiet", "--detach", base)
    git(demo, "merge", "--quiet", "--no-ff", "-m", "Merge the head", head)
    git(demo, "update-ref", "refs/pull/7/merge", "HEAD")
    git(demo, "checkout", "--quiet", "--detach", head)
    gate = {
        "path": f"{WAIVER_REPOSITORY}/.github/workflows/waiver-gate.yml@{waiver}",
        "sha": waiver,
    }
    full_run = {"id": RUN_ID, "event": "pull_request", "head_sha": head, "path": CALLER,
                "pull_requests": [], "referenced_workflows": [gate]}  # fmt: skip
    answers = Answers(
        commit_pulls=[{"number": 7, "state": "open", "head": {"sha": head},
                       "base": {"ref": "main"}}],
        head=head, base=base, runs=[full_run],
        reviews=[review(1, "maintainer", "APPROVED", head)],
        permissions={"maintainer": "write"},
    )  # fmt: skip
    with github_api(answers) as api:
        review_run = {**full_run, "id": 99, "event": "pull_request_review"}
        log, seconds = run_report(demo, waiver, review_run, api, "ghs_bench", "approval")
    states = [status["state"] for status in answers.statuses]
    if states != ["success"]:
        raise SystemExit(f"the approval did not turn the status green: {states}\n{log[-4000:]}")
    return full.seconds, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        repositories = Repositories(folder / "repositories")
        measured = [measure(folder, f"run-{n}", repositories) for n in range(args.repeat)]
    full = statistics.median(seconds for seconds, _ in measured)
    approval = statistics.median(seconds for _, seconds in measured)
    ratio = approval / full
    rows = "\n".join(f"| {n + 1} | {f:.1f} | {a:.1f} |" for n, (f, a) in enumerate(measured))
    text = f"""{APPROVAL}

{datetime.date.today().isoformat()}, {platform.node() or "this machine"}, `python
bench/approval.py --repeat {args.repeat}`: the example with a test command that sleeps
{SLEEP_SECONDS} s before each replay, 5 replays, under act. A full run is the gate
workflow on `pull_request`; approval to status is the report workflow on a review's run,
which re-judges the full run's reports with the approval read afresh and posts `success`.

| run | full run (s) | approval to status (s) |
|---|---|---|
{rows}

Medians: full run {full:.1f} s, approval to status {approval:.1f} s, ratio {ratio:.2f}
(target at most {RATIO_TARGET}): {"met" if ratio <= RATIO_TARGET else "not met"}.
"""
    write_section(args.out, APPROVAL, text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
