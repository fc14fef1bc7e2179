"""The reusable report workflow, read as a file: its inputs mean what the gate workflow's
mean, its one job has exactly the permissions it needs, and the documented caller passes
the linters. tests/container/test_report_act.py runs it under act."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from helpers.support import REPO, check_caller_workflow, read_github_output, workflow_step

WORKFLOWS = REPO / ".github" / "workflows"
REPORT = yaml.safe_load((WORKFLOWS / "waiver-report.yml").read_text())
GATE = yaml.safe_load((WORKFLOWS / "waiver-gate.yml").read_text())
(REPORT_JOB,) = REPORT["jobs"]  # its one job
DOCS = (REPO / "docs" / "replays.md").read_text()
SECTION = DOCS[DOCS.index("### The report workflow") : DOCS.index("### GitHub Enterprise Server")]


def test_each_input_shared_with_the_gate_workflow_has_its_type_and_default() -> None:
    report = REPORT[True]["workflow_call"]["inputs"]
    gate = GATE[True]["workflow_call"]["inputs"]
    shared = report.keys() & gate.keys()
    assert report.keys() - shared == {
        "comment", "gate-workflow", "branches", "history-workflow", "app-client-id", "environment",
    }  # fmt: skip
    for name in shared:
        assert (report[name]["type"], report[name].get("default")) == (
            gate[name]["type"], gate[name].get("default"),
        ), name  # fmt: skip


def test_every_input_is_documented() -> None:
    inputs = REPORT[True]["workflow_call"]["inputs"]
    assert [name for name in inputs if f"`{name}`" not in SECTION] == []


def test_its_one_job_reads_the_runs_and_writes_only_the_verdict_and_the_comment() -> None:
    assert REPORT["permissions"] == {}
    [job] = REPORT["jobs"].values()
    assert job["permissions"] == {
        "actions": "read", "contents": "read", "pull-requests": "write", "statuses": "write",
    }  # fmt: skip
    gate = next(step for step in job["steps"] if step.get("uses") == "./waiver-action")
    assert gate["with"]["trusted-ref"] == "${{ steps.pull.outputs.base }}"
    # The commit status without an app; with one, its check run, posted with the token
    # minted in this job, which uses the app's environment only then.
    assert gate["with"]["commit-status"] == "${{ inputs.app-client-id == '' }}"
    assert gate["with"]["check-run-token"] == "${{ steps.app.outputs.token }}"
    assert job["environment"] == "${{ inputs.app-client-id != '' && inputs.environment || '' }}"
    mint = workflow_step(REPORT, REPORT_JOB, "Mint the verdict app's token")
    assert mint["uses"].startswith("actions/create-github-app-token@")
    assert mint["with"] == {
        "client-id": "${{ inputs.app-client-id }}",
        "private-key": "${{ secrets.WAIVER_APP_PRIVATE_KEY }}",
        "permission-checks": "write",
    }  # fmt: skip
    assert "inputs.app-client-id != ''" in mint["if"]


def test_the_run_s_artifacts_are_downloaded_by_id_only_when_there_are_ids() -> None:
    # No ids given to download-artifact downloads every artifact of the run, and a pattern
    # takes near-duplicate names: each download names the ids provenance chose, or is skipped.
    [job] = REPORT["jobs"].values()
    downloads = [
        each for each in job["steps"]
        if each.get("uses", "").startswith("actions/download-artifact@")
        and each["name"] != "Download the default branch's history"
    ]  # fmt: skip
    assert len(downloads) == 5
    for download in downloads:
        ids = download["with"]["artifact-ids"]
        assert "pattern" not in download["with"] and "name" not in download["with"]
        output = ids.removeprefix("${{ ").removesuffix(" }}")
        assert download["if"].startswith(f"${{{{ {output} != ''"), download["name"]
        assert download["with"]["run-id"] == "${{ steps.provenance.outputs.run-id }}"


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


def test_the_gate_is_shown_the_history_of_the_run_provenance_names_and_nothing_else() -> None:
    named = workflow_step(REPORT, REPORT_JOB, "Name the run whose reports are judged")
    assert named["env"]["HISTORY_WORKFLOW"] == "${{ inputs.history-workflow }}"
    assert '"--history-workflow=$HISTORY_WORKFLOW"' in named["run"]
    assert "--default-branch" not in named["run"]
    download = workflow_step(REPORT, REPORT_JOB, "Download the default branch's history")
    replays = workflow_step(REPORT, REPORT_JOB, "Download the triggering run's replays")
    assert download["uses"] == replays["uses"]
    assert download["continue-on-error"] is True
    assert download["if"] == "${{ steps.provenance.outputs.history-run-id != '' }}"
    assert download["with"] == {
        "name": "waiver-history", "path": "waiver-history",
        "run-id": "${{ steps.provenance.outputs.history-run-id }}",
        "github-token": "${{ github.token }}",
    }  # fmt: skip
    gate = next(each for each in REPORT["jobs"]["report"]["steps"] if "with" in each
                and each.get("uses") == "./waiver-action")  # fmt: skip
    assert gate["with"]["history"] == "${{ steps.history.outputs.file }}"
    assert "continue-on-error" not in workflow_step(
        REPORT, REPORT_JOB, "Name the history that arrived"
    )


@pytest.mark.parametrize(
    ("arrived", "outputs", "notice"),
    [
        ("file", {"file": "waiver-history/history.gz"}, ""),
        (None, {}, "::notice title=waiver history::the history of run 60 could not be "
                   "downloaded: the rows show none\n"),
        ("link", {}, "::notice title=waiver history::the history of run 60 could not be "
                     "downloaded: the rows show none\n"),
    ],
)  # fmt: skip
def test_a_history_that_did_not_arrive_is_a_notice_and_names_no_file(
    tmp_path: Path, arrived: str | None, outputs: dict[str, str], notice: str
) -> None:
    folder = tmp_path / "waiver-history"
    folder.mkdir()
    (tmp_path / "elsewhere.gz").write_bytes(b"\x1f\x8b")
    if arrived == "file":
        (folder / "history.gz").write_bytes(b"\x1f\x8b")
    elif arrived == "link":
        (folder / "history.gz").symlink_to(tmp_path / "elsewhere.gz")
    output = tmp_path / "output"
    output.write_text("")
    completed = subprocess.run(
        ["bash", "-e", "-c", workflow_step(REPORT, REPORT_JOB, "Name the history that arrived")["run"]],
        cwd=tmp_path, env={**os.environ, "GITHUB_OUTPUT": str(output), "HISTORY_RUN": "60"},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert (completed.returncode, completed.stdout) == (0, notice)
    assert read_github_output(output.read_text()) == outputs
