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


def plan_outputs(replays: int, shards: int, per_job: int | str, base: int = 0) -> dict[str, str]:
    """The plan step's outputs, `base` base replays (for a pull request's base commit)."""
    return run_step("plan", PLAN, Path(os.environ["PLAN_FOLDER"]), {
        "REPLAYS": str(replays), "SHARDS": str(shards), "PER_JOB": str(per_job),
        "BASE_REPLAYS": str(base), "BASE_SHA": "a" * 40 if base else "",
    })  # fmt: skip


def plan(replays: int, shards: int, per_job: int | str) -> list[dict[str, int]]:
    """Every replay job's cell as the plan step writes them: its first replay, its shard and
    the replays it runs next by their place; the property job's cell first."""
    outputs = plan_outputs(replays, shards, per_job)
    first, rest = json.loads(outputs["first-job"]), json.loads(outputs["replay-jobs"])
    assert len(first) == 1
    count = int(outputs["replay-job-count"])
    assert len(rest) == max(count, 1)  # the placeholder cell when there is none
    return first + rest[:count]


# The jobs that run replays: the property job its one cell, the replay job every other.
REPLAY_JOBS = ("properties", "replays")
PLACES = ("second", "third", "fourth", "fifth")
# Where the property job's replay steps differ from the replay job's: none runs after a drift.
DRIFT = "needs.plan.outputs.fixtures-match == 'true'"
# Each job that replays: its first replay's step, its further replays' step, and the prefix
# of its artifacts' names (and of its reports' folders).
REPLAYED_BY = {
    "properties": (FIRST, FURTHER, "waiver-junit"),
    "replays": (FIRST, FURTHER, "waiver-junit"),
    "base-replays": (
        "Run the assertion suite at the base", "Run this job's further base replays",
        "waiver-base-junit",
    ),
}  # fmt: skip


def replay_steps(job: str) -> list[dict[str, Any]]:
    """The job's steps from its first replay on."""
    steps: list[dict[str, Any]] = DOCUMENT["jobs"][job]["steps"]
    return steps[[step.get("name") for step in steps].index(REPLAYED_BY[job][0]) :]


def upload_steps(job: str) -> list[dict[str, Any]]:
    return [
        step
        for step in replay_steps(job)
        if step.get("uses", "").startswith("actions/upload-artifact@")
    ]


def condition(step: dict[str, Any], job: str) -> str:
    """The step's `if:` as the replay job spells it: the property job's drift guard taken off."""
    spelled: str = step.get("if", "")
    if job == "properties":
        guarded = spelled.replace(f"{DRIFT} && ", "").replace(f"${{{{ {DRIFT} }}}}", "")
        assert guarded != spelled, step["name"]
        return guarded
    return spelled


def replay_job(
    workspace: Path, job: str, cell: dict[str, int], inputs: dict[str, Any], command: str
) -> dict[str, Path]:
    """One job's replay steps run in order for the plan's `cell`, with each upload as the
    workflow names it: its artifacts by name."""
    first_step, further_step, prefix = REPLAYED_BY[job]
    first, shard = cell["replay"], cell["shard"]
    common = {
        "TEST_COMMAND": command, "WAIVER_SHARD": str(shard), "WAIVER_SHARDS": str(inputs["shards"]),
    }  # fmt: skip
    run_step(job, first_step, workspace, {**common, "WAIVER_REPLAY": str(first)})
    first_upload, *further_uploads = upload_steps(job)
    assert condition(first_upload, job) == ""
    assert first_upload["with"]["name"] == (
        f"{prefix}-run-${{{{ matrix.replay }}}}-shard-${{{{ matrix.shard }}}}"
    )
    assert first_upload["with"]["path"] == f"{prefix}/"
    artifacts = {f"{prefix}-run-{first}-shard-{shard}": workspace / prefix}
    further = workflow_step(DOCUMENT, job, further_step)
    assert condition(further, job) == "${{ inputs.replays-per-job > 1 }}"
    if inputs["replays-per-job"] > 1:
        # `${{ matrix.second }} ${{ matrix.third }} …`, a missing key empty.
        listed = " ".join(str(cell.get(place, "")) for place in PLACES)
        assert further["env"]["FURTHER"] == " ".join(
            f"${{{{ matrix.{place} }}}}" for place in PLACES
        )
        run_step(job, further_step, workspace, {**common, "FURTHER": listed})
    assert len(further_uploads) == len(PLACES)
    for place, step in zip(PLACES, further_uploads, strict=True):
        value = f"matrix.{place}"
        assert condition(step, job) == f"${{{{ {value} }}}}"
        assert step["with"] == {
            "name": f"{prefix}-run-${{{{ {value} }}}}-shard-${{{{ matrix.shard }}}}",
            "path": f"{prefix}-further/${{{{ {value} }}}}/",
            "if-no-files-found": "warn",
        }
        if place in cell:  # else the key is missing, null, and the step skipped
            replay = cell[place]
            artifacts[f"{prefix}-run-{replay}-shard-{shard}"] = (
                workspace / f"{prefix}-further" / str(replay)
            )
    return artifacts


def matrix_artifacts(folder: Path, inputs: dict[str, Any], command: str) -> dict[str, Path]:
    """Every replay job of the planned matrix run, each in a workspace of its own, the first
    cell by the property job: every artifact uploaded, copied as upload-artifact keeps a
    folder's contents."""
    uploaded: dict[str, Path] = {}
    cells = plan(inputs["replays"], inputs["shards"], inputs["replays-per-job"])
    for index, cell in enumerate(cells):
        workspace = folder / f"job-{cell['replay']}-{cell['shard']}"
        job = REPLAY_JOBS[min(index, 1)]
        for name, path in replay_job(workspace, job, cell, inputs, command).items():
            assert name not in uploaded, f"{name} uploaded twice"
            uploaded[name] = shutil.copytree(path, folder / "artifacts" / name)
    return uploaded


@pytest.fixture(autouse=True)
def plan_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAN_FOLDER", str(tmp_path / "plan"))


def test_the_plan_starts_a_job_every_replays_per_job_replays_and_names_the_rest() -> None:
    assert plan(5, 2, 1) == [{"replay": r, "shard": s} for r in range(1, 6) for s in (1, 2)]
    assert plan(5, 2, 2) == [
        {"replay": 1, "shard": 1, "second": 2}, {"replay": 1, "shard": 2, "second": 2},
        {"replay": 3, "shard": 1, "second": 4}, {"replay": 3, "shard": 2, "second": 4},
        {"replay": 5, "shard": 1}, {"replay": 5, "shard": 2},
    ]  # fmt: skip
    # One job does it all: the property job, and no replay job.
    assert plan(5, 1, 5) == [
        {"replay": 1, "shard": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}
    ]
    assert plan(7, 1, 3) == [
        {"replay": 1, "shard": 1, "second": 2, "third": 3},
        {"replay": 4, "shard": 1, "second": 5, "third": 6},
        {"replay": 7, "shard": 1},
    ]


def test_the_property_job_runs_the_first_cell_and_the_replay_job_every_other() -> None:
    jobs = DOCUMENT["jobs"]
    assert jobs["properties"]["strategy"]["matrix"] == {
        "include": "${{ fromJSON(github.event_name == 'pull_request_review' && "
        '\'[{"replay":1,"shard":1}]\' || needs.plan.outputs.first-job) }}'
    }
    assert jobs["replays"]["strategy"]["matrix"] == {
        "include": "${{ fromJSON(github.event_name == 'pull_request_review' && "
        '\'[{"replay":1,"shard":1}]\' || needs.plan.outputs.replay-jobs) }}'
    }
    assert "needs.plan.outputs.replay-job-count != '0'" in jobs["replays"]["if"]
    outputs = jobs["plan"]["outputs"]
    for name in ("first-job", "replay-jobs", "replay-job-count"):
        assert outputs[name] == f"${{{{ steps.plan.outputs.{name} }}}}"


def test_the_property_job_replays_as_a_replay_job_does_after_its_property_suite() -> None:
    """The same steps, word for word but for the drift guard: the property job's replays are
    no different evidence from any other job's."""
    ours, theirs = replay_steps("properties"), replay_steps("replays")
    assert [{**step, "if": condition(step, "properties")} for step in ours] == [
        {**step, "if": step.get("if", "")} for step in theirs
    ]
    names = [step.get("name") for step in DOCUMENT["jobs"]["properties"]["steps"]]
    assert names.index("Upload the property report") < names.index(FIRST)


@pytest.mark.parametrize("per_job", ["0", "6", "x", "", "1.5"])
def test_the_plan_refuses_a_count_of_replays_per_job_it_has_no_uploads_for(per_job: str) -> None:
    with pytest.raises(subprocess.CalledProcessError) as refused:
        plan(5, 2, per_job)
    assert "replays-per-job must be a whole number from 1 to 5" in refused.value.stderr


def each_report_is_its_replay_s(uploaded: dict[str, Path]) -> None:
    """Each artifact holds one report, at run-<replay>/shard-<shard>.xml, written by the
    replay its name says: WAIVER_REPLAY was that replay's number."""
    for name, artifact in uploaded.items():
        found = re.fullmatch(r"waiver(?:-base)?-junit-run-(\d+)-shard-(\d+)", name)
        assert found is not None, name
        replay, shard = found.groups()
        files = [str(path.relative_to(artifact)) for path in artifact.rglob("*.xml")]
        assert files == [f"run-{replay}/shard-{shard}.xml"], name
        assert f'name="replay_{replay}_shard_{shard}"' in (artifact / files[0]).read_text()


@pytest.mark.parametrize("per_job", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("replays", [1, 4, 5, 7])
def test_every_replay_reaches_the_gate_under_the_name_the_report_workflow_downloads(
    tmp_path: Path, replays: int, per_job: int
) -> None:
    inputs = {"replays": replays, "shards": 2, "replays-per-job": per_job}
    uploaded = matrix_artifacts(tmp_path, inputs, REPORT_COMMAND)
    shape = GateShape(replays=replays, shards=2, base_replays=0)
    assert sorted(uploaded) == sorted(expected_names(shape)["replays"])
    each_report_is_its_replay_s(uploaded)


@pytest.mark.parametrize("per_job", [1, 2, 3, 5])
def test_base_replays_share_jobs_as_the_replays_do_under_the_same_names(
    tmp_path: Path, per_job: int
) -> None:
    uploaded: dict[str, Path] = {}
    cells = json.loads(plan_outputs(5, 2, per_job, base=4)["base-jobs"])
    assert len(cells) == 2 * -(-4 // per_job)  # a job every per_job base replays, each shard
    inputs = {"shards": 2, "replays-per-job": per_job}
    for cell in cells:
        workspace = tmp_path / f"base-{cell['replay']}-{cell['shard']}"
        job = replay_job(workspace, "base-replays", cell, inputs, REPORT_COMMAND)
        for name, path in job.items():
            assert name not in uploaded, f"{name} uploaded twice"
            uploaded[name] = path
    shape = GateShape(replays=5, shards=2, base_replays=4)
    assert sorted(uploaded) == sorted(expected_names(shape)["base_replays"])
    each_report_is_its_replay_s(uploaded)


def test_no_artifact_is_named_by_a_step_the_change_s_code_runs_in() -> None:
    """The test command can write any step output of its step: an artifact named from one
    could be a base replay's or the property report's."""
    for job in ("properties", "replays", "base-replays", "change-tests"):
        for step in DOCUMENT["jobs"][job]["steps"]:
            if step.get("uses", "").startswith("actions/upload-artifact@"):
                named = json.dumps([step.get("if", ""), step["with"]])
                assert "steps." not in named, (job, step.get("name"))


@pytest.mark.parametrize("job", REPLAY_JOBS)
def test_a_job_s_first_replay_is_uploaded_before_its_further_replays_run(job: str) -> None:
    names = [step.get("name", step.get("uses")) for step in DOCUMENT["jobs"][job]["steps"]]
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
    for index, cell in enumerate(plan(5, 1, 3)):
        workspace = tmp_path / f"job-{cell['replay']}"
        shutil.copytree(repo, workspace)
        job = REPLAY_JOBS[min(index, 1)]
        uploaded.update(replay_job(workspace, job, cell, inputs, command))
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
