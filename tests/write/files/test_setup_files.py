"""The report workflow `waiver init` writes, with and without the team's app: it passes
actionlint and zizmor, names the app only when given one, and every input it passes is one
the reusable report workflow has."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers.support import REPO
from waiver.write.files.setup_files import Setup, render_report_workflow

PIN = "a" * 40
REPORT = yaml.safe_load((REPO / ".github" / "workflows" / "waiver-report.yml").read_text())


def setup(app_client_id: str | None) -> Setup:
    return Setup(
        fixtures="fixtures", fixture_globs=(), reads_fixtures=True, property_selection=None,
        property_command="pytest tests/properties", test_command="pytest tests",
        setup_command=None, red_green_command=None, waiver_repository="acme/waiver",
        waiver_ref=PIN, app_client_id=app_client_id,
    )  # fmt: skip


@pytest.mark.parametrize(("client_id", "written"), [(None, ""), ("Iv23liAbC123", "Iv23liAbC123")])
def test_the_report_workflow_names_the_app_only_when_given_one(
    tmp_path: Path, client_id: str | None, written: str
) -> None:
    text = render_report_workflow(setup(client_id))
    job = yaml.safe_load(text)["jobs"]["report"]
    assert job["with"]["app-client-id"] == written
    assert job["with"].keys() <= REPORT[True]["workflow_call"]["inputs"].keys()
    said = "check run `waiver` of the team's GitHub App" if client_id else "commit status `waiver`"
    assert said in text.replace("\n# ", " ")
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "waiver-report.yml").write_text(text)
    tools = Path(sys.executable).parent
    for argv in (
        [str(tools / "actionlint"), "-no-color", ".github/workflows/waiver-report.yml"],
        [
            str(tools / "zizmor"),
            "--offline",
            "--no-progress",
            ".github/workflows/waiver-report.yml",
        ],
    ):
        completed = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, check=False)
        assert completed.returncode == 0, completed.stdout + completed.stderr
