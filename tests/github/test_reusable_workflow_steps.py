"""The reusable workflow that runs replays by shards as matrix jobs: read as data, its shell
steps run as the runner would run them, the download layout the gate reads, and the
workflow's least privilege, pinning and lint."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers.replay_support import gate_here, pytest_words, write_repo
from helpers.support import REPO, classes, load_report, workflow_step
from waiver.gate.pipeline import NO_REGISTRY_BLOCKS

WORKFLOW = REPO / ".github" / "workflows" / "waiver-gate.yml"


# The reusable workflow, read as data and its shell steps run as the runner would run them.


def _workflow() -> dict[Any, Any]:
    document: dict[Any, Any] = yaml.safe_load(WORKFLOW.read_text())
    return document


def _run_step(job: str, name: str, workspace: Path, cwd: Path, env: dict[str, str]) -> None:
    """A `run:` step under bash -e, as GitHub's Linux runners run one without `shell:`."""
    workspace.mkdir(parents=True, exist_ok=True)
    script = workspace.parent / f"{workspace.name}.sh"
    script.write_text(workflow_step(_workflow(), job, name)["run"])
    subprocess.run(
        ["bash", "-e", str(script)],
        cwd=cwd,
        env={**os.environ, **env, "GITHUB_WORKSPACE": str(workspace)},
        check=True,
        capture_output=True,
    )


def _merge_artifacts(jobs: Path, pattern: str, destination: Path) -> None:
    """actions/download-artifact with `pattern` and `merge-multiple: true`: every matching
    artifact's files are extracted into the one destination, keeping their relative paths."""
    for artifact in sorted(jobs.glob(pattern)):
        shutil.copytree(artifact, destination, dirs_exist_ok=True)


SHARD_SUITES = {
    "tests/shard_1/test_one.py": (
        "from pathlib import Path\n\n\n"
        "def test_stable():\n    assert True\n\n\n"
        "def test_flips():\n"
        "    counter = Path(__file__).with_name('counter.txt')\n"
        "    count = int(counter.read_text()) + 1 if counter.exists() else 1\n"
        "    counter.write_text(str(count))\n"
        "    assert count % 2 == 0\n"
    ),
    "tests/shard_2/test_two.py": "def test_other():\n    assert True\n",
}
SHARD_IDS = {
    "stable": "tests/shard_1/test_one.py::test_stable",
    "flips": "tests/shard_1/test_one.py::test_flips",
    "other": "tests/shard_2/test_two.py::test_other",
}


@pytest.fixture(scope="module")
def matrix_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workflow's property job and its 5 replays by 2 shards matrix jobs, each step run
    with bash in a workspace of its own and each upload kept as an artifact folder."""
    repo = tmp_path_factory.mktemp("matrix")
    write_repo(repo)
    for relative, text in SHARD_SUITES.items():
        (repo / relative).parent.mkdir(parents=True, exist_ok=True)
        (repo / relative).write_text(text)
    jobs = repo / "jobs"
    job = jobs / "properties"
    _run_step("properties", "Run the property suite once", job, repo, {
        "PROPERTY_COMMAND": shlex.join(pytest_words("properties")) + ' --junitxml="$WAIVER_JUNIT"',
    })  # fmt: skip
    # upload-artifact `path: waiver-properties/`: the artifact holds the folder's contents.
    shutil.copytree(job / "waiver-properties", jobs / "waiver-properties")
    command = shlex.join(pytest_words()) + ' "tests/shard_$WAIVER_SHARD" --junitxml="$WAIVER_JUNIT"'
    for replay in range(1, 6):
        for shard in (1, 2):
            job = jobs / f"job-{replay}-{shard}"
            _run_step("replays", "Run the assertion suite", job, repo, {
                "TEST_COMMAND": command,
                "WAIVER_REPLAY": str(replay),
                "WAIVER_SHARD": str(shard),
                "WAIVER_SHARDS": "2",
            })  # fmt: skip
            # upload-artifact `path: waiver-junit/`, one artifact per replay and shard.
            artifact = jobs / f"waiver-junit-run-{replay}-shard-{shard}"
            shutil.copytree(job / "waiver-junit", artifact)
            assert sorted(str(p.relative_to(artifact)) for p in artifact.rglob("*.xml")) == [
                f"run-{replay}/shard-{shard}.xml"
            ]
    return repo


@pytest.fixture
def gate_job(matrix_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The gate job's workspace: the change, then both downloads as the workflow does them."""
    work = tmp_path / "gate"
    shutil.copytree(matrix_run, work, ignore=shutil.ignore_patterns("jobs"))
    monkeypatch.chdir(work)
    _merge_artifacts(matrix_run / "jobs", "waiver-properties", work / "waiver-properties")
    _merge_artifacts(matrix_run / "jobs", "waiver-junit-run-*", work / "waiver-reports")
    return work


def _matrix_gate(*extra: str) -> int:
    return gate_here(
        "--replays", "5", *extra,
        reports="waiver-reports", properties="waiver-properties/properties.xml",
    )  # fmt: skip


@pytest.mark.slow
def test_the_download_layout_of_the_matrix_is_merged_by_the_gate(gate_job: Path) -> None:
    reports = gate_job / "waiver-reports"
    assert sorted(str(p.relative_to(reports)) for p in reports.rglob("*")) == sorted(
        [f"run-{r}" for r in range(1, 6)]
        + [f"run-{r}/shard-{s}.xml" for r in range(1, 6) for s in (1, 2)]
    )
    (gate_job / "waiver.yml").write_text("registry: none\n")  # the layout, not the registry
    assert _matrix_gate("--shards", "2", "--config", "waiver.yml") == 0
    report = load_report(gate_job / "waiver.json")
    assert classes(report) == {
        SHARD_IDS["flips"]: "unstable_assertion",
        SHARD_IDS["stable"]: "stable_pass",
        SHARD_IDS["other"]: "stable_pass",
    }
    assert [(row["replay_pass"], row["replay_total"]) for row in report["rows"]] == [
        (2, 5), (5, 5), (5, 5)
    ]  # fmt: skip
    assert report["replays"] == {"count": 5, "read": 5, "errors": []}


@pytest.mark.slow
def test_the_base_matrix_reaches_the_gate_as_base_replays(matrix_run: Path, gate_job: Path) -> None:
    """The base job's steps, run like the change's, downloaded as the gate job does."""
    jobs = gate_job.parent / "base-jobs"
    command = shlex.join(pytest_words()) + ' "tests/shard_$WAIVER_SHARD" --junitxml="$WAIVER_JUNIT"'
    for replay in range(1, 6):
        for shard in (1, 2):
            job = jobs / f"job-{replay}-{shard}"
            _run_step("base-replays", "Run the assertion suite at the base", job, gate_job, {
                "TEST_COMMAND": command,
                "WAIVER_REPLAY": str(replay),
                "WAIVER_SHARD": str(shard),
                "WAIVER_SHARDS": "2",
            })  # fmt: skip
            shutil.copytree(
                job / "waiver-base-junit", jobs / f"waiver-base-junit-run-{replay}-shard-{shard}"
            )
    _merge_artifacts(jobs, "waiver-base-junit-run-*", gate_job / "waiver-base-reports")
    (gate_job / "waiver.yml").write_text("registry: none\n")  # the base, not the registry
    base = ["--base-reports", "waiver-base-reports", "--config", "waiver.yml"]
    assert _matrix_gate("--shards", "2", *base) == 0
    report = load_report(gate_job / "waiver.json")
    assert {row["test_id"]: row["base"]["meaning"] for row in report["rows"]} == {
        SHARD_IDS["flips"]: "already_flaky",
        SHARD_IDS["stable"]: "none",
        SHARD_IDS["other"]: "none",
    }
    assert (report["base"]["count"], report["base"]["errors"]) == (5, [])


@pytest.mark.slow
def test_a_missing_shard_makes_the_tests_unknown_and_is_named(gate_job: Path) -> None:
    (gate_job / "waiver-reports" / "run-4" / "shard-2.xml").unlink()
    assert _matrix_gate("--shards", "2") == 1
    report = load_report(gate_job / "waiver.json")
    # The whole replay is dropped, so the tests of the missing shard and their neighbours
    # are all short of replays.
    assert classes(report) == dict.fromkeys(SHARD_IDS.values(), "unknown_test")
    assert report["replays"]["errors"] == [
        {
            "replay": 4,
            "source": "waiver-reports/run-4/shard-2.xml",
            "problem": "missing: shard 2 of 2, so the replay is not counted",
        }
    ]
    summary = (gate_job / "summary.md").read_text()
    assert "`waiver-reports/run-4/shard-2.xml`" in summary
    assert "`missing: shard 2 of 2, so the replay is not counted`" in summary

    # Without the expected shard count the missing shard's own test is short too, but
    # nothing names the shard.
    assert _matrix_gate() == 1
    report = load_report(gate_job / "waiver.json")
    assert classes(report) == {
        SHARD_IDS["flips"]: "unstable_assertion",
        SHARD_IDS["stable"]: "stable_pass",
        SHARD_IDS["other"]: "unknown_test",
    }
    assert report["replays"]["errors"] == []


@pytest.mark.slow
def test_a_shard_missing_from_every_replay_cannot_pass_unnoticed(
    gate_job: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for replay in range(1, 6):
        (gate_job / "waiver-reports" / f"run-{replay}" / "shard-2.xml").unlink()
    # Without the shard count its tests simply vanish: only the missing registry blocks.
    assert _matrix_gate() == 1
    report = load_report(gate_job / "waiver.json")
    assert SHARD_IDS["other"] not in classes(report)
    assert report["run_blockers"] == [NO_REGISTRY_BLOCKS]
    capsys.readouterr()
    assert _matrix_gate("--shards", "2") == 2
    report = load_report(gate_job / "waiver.json")
    assert report["blocked"] is True
    assert report["error"] == {
        "source": "waiver-reports",
        "problem": "no test case ran in any replay of the reports folder "
        "(waiver-reports/run-1/shard-2.xml: "
        "missing: shard 2 of 2, so the replay is not counted)",
    }


@pytest.mark.slow
def test_the_shard_count_is_checked_both_ways(gate_job: Path) -> None:
    extra = gate_job / "waiver-reports" / "run-2" / "shard-3.xml"
    shutil.copy(gate_job / "waiver-reports" / "run-2" / "shard-2.xml", extra)
    assert _matrix_gate("--shards", "2") == 1
    assert load_report(gate_job / "waiver.json")["replays"]["errors"] == [
        {
            "replay": 2,
            "source": "waiver-reports/run-2",
            "problem": "1 report files beyond shard-1.xml … shard-2.xml: shard-3.xml",
        }
    ]
    extra.unlink()
    assert _matrix_gate("--shards", "3") == 2  # every replay lacks shard 3
    assert _matrix_gate("--shards", "0") == 2


# Every replay job's cell but the property job's, replay 1 of shard 1.
CELLS = ",".join(
    f'{{"replay":{r},"shard":{s}}}' for r in range(1, 6) for s in (1, 2) if (r, s) != (1, 1)
)
BASE_CELLS = ",".join(f'{{"replay":{r},"shard":{s}}}' for r in range(1, 4) for s in (1, 2))


def test_the_plan_step_refuses_a_matrix_it_cannot_run(tmp_path: Path) -> None:
    outputs = tmp_path / "outputs"
    outputs.touch()
    _run_step("plan", "Plan the matrix of replays by shards", tmp_path / "w", tmp_path, {
        "REPLAYS": "5", "SHARDS": "2", "PER_JOB": "1", "BASE_REPLAYS": "0", "GITHUB_OUTPUT": str(outputs),
    })  # fmt: skip
    # No base replays: the base job is skipped, but its matrix still needs a value.
    assert outputs.read_text() == (
        f'first-job=[{{"replay":1,"shard":1}}]\nreplay-jobs=[{CELLS}]\nreplay-job-count=9\n'
        'base-jobs=[{"replay":1,"shard":1}]\n'
    )
    outputs.write_text("")
    _run_step("plan", "Plan the matrix of replays by shards", tmp_path / "w", tmp_path, {
        "REPLAYS": "5", "SHARDS": "2", "PER_JOB": "1", "BASE_REPLAYS": "3", "BASE_SHA": "a" * 40,
        "GITHUB_OUTPUT": str(outputs),
    })  # fmt: skip
    assert outputs.read_text() == (
        f'first-job=[{{"replay":1,"shard":1}}]\nreplay-jobs=[{CELLS}]\nreplay-job-count=9\n'
        f"base-jobs=[{BASE_CELLS}]\n"
    )
    for replays, shards, base, base_sha in (
        ("0", "1", "0", ""),
        ("5", "x", "0", ""),
        ("17", "16", "0", ""),
        ("5", "1", "-1", "a" * 40),
        ("5", "16", "17", "a" * 40),
        ("5", "1", "5", ""),  # base replays outside a pull request: no base commit
    ):
        with pytest.raises(subprocess.CalledProcessError):
            _run_step("plan", "Plan the matrix of replays by shards", tmp_path / "w", tmp_path, {
                "REPLAYS": replays, "SHARDS": shards, "PER_JOB": "1", "BASE_REPLAYS": base, "BASE_SHA": base_sha,
                "GITHUB_OUTPUT": str(outputs),
            })  # fmt: skip


def _run_steps(document: dict[Any, Any]) -> list[tuple[str, str]]:
    """(where, script) of every `run:` step of a workflow or composite action."""
    found = []
    for job_name, job in (document.get("jobs") or {}).items():
        for index, step in enumerate(job.get("steps") or []):
            if "run" in step:
                found.append((f"jobs.{job_name}.steps[{index}]", step["run"]))
    for index, step in enumerate((document.get("runs") or {}).get("steps") or []):
        if "run" in step:
            found.append((f"runs.steps[{index}]", step["run"]))
    return found


def _workflow_files() -> list[Path]:
    files = sorted((REPO / ".github" / "workflows").glob("*.y*ml"))
    return files + [path for path in (REPO / "action.yml",) if path.exists()]


def test_no_run_step_interpolates_an_expression() -> None:
    """Inputs reach shell steps through `env:` only: `${{ }}` in `run:` is script injection."""
    files = _workflow_files()
    assert WORKFLOW in files
    offenders = [
        f"{path.relative_to(REPO)}: {where}"
        for path in files
        for where, script in _run_steps(yaml.safe_load(path.read_text()))
        if "${{" in script
    ]
    assert offenders == []


def test_the_workflow_is_least_privilege_pinned_and_its_gate_runs_no_change_code() -> None:
    document = _workflow()
    assert document["permissions"] == {}
    # PyYAML reads the key `on` as the boolean true.
    inputs = document[True]["workflow_call"]["inputs"]
    assert {"test-command", "property-command", "replays", "shards"} <= inputs.keys()
    for name, job in document["jobs"].items():
        # Only the gate reads more: the reviews, which its action reads in a step apart. The
        # job a review runs reads nothing at all.
        extra = {"pull-requests": "read"} if name == "gate" else {}
        wanted = {} if name == "review" else {"contents": "read", **extra}
        assert job["permissions"] == wanted, name
        for step in job["steps"]:
            uses = step.get("uses", "")
            assert (
                uses == ""
                or uses == "./waiver-action"
                or re.fullmatch(
                    r"actions/(checkout|setup-python|setup-node|upload-artifact|download-artifact"
                    r"|cache/restore|cache/save)@[0-9a-f]{40}",
                    uses,
                )
            ), uses
            if uses.startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False
    gate = document["jobs"]["gate"]
    # The gate job's shell steps name waiver, clear the folders it fills, name the red-green
    # shards that arrived and why a property report is missing; nothing else.
    assert [step["name"] for step in gate["steps"] if "run" in step] == [
        "Name the waiver to check out",
        "Clear the folders this job fills",
        "Name the red-green replays that arrived",
        "Name why the property report is missing",
    ]
    action_checkout = workflow_step(_workflow(), "gate", "Check out waiver")
    assert action_checkout["with"] == {
        "repository": "${{ steps.source.outputs.repository }}",
        "ref": "${{ steps.source.outputs.ref }}",
        "path": "waiver-action",
        "persist-credentials": False,
    }
    download = workflow_step(_workflow(), "gate", "Download every replay's shards")["with"]
    assert download == {
        "pattern": "waiver-junit-run-*",
        "merge-multiple": True,
        "path": "change/waiver-reports",
    }
    upload = workflow_step(_workflow(), "replays", "Upload this shard's report")["with"]
    assert upload["name"] == "waiver-junit-run-${{ matrix.replay }}-shard-${{ matrix.shard }}"
    assert upload["path"] == "waiver-junit/"
    # The base replays run the base commit's code, never the change's.
    base = document["jobs"]["base-replays"]
    assert base["if"] == (
        "${{ inputs.base-replays > 0 && needs.plan.outputs.fixtures-match == 'true' }}"
    )
    assert workflow_step(_workflow(), "base-replays", "Check out the base commit")["with"] == {
        "ref": "${{ github.event.pull_request.base.sha || github.event.merge_group.base_sha }}",
        "persist-credentials": False,
    }
    base_upload = workflow_step(_workflow(), "base-replays", "Upload this base shard's report")[
        "with"
    ]
    assert base_upload["name"] == (
        "waiver-base-junit-run-${{ matrix.replay }}-shard-${{ matrix.shard }}"
    )
    assert workflow_step(_workflow(), "gate", "Download every base replay's shards")["with"] == {
        "pattern": "waiver-base-junit-run-*",
        "merge-multiple": True,
        "path": "change/waiver-base-reports",
    }
    classify = workflow_step(_workflow(), "gate", "Classify every test id")
    assert classify["with"]["working-directory"] == "change"
    assert classify["with"]["base-reports"] == (
        "${{ inputs.base-replays > 0 && needs.base-replays.result != 'skipped' "
        "&& 'waiver-base-reports' || '' }}"
    )
    assert classify["with"]["reports"] == "waiver-reports"
    assert classify["with"]["shards"] == "${{ inputs.shards }}"
    assert classify["with"]["replays"] == "${{ inputs.replays }}"


def _tool(name: str) -> str:
    found = shutil.which(
        name, path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    )
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed; CI must lint the workflows")
        pytest.skip(f"{name} is not installed here")
    return found


def test_actionlint_passes_on_the_reusable_workflow() -> None:
    completed = subprocess.run(
        [_tool("actionlint"), "-no-color", str(WORKFLOW.relative_to(REPO))],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (completed.returncode, completed.stdout) == (0, "")


def test_zizmor_finds_nothing_in_the_reusable_workflow() -> None:
    completed = subprocess.run(
        [_tool("zizmor"), "--offline", "--no-progress", str(WORKFLOW.relative_to(REPO))],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "No findings to report" in completed.stdout
