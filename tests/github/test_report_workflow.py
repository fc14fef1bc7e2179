"""The reusable report workflow, read as a file: its inputs mean what the gate workflow's
mean, its one job has exactly the permissions it needs, and the documented caller passes
the linters. tests/container/test_report_act.py runs it under act."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from helpers.support import REPO, check_caller_workflow

WORKFLOWS = REPO / ".github" / "workflows"
REPORT = yaml.safe_load((WORKFLOWS / "waiver-report.yml").read_text())
GATE = yaml.safe_load((WORKFLOWS / "waiver-gate.yml").read_text())
DOCS = (REPO / "docs" / "replays.md").read_text()
SECTION = DOCS[DOCS.index("### The report workflow") : DOCS.index("### GitHub Enterprise Server")]


def test_each_input_shared_with_the_gate_workflow_has_its_type_and_default() -> None:
    report = REPORT[True]["workflow_call"]["inputs"]
    gate = GATE[True]["workflow_call"]["inputs"]
    shared = report.keys() & gate.keys()
    assert report.keys() - shared == {"comment", "gate-workflow", "branches"}
    for name in shared:
        assert (report[name]["type"], report[name].get("default")) == (
            gate[name]["type"], gate[name].get("default"),
        ), name  # fmt: skip


def test_every_input_is_documented() -> None:
    inputs = REPORT[True]["workflow_call"]["inputs"]
    assert [name for name in inputs if f"`{name}`" not in SECTION] == []


def test_its_one_job_reads_the_runs_and_writes_only_the_status_and_the_comment() -> None:
    assert REPORT["permissions"] == {}
    [job] = REPORT["jobs"].values()
    assert job["permissions"] == {
        "actions": "read", "contents": "read", "pull-requests": "write", "statuses": "write",
    }  # fmt: skip
    gate = next(step for step in job["steps"] if step.get("uses") == "./waiver-action")
    assert gate["with"]["commit-status"] == "true"
    assert gate["with"]["trusted-ref"] == "${{ steps.pull.outputs.base }}"


def test_the_documented_caller_passes_the_linters(tmp_path: Path) -> None:
    [text] = [
        block
        for block in re.findall(r"```yaml\n(.*?)```", SECTION, re.DOTALL)
        if "waiver-report.yml@" in block
    ]
    caller = yaml.safe_load(text)
    job = caller["jobs"]["report"]
    check_caller_workflow(text, job, tmp_path, reusable="waiver-report.yml")
    assert caller[True] == {"workflow_run": {"workflows": ["waiver"], "types": ["completed"]}}
