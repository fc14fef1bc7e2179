"""The reusable workflow's `replays-per-job`, read from the file and its steps run with bash:
a replay job runs the next replays of its shard one after the other, each a fresh run of the
test command, and every replay still reaches the gate as the artifact a job of its own
would upload, under the exact name the report workflow downloads."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers.replay_support import gate_here, pytest_words, write_repo
from helpers.support import REPO, classes, load_report, read_github_output, workflow_step
from waiver.decide.provenance_rules import GateShape, expected_names

DOCUMENT = yaml.safe_load((REPO / ".github" / "workflows" / "waiver-gate.yml").read_text())
PLAN = "Plan the matrix of replays by shards"
FIRST = "Run the assertion suite"
FURTHER = "Run this job's further replays"
# A test command that writes a report naming its replay and shard, and nothing else.
REPORT_COMMAND = (
    'printf \'<testsuite><testcase classname="r" name="replay_%s_shard_%s"/></testsuite>\' '
    '"$WAIVER_REPLAY" "$WAIVER_SHARD" > "$WAIVER_JUNIT"'
)


def run_step(job: str, name: str, workspace: Path, env: dict[str, str]) -> dict[str, str]:
    """The step under bash -e in `workspace`, as a runner runs it: its outputs."""
    workspace.mkdir(parents=True, exist_ok=True)
    outputs = workspace.parent / f"{workspace.name}-output"
    outputs.write_text("")
    subprocess.run(
        ["bash", "-e", "-c", workflow_step(DOCUMENT, job, name)["run"]],
        cwd=workspace,
        env={
            **os.environ,
            **env,
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_OUTPUT": str(outputs),
        },
        capture_output=True,
        text=True,
        check=True,
    )
    return read_github_output(outputs.read_text())


def plan(replays: int, shards: int, per_job: int | str) -> tuple[list[int], list[dict[str, int]]]:
    """The replay matrix the plan step writes, each replay job's first replay, and the
    matrix's include: the replays a job runs after its first, by their place."""
    outputs = run_step("properties", PLAN, Path(os.environ["PLAN_FOLDER"]), {
        "REPLAYS": str(replays), "SHARDS": str(shards), "PER_JOB": str(per_job),
        "BASE_REPLAYS": "0", "BASE_SHA": "",
    })  # fmt: skip
    return json.loads(outputs["replays"]), json.loads(outputs["further-replays"])


def upload_steps() -> list[dict[str, Any]]:
    return [
        step
        for step in DOCUMENT["jobs"]["replays"]["steps"]
        if step.get("uses", "").startswith("actions/upload-artifact@")
    ]


PLACES = ("second", "third", "fourth", "fifth")


def include_of(include: list[dict[str, int]], first: int) -> dict[str, int]:
    """The keys the matrix's include adds to the cells of the job whose first replay is
    `first`, as GitHub matches an include entry on the matrix's own keys."""
    cells = [cell for cell in include if cell["replay"] == first]
    assert len(cells) <= 1
    return {place: replay for cell in cells for place, replay in cell.items() if place != "replay"}


def replay_job(
    workspace: Path, first: int, shard: int, further: dict[str, int], inputs: dict[str, Any],
    command: str,
) -> dict[str, Path]:  # fmt: skip
    """One replay job's test steps run in order, `further` the matrix's keys for the
    replays after `first` that the plan gave it, with each upload as the workflow names it:
    its artifacts by name."""
    common = {
        "TEST_COMMAND": command, "WAIVER_SHARD": str(shard), "WAIVER_SHARDS": str(inputs["shards"]),
    }  # fmt: skip
    run_step("replays", FIRST, workspace, {**common, "WAIVER_REPLAY": str(first)})
    first_upload, *further_uploads = upload_steps()
    assert first_upload["with"]["name"] == (
        "waiver-junit-run-${{ matrix.replay }}-shard-${{ matrix.shard }}"
    )
    artifacts = {
        f"waiver-junit-run-{first}-shard-{shard}": workspace / first_upload["with"]["path"]
    }
    # The step's condition, `inputs.replays-per-job > 1`, evaluated here.
    if inputs["replays-per-job"] > 1:
        # `${{ matrix.second }} ${{ matrix.third }} …`, a missing key empty.
        listed = " ".join(str(further.get(place, "")) for place in PLACES)
        assert workflow_step(DOCUMENT, "replays", FURTHER)["env"]["FURTHER"] == " ".join(
            f"${{{{ matrix.{place} }}}}" for place in PLACES
        )
        run_step("replays", FURTHER, workspace, {**common, "FURTHER": listed})
    assert len(further_uploads) == len(PLACES)
    for place, step in zip(PLACES, further_uploads, strict=True):
        value = f"matrix.{place}"
        assert step["if"] == f"${{{{ {value} }}}}"
        assert step["with"] == {
            "name": f"waiver-junit-run-${{{{ {value} }}}}-shard-${{{{ matrix.shard }}}}",
            "path": f"waiver-junit-further/${{{{ {value} }}}}/",
            "if-no-files-found": "warn",
        }
        if place in further:  # else the key is missing, null, and the step skipped
            replay = further[place]
            artifacts[f"waiver-junit-run-{replay}-shard-{shard}"] = (
                workspace / "waiver-junit-further" / str(replay)
            )
    return artifacts


def matrix_artifacts(folder: Path, inputs: dict[str, Any], command: str) -> dict[str, Path]:
    """Every replay job of the planned matrix run, each in a workspace of its own: every
    artifact uploaded, copied as upload-artifact keeps a folder's contents."""
    uploaded: dict[str, Path] = {}
    shards = inputs["shards"]
    firsts, further = plan(inputs["replays"], shards, inputs["replays-per-job"])
    for first in firsts:
        for shard in range(1, shards + 1):
            workspace = folder / f"job-{first}-{shard}"
            job = replay_job(workspace, first, shard, include_of(further, first), inputs, command)
            for name, path in job.items():
                assert name not in uploaded, f"{name} uploaded twice"
                uploaded[name] = shutil.copytree(path, folder / "artifacts" / name)
    return uploaded


@pytest.fixture(autouse=True)
def plan_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAN_FOLDER", str(tmp_path / "plan"))


def test_the_plan_starts_a_job_every_replays_per_job_replays_and_names_the_rest() -> None:
    assert plan(5, 2, 1) == ([1, 2, 3, 4, 5], [])
    assert plan(5, 2, 2) == ([1, 3, 5], [{"replay": 1, "second": 2}, {"replay": 3, "second": 4}])
    assert plan(5, 1, 5) == (
        [1], [{"replay": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}]
    )  # fmt: skip
    assert plan(7, 1, 3) == (
        [1, 4, 7], [{"replay": 1, "second": 2, "third": 3}, {"replay": 4, "second": 5, "third": 6}]
    )  # fmt: skip


def test_the_replay_matrix_includes_what_the_plan_names() -> None:
    matrix = DOCUMENT["jobs"]["replays"]["strategy"]["matrix"]
    assert matrix["include"] == (
        "${{ fromJSON(github.event_name == 'pull_request_review' && '[]' || "
        "needs.properties.outputs.further-replays) }}"
    )
    outputs = DOCUMENT["jobs"]["properties"]["outputs"]
    assert outputs["further-replays"] == "${{ steps.plan.outputs.further-replays }}"


@pytest.mark.parametrize("per_job", ["0", "6", "x", "", "1.5"])
def test_the_plan_refuses_a_count_of_replays_per_job_it_has_no_uploads_for(per_job: str) -> None:
    with pytest.raises(subprocess.CalledProcessError) as refused:
        plan(5, 2, per_job)
    assert "replays-per-job must be a whole number from 1 to 5" in refused.value.stderr


@pytest.mark.parametrize("per_job", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("replays", [1, 4, 5, 7])
def test_every_replay_reaches_the_gate_under_the_name_the_report_workflow_downloads(
    tmp_path: Path, replays: int, per_job: int
) -> None:
    inputs = {"replays": replays, "shards": 2, "replays-per-job": per_job}
    uploaded = matrix_artifacts(tmp_path, inputs, REPORT_COMMAND)
    shape = GateShape(replays=replays, shards=2, base_replays=0)
    assert sorted(uploaded) == sorted(expected_names(shape)["replays"])
    for name, artifact in uploaded.items():
        found = re.fullmatch(r"waiver-junit-run-(\d+)-shard-(\d+)", name)
        assert found is not None, name
        replay, shard = found.groups()
        files = [str(path.relative_to(artifact)) for path in artifact.rglob("*.xml")]
        assert files == [f"run-{replay}/shard-{shard}.xml"], name
        # The report is the one its replay wrote: WAIVER_REPLAY was that replay's number.
        assert f'name="replay_{replay}_shard_{shard}"' in (artifact / files[0]).read_text()


def test_no_artifact_is_named_by_a_step_the_change_s_code_runs_in() -> None:
    """The test command can write any step output of its step: an artifact named from one
    could be a base replay's or the property report's."""
    for job in ("properties", "replays", "base-replays", "change-tests"):
        for step in DOCUMENT["jobs"][job]["steps"]:
            if step.get("uses", "").startswith("actions/upload-artifact@"):
                named = json.dumps([step.get("if", ""), step["with"]])
                assert "steps." not in named, (job, step.get("name"))


def test_a_job_s_first_replay_is_uploaded_before_its_further_replays_run() -> None:
    names = [step.get("name", step.get("uses")) for step in DOCUMENT["jobs"]["replays"]["steps"]]
    first_upload = names.index("Upload this shard's report")
    assert names.index(FIRST) < first_upload < names.index(FURTHER)
    assert names[names.index(FURTHER) + 1 :] == [
        f"Upload the report of this job's {word} replay"
        for word in ("second", "third", "fourth", "fifth")
    ]


FLIPS = "tests/test_flip.py::test_flips"
STEADY = "tests/test_flip.py::test_steady"
SUITE = (
    "import os\n\n\n"
    "def test_steady():\n    assert True\n\n\n"
    "def test_flips():\n    assert int(os.environ['WAIVER_REPLAY']) % 2 == 0\n"
)


@pytest.mark.slow  # real pytest runs, one a replay
def test_replays_run_in_fewer_jobs_reach_the_same_classes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    write_repo(repo)
    (repo / "tests" / "test_flip.py").write_text(SUITE)
    command = shlex.join(pytest_words("tests/test_flip.py")) + ' --junitxml="$WAIVER_JUNIT"'
    inputs = {"replays": 5, "shards": 1, "replays-per-job": 3}
    # Each job's workspace is a copy of the change, as a checkout is.
    monkeypatch.chdir(repo)
    uploaded = {}
    firsts, further = plan(5, 1, 3)
    for first in firsts:
        workspace = tmp_path / f"job-{first}"
        shutil.copytree(repo, workspace)
        cells = include_of(further, first)
        uploaded.update(replay_job(workspace, first, 1, cells, inputs, command))
    reports = repo / "waiver-reports"
    for path in uploaded.values():  # download-artifact with merge-multiple
        shutil.copytree(path, reports, dirs_exist_ok=True)
    (repo / "waiver.yml").write_text("registry: none\n")
    properties = run_step("properties", "Run the property suite once", repo, {
        "PROPERTY_COMMAND": shlex.join(pytest_words("properties")) + ' --junitxml="$WAIVER_JUNIT"',
    })  # fmt: skip
    assert properties == {}
    assert gate_here("--replays", "5", "--config", "waiver.yml", reports="waiver-reports",
                     properties="waiver-properties/properties.xml") == 0  # fmt: skip
    report = load_report(repo / "waiver.json")
    assert classes(report) == {FLIPS: "unstable_assertion", STEADY: "stable_pass"}
    assert report["replays"] == {"count": 5, "read": 5, "errors": []}
