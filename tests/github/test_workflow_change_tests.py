"""The reusable workflow's change's-tests job (the change's own test files on its tree, and
red-green replays on the base's code) and the job settings it shares with the replays: the
runner, Node.js and the set-up command.

Its steps run here with bash as a runner runs them, and `docker` is
tests/helpers/fake_docker.py, which runs the real waiver on what the script hands the
container; tests/container/test_red_green_act.py runs the whole workflow under act.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers.fake_docker import install
from helpers.red_green_support import (
    BYSTANDER_TEST,
    FIX_TEST,
    fix_with_a_green_green_test,
    fix_with_a_red_green_test,
)
from helpers.support import EXAMPLE, REPO, git, read_github_output, workflow_step
from waiver.runners.pytest import PYTEST

WORKFLOWS = REPO / ".github" / "workflows"
GATE: dict[Any, Any] = yaml.safe_load((WORKFLOWS / "waiver-gate.yml").read_text())
REPORT: dict[Any, Any] = yaml.safe_load((WORKFLOWS / "waiver-report.yml").read_text())
TEST_JOBS = ("properties", "replays", "base-replays", "change-tests")
SETUP_NODE = "actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020"
PLAN_STEP = "Plan the change's own tests"
SHARD_PLAN = "Plan this shard's tests"
ARRIVED_STEP = "Name the red-green replays that arrived"


def steps(workflow: dict[Any, Any], job: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = workflow["jobs"][job]["steps"]
    return found


def names(job: str) -> list[str]:
    return [s.get("name", s.get("uses", "").partition("@")[0]) for s in steps(GATE, job)]


def test_the_change_s_tests_run_after_the_property_job_only_for_shards_that_hold_them() -> None:
    jobs = GATE["jobs"]
    job = jobs["change-tests"]
    assert job["needs"] == ["plan", "properties"]
    assert job["if"] == (
        "${{ !cancelled() && needs.properties.result == 'success' "
        "&& needs.plan.outputs.fixtures-match == 'true' "
        "&& needs.plan.outputs.change-jobs != '' "
        "&& needs.plan.outputs.change-jobs != '0' }}"
    )
    outputs = jobs["plan"]["outputs"]
    assert outputs["change-shards"] == "${{ steps.change-plan.outputs.shards }}"
    assert outputs["change-jobs"] == "${{ steps.change-plan.outputs.jobs }}"
    plan = workflow_step(GATE, "plan", PLAN_STEP)
    assert plan["if"] == "${{ steps.lock.outputs.fixtures-match == 'true' }}"
    # From the commits, in the plan job, where none of the change's code runs.
    assert PLAN_STEP in names("plan")
    assert "Set up the suite" not in names("plan")
    # Always JSON, a placeholder where the plan step was skipped: the job is skipped too.
    assert job["strategy"]["matrix"]["shard"] == (
        "${{ fromJSON(github.event_name == 'pull_request_review' && '[1]' "
        "|| needs.plan.outputs.change-shards || '[1]') }}"
    )
    assert "change-tests" in jobs["gate"]["needs"]


def test_waiver_plans_and_reads_in_its_image_and_only_the_commands_run_on_the_runner() -> None:
    assert names("change-tests") == [
        "Name the waiver to check out",
        "Check out waiver",
        "Move waiver out of the workspace",
        "Check out the change",
        "Pull or build waiver's image",
        SHARD_PLAN,
        "Name the dependency cache",
        "Restore the dependency cache",
        "actions/setup-python",
        "actions/setup-node",
        "Set up the suite on the change's tree",
        "Replay this shard's test files on the change's tree",
        "Upload this shard's reports",
        "Set up the suite on the base's code",
        "Replay this shard's tests on the base's code",
        "Read what each test did on the base",
        "Upload this shard's red-green replays",
    ]
    scripts = "\n".join(s.get("run", "") for s in steps(GATE, "change-tests"))
    assert 'run-in-image.sh" change-tests-plan' in scripts
    assert 'run-in-image.sh" red-green --base' in scripts
    assert "pip install" not in scripts and "venv" not in scripts
    reports = workflow_step(GATE, "change-tests", "Upload this shard's reports")["with"]
    assert reports["name"] == "waiver-change-tests-shard-${{ matrix.shard }}"
    upload = workflow_step(GATE, "change-tests", "Upload this shard's red-green replays")["with"]
    assert upload["name"] == "waiver-red-green-shard-${{ matrix.shard }}"
    # Red-green only with its command; the change's tests always, after their own set-up.
    for name in ("Replay this shard's tests on the base's code", "Read what each test did on "
                 "the base", "Upload this shard's red-green replays"):  # fmt: skip
        assert (
            workflow_step(GATE, "change-tests", name)["if"]
            == "${{ inputs.red-green-command != '' }}"
        )
    assert "if" not in workflow_step(
        GATE, "change-tests", "Replay this shard's test files on the change's tree"
    )


def test_the_gate_reads_the_change_s_tests_whenever_they_ran() -> None:
    download = workflow_step(GATE, "gate", "Download the change's own tests' reports")
    assert download["with"] == {
        "pattern": "waiver-change-tests-shard-*",
        "merge-multiple": True,
        "path": "change/waiver-change-tests",
    }
    gate = next(s for s in steps(GATE, "gate") if s.get("uses") == "./waiver-action")
    # Given whenever the job ran, so that reports that did not arrive are named, not unread.
    assert gate["with"]["change-tests"] == (
        "${{ needs.change-tests.result != 'skipped' && 'waiver-change-tests' || '' }}"
    )
    clear = workflow_step(GATE, "gate", "Clear the folders this job fills")["run"]
    assert "change/waiver-change-tests " in clear


@pytest.mark.parametrize(("workflow", "job"), [(GATE, "gate"), (REPORT, "report")])
def test_the_gate_and_the_report_workflow_pass_the_shards_that_arrived(
    workflow: dict[Any, Any], job: str, tmp_path: Path
) -> None:
    # The gate job downloads its own run's by pattern; the report workflow another run's,
    # by the ids of their exact names.
    download = next(
        s
        for s in steps(workflow, job)
        if s.get("with", {}).get("pattern", "").startswith("waiver-red-green-shard-")
        or "red-green-artifacts" in s.get("with", {}).get("artifact-ids", "")
    )
    # A folder per shard: each holds a red-green.json, which merge-multiple would overwrite.
    assert download["with"]["path"] == "change/waiver-red-green"
    assert "merge-multiple" not in download["with"]
    assert download["continue-on-error"] is True
    gate = next(s for s in steps(workflow, job) if s.get("uses") == "./waiver-action")
    assert gate["with"]["red-green"] == "${{ steps.red-green.outputs.folder }}"
    clear = "\n".join(s.get("run", "") for s in steps(workflow, job))
    assert "change/waiver-red-green\n" in clear  # what the change ships there is removed
    # Only shards that arrived are passed: none is no input error, but evidence of none.
    script = workflow_step(workflow, job, ARRIVED_STEP)["run"]
    for present, expected in ((False, {}), (True, {"folder": "waiver-red-green"})):
        if present:
            (tmp_path / "change" / "waiver-red-green" / "waiver-red-green-shard-2").mkdir(
                parents=True
            )
            (tmp_path / "change/waiver-red-green/waiver-red-green-shard-2/red-green.json").touch()
        output = tmp_path / f"output-{present}"
        output.touch()
        subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, check=True,
                       env={**os.environ, "GITHUB_OUTPUT": str(output)})  # fmt: skip
        assert read_github_output(output.read_text()) == expected


def test_the_test_jobs_take_the_runner_and_the_gate_stays_on_a_fresh_hosted_machine() -> None:
    inputs = GATE[True]["workflow_call"]["inputs"]
    assert inputs["runs-on"]["default"] == "ubuntu-latest"
    for job in TEST_JOBS:
        assert GATE["jobs"][job]["runs-on"] == "${{ inputs.runs-on }}", job
    for job in ("plan", "gate", "review"):
        assert GATE["jobs"][job]["runs-on"] == "ubuntu-latest", job
    assert set(GATE["jobs"]) == {*TEST_JOBS, "plan", "gate", "review"}


@pytest.mark.parametrize("job", TEST_JOBS)
def test_node_and_the_setup_command_come_after_the_test_tree_and_before_the_suite(
    job: str,
) -> None:
    setup_node = next(s for s in steps(GATE, job) if s.get("uses", "").startswith(SETUP_NODE))
    assert setup_node["if"] == "${{ inputs.node-version != '' }}"
    assert setup_node["with"] == {"node-version": "${{ inputs.node-version }}"}
    order = names(job)
    setup = next(n for n in order if n.startswith("Set up the suite"))
    assert workflow_step(GATE, job, setup)["if"] == "${{ inputs.setup-command != '' }}"
    assert workflow_step(GATE, job, setup)["env"]["SETUP_COMMAND"] == "${{ inputs.setup-command }}"
    suite = next(n for n in order if n.startswith(("Run the", "Replay this shard")))
    first = "Check out the base commit" if job == "base-replays" else "Pull or build waiver's image"
    harness = {
        "change-tests": SHARD_PLAN,
        "base-replays": "Check out the base commit",
    }.get(job, "Lay out the base commit's test tree")
    assert order.index(first) <= order.index(harness) < order.index("actions/setup-node")
    assert order.index("actions/setup-node") < order.index(setup) < order.index(suite)


# --- the steps themselves, on the example --------------------------------------------


@pytest.fixture
def change(tmp_path: Path) -> tuple[Path, str]:
    """The example as a base, and a change that fixes its bug and adds a test that fails
    without the fix and one that passes anyway: (the checkout, the base commit)."""
    work = tmp_path / "workspace"
    shutil.copytree(EXAMPLE, work, ignore=shutil.ignore_patterns("run.sh", "__pycache__"))
    git(work, "init", "--quiet")
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "base")
    base = git(work, "rev-parse", "HEAD")
    fix_with_a_red_green_test(work)
    fix_with_a_green_green_test(work)
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "change")
    return work, base


def run_job_step(job: str, name: str, work: Path, env: dict[str, str]) -> dict[str, str]:
    """The step as the runner runs it, waiver in RUNNER_TEMP and docker the stand-in: its
    outputs."""
    runner_temp = work.parent / "runner-temp"
    if not runner_temp.exists():
        runner_temp.mkdir()
        (runner_temp / "waiver").symlink_to(REPO)
        install(work.parent)
    output = work.parent / "output"
    output.write_text("")
    completed = subprocess.run(
        ["bash", "-e", "-c", workflow_step(GATE, job, name)["run"]],
        cwd=work,
        env={**os.environ, "PATH": f"{work.parent / 'bin'}{os.pathsep}{os.environ['PATH']}",
             "RUNNER_TEMP": str(runner_temp), "GITHUB_WORKSPACE": str(work),
             "GITHUB_OUTPUT": str(output), "FAKE_DOCKER_LOG": str(work.parent / "docker.jsonl"),
             "WAIVER_IMAGE": "sha256:" + "e" * 64, "WAIVER_SCRATCH":
             str(runner_temp / "waiver-change-tests"), "KNOWN_TESTS": "known-tests.txt",
             "CONFIG": "", **env},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return read_github_output(output.read_text())


# The command `waiver init` writes, with this interpreter for `python`.
RED_GREEN_COMMAND = PYTEST.red_green_command().replace(" python ", f" {sys.executable} ")


def test_without_a_base_the_plan_names_no_job_and_a_matrix_that_is_still_json(
    change: tuple[Path, str],
) -> None:
    work, _ = change
    # A push or a schedule: no pull request's base, so nothing runs apart.
    assert run_job_step("plan", PLAN_STEP, work, {"BASE": "", "SHARDS": "2"}) == {
        "jobs": "0", "shards": "[1]",
    }  # fmt: skip


@pytest.mark.slow
def test_the_job_replays_the_change_s_files_on_its_tree_and_its_tests_on_the_base(
    change: tuple[Path, str],
) -> None:
    work, base = change
    planned = run_job_step("plan", PLAN_STEP, work, {"BASE": base, "SHARDS": "3"})
    # Two test files and two new tests: two shards hold work, not three.
    assert planned == {"jobs": "2", "shards": "[1,2]"}

    shard = {"BASE": base, "SHARD": "1/1", "REPLAYS": "2"}
    with_command = {**shard, "RED_GREEN_COMMAND": RED_GREEN_COMMAND}
    run_job_step("change-tests", SHARD_PLAN, work, with_command)
    run_job_step("change-tests", "Replay this shard's test files on the change's tree", work,
                 shard)  # fmt: skip
    run_job_step("change-tests", "Replay this shard's tests on the base's code", work,
                 with_command)  # fmt: skip
    run_job_step("change-tests", "Read what each test did on the base", work, shard)

    scratch = work.parent / "runner-temp" / "waiver-change-tests"
    document = json.loads((scratch / "out" / "red-green.json").read_text())
    assert (document["base"], document["head"]) == (base, git(work, "rev-parse", "HEAD"))
    assert [(r["test_id"], r["base_pass"], r["base_total"], r["result"]) for r in document["rows"]] == [
        (BYSTANDER_TEST, 2, 2, "green"),
        (FIX_TEST, 0, 2, "red"),
    ]  # fmt: skip
    # Each test file ran apart, in each replay; the change's checkout was not touched.
    assert sorted(p.name for p in (scratch / "red-green" / "run-2").iterdir()) == ["1.xml", "2.xml"]
    # The change's files ran whole on its own tree, with the runner's own command (none was
    # given), each report named by the file's place in the plan.
    assert sorted(p.name for p in (scratch / "reports" / "run-2").iterdir()) == [
        "file-1.xml", "file-2.xml",
    ]  # fmt: skip
    assert git(work, "status", "--porcelain") == ""


@pytest.mark.slow
def test_each_module_s_command_is_given_its_file_and_its_tests_name_pattern(
    change: tuple[Path, str],
) -> None:
    """What a runner that selects tests by name needs (jest's -t, mocha's --grep): the
    test file and a pattern of exactly its tests' names, beside the file of ids; on the
    change's tree, the file and a pattern of every name."""
    work, base = change
    given = 'printf "%s\\n" "$WAIVER_TEST_FILE" "$WAIVER_TEST_PATTERN" > "$WAIVER_JUNIT.given"'
    shard = {"BASE": base, "SHARD": "1/1", "REPLAYS": "1", "RED_GREEN_COMMAND": given}
    run_job_step("change-tests", SHARD_PLAN, work, shard)
    run_job_step("change-tests", "Replay this shard's tests on the base's code", work, shard)
    run_job_step("change-tests", "Replay this shard's test files on the change's tree", work,
                 shard)  # fmt: skip
    scratch = work.parent / "runner-temp" / "waiver-change-tests"
    found = sorted(
        path.read_text().splitlines() for path in (scratch / "red-green" / "run-1").glob("*.given")
    )
    files = sorted({test_id.partition("::")[0] for test_id in (FIX_TEST, BYSTANDER_TEST)})
    assert [file for file, _ in found] == files
    for file, pattern in found:
        [test_id] = [t for t in (FIX_TEST, BYSTANDER_TEST) if t.startswith(file + "::")]
        assert pattern == f"^(?:{re.escape(test_id.partition('::')[2])})$"
    whole = sorted(
        path.read_text().splitlines() for path in (scratch / "reports" / "run-1").glob("*.given")
    )
    assert whole == [[file, ".*"] for file in files]
