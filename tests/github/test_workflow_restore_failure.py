"""When the property job cannot lay out the base commit's test tree, the gate job names that
as the cause of the missing property report: the layout step's own output, wired from the
properties job to a step of the gate job, each script run as the runner runs it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from helpers.support import REPO, read_github_output, workflow_step

WORKFLOW = yaml.safe_load((REPO / ".github" / "workflows" / "waiver-gate.yml").read_text())
RESTORE = "Lay out the base commit's test tree"
NAMED = "Name why the property report is missing"


def run_step(job: str, name: str, tmp_path: Path, env: dict[str, str]) -> tuple[int, Path]:
    output, summary = tmp_path / "output", tmp_path / "summary"
    output.touch()
    summary.touch()
    completed = subprocess.run(
        ["bash", "-e", "-c", workflow_step(WORKFLOW, job, name)["run"]],
        env={**os.environ, **env, "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary),
             "RUNNER_TEMP": str(tmp_path)},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return completed.returncode, tmp_path


@pytest.mark.parametrize(("exit_code", "said"), [(2, "failed"), (0, "done")])
def test_the_restore_step_says_failed_until_it_is_done(
    tmp_path: Path, exit_code: int, said: str
) -> None:
    action = tmp_path / "waiver" / "action"
    action.mkdir(parents=True)
    (action / "run-in-image.sh").write_text(f"exit {exit_code}\n")

    code, folder = run_step("properties", RESTORE, tmp_path, {"BASE": "a" * 40, "LOCK": "l"})

    assert code == exit_code
    assert read_github_output((folder / "output").read_text())["tests-restore"] == said


def test_the_gate_job_names_the_cause_when_the_restore_failed(tmp_path: Path) -> None:
    outputs = WORKFLOW["jobs"]["properties"]["outputs"]
    assert outputs["tests-restore"] == "${{ steps.restore.outputs.tests-restore }}"
    assert workflow_step(WORKFLOW, "properties", RESTORE)["id"] == "restore"
    named = workflow_step(WORKFLOW, "gate", NAMED)
    assert named["if"] == "${{ needs.properties.outputs.tests-restore == 'failed' }}"
    gate_steps = [s["name"] for s in WORKFLOW["jobs"]["gate"]["steps"]]
    assert gate_steps.index(NAMED) < gate_steps.index("Classify every test id")

    code, folder = run_step("gate", NAMED, tmp_path, {})

    assert code == 0
    assert (folder / "summary").read_text() == (
        "**Why the property report is missing:** the property job could not lay out the base "
        "commit's test tree (its log says why), so the property suite never ran and left no "
        "report.\n\n"
    )
