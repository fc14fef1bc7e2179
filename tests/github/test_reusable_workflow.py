"""The reusable workflow's own steps: where waiver comes from, and what runs before the change.

Shell steps run with bash as a Linux runner runs them; `docker` is tests/helpers/fake_docker.py,
which runs the real `python -m waiver ...` with only what the script hands the container.
tests/container/test_workflow_act.py runs the whole workflow under act.
"""

from __future__ import annotations

import json
import os
import py_compile
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers.fake_docker import install
from helpers.support import (
    EXAMPLE,
    REPO,
    check_caller_workflow,
    first_caller_workflow,
    git,
    read_github_output,
    workflow_step,
)

WORKFLOW: dict[Any, Any] = yaml.safe_load(
    (REPO / ".github" / "workflows" / "waiver-gate.yml").read_text()
)
JOBS_WITH_WAIVER = ("plan", "properties", "replays", "change-tests", "gate")
COMMITTED = ("fixtures", "tests", "fixture.lock", "known-tests.txt", "freezes.json",
             "slugify.py", "pytest.ini")  # fmt: skip
WAIVER_SHA = "c" * 40


def steps(job: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = WORKFLOW["jobs"][job]["steps"]
    return found


def names(job: str) -> list[str]:
    return [s.get("name", s.get("uses", "")) for s in steps(job)]


def run_step(
    job: str, name: str, cwd: Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """The step under bash -e, with its own GITHUB_OUTPUT; (the run, its outputs)."""
    outputs = cwd.parent / f"{cwd.name}-output"
    outputs.write_text("")
    completed = subprocess.run(
        ["bash", "-e", "-c", workflow_step(WORKFLOW, job, name)["run"]],
        cwd=cwd,
        env={**os.environ, **env, "GITHUB_WORKSPACE": str(cwd), "GITHUB_OUTPUT": str(outputs)},
        capture_output=True,
        text=True,
        check=False,
    )
    return completed, read_github_output(outputs.read_text())


# --- where waiver comes from ---------------------------------------------------------

SOURCE_STEP = "Name the waiver to check out"


@pytest.mark.parametrize("job", JOBS_WITH_WAIVER)
def test_each_job_checks_out_the_waiver_its_first_step_named(job: str) -> None:
    order = names(job)
    assert order.index(SOURCE_STEP) < order.index("Check out waiver")
    checkout = workflow_step(WORKFLOW, job, "Check out waiver")
    assert checkout["with"]["repository"] == "${{ steps.source.outputs.repository }}"
    assert checkout["with"]["ref"] == "${{ steps.source.outputs.ref }}"
    assert checkout["with"]["persist-credentials"] is False
    # job.workflow_* reaches waiver's checkout only through the step that checks it.
    text = yaml.safe_dump(checkout)
    assert "job.workflow" not in text and "inputs.waiver" not in text


def source(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    values = {"INPUT_REPOSITORY": "", "INPUT_REF": "", "WORKFLOW_REPOSITORY": "",
              "WORKFLOW_SHA": "", **env}  # fmt: skip
    return run_step("gate", SOURCE_STEP, tmp_path, values)


def test_the_inputs_name_waiver_before_the_workflow_s_own_commit(tmp_path: Path) -> None:
    completed, outputs = source(
        tmp_path, INPUT_REPOSITORY="mirror/waiver", INPUT_REF=WAIVER_SHA,
        WORKFLOW_REPOSITORY="owner/waiver", WORKFLOW_SHA="d" * 40,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout
    assert outputs == {"repository": "mirror/waiver", "ref": WAIVER_SHA}


def test_without_inputs_the_workflow_s_own_commit_is_checked_out(tmp_path: Path) -> None:
    completed, outputs = source(
        tmp_path, WORKFLOW_REPOSITORY="owner/waiver", WORKFLOW_SHA=WAIVER_SHA
    )
    assert completed.returncode == 0, completed.stdout
    assert outputs == {"repository": "owner/waiver", "ref": WAIVER_SHA}


@pytest.mark.parametrize("job", JOBS_WITH_WAIVER)
def test_with_nothing_to_name_waiver_every_job_stops_and_names_the_inputs(
    job: str, tmp_path: Path
) -> None:
    completed, outputs = run_step(job, SOURCE_STEP, tmp_path, {
        "INPUT_REPOSITORY": "", "INPUT_REF": "", "WORKFLOW_REPOSITORY": "", "WORKFLOW_SHA": "",
    })  # fmt: skip
    assert completed.returncode == 1
    assert completed.stdout.startswith(
        "::error title=waiver::no waiver to check out: set the inputs waiver-repository "
        "(owner/name) and waiver-ref (a full commit SHA)"
    )
    # No output: an empty `repository` would make actions/checkout fetch the change itself.
    assert outputs == {}


@pytest.mark.parametrize(
    "env",
    [
        # One input is not paired with the other half of job.workflow_*.
        {"INPUT_REPOSITORY": "mirror/waiver", "WORKFLOW_REPOSITORY": "o/w", "WORKFLOW_SHA": WAIVER_SHA},
        {"INPUT_REF": WAIVER_SHA, "WORKFLOW_REPOSITORY": "o/w", "WORKFLOW_SHA": "d" * 40},
        {"INPUT_REPOSITORY": "mirror/waiver", "INPUT_REF": "main"},
        {"INPUT_REPOSITORY": "mirror/waiver", "INPUT_REF": "v1.2.3"},
        {"INPUT_REPOSITORY": "mirror/waiver", "INPUT_REF": WAIVER_SHA[:12]},
        {"INPUT_REPOSITORY": "mirror/waiver", "INPUT_REF": WAIVER_SHA.upper()},
        {"INPUT_REPOSITORY": "waiver", "INPUT_REF": WAIVER_SHA},
        {"INPUT_REPOSITORY": "a/b/c", "INPUT_REF": WAIVER_SHA},
        {"INPUT_REPOSITORY": "a/b\nref=x", "INPUT_REF": WAIVER_SHA},
        {"INPUT_REPOSITORY": "mirror/waiver", "INPUT_REF": f"{WAIVER_SHA}\nrepository=x/y"},
    ],
    ids=["repository alone", "ref alone", "branch", "tag", "short id", "upper case",
         "no owner", "three parts", "line break in repository", "line break in ref"],
)  # fmt: skip
def test_a_waiver_that_is_not_owner_name_at_a_full_sha_is_refused(
    env: dict[str, str], tmp_path: Path
) -> None:
    completed, outputs = source(tmp_path, **env)
    assert completed.returncode == 1
    assert completed.stdout.startswith("::error title=waiver::")
    assert "waiver-repository" in completed.stdout and "waiver-ref" in completed.stdout
    assert outputs == {}


def test_the_waiver_inputs_are_documented_with_ghes_in_mind() -> None:
    inputs = WORKFLOW[True]["workflow_call"]["inputs"]  # YAML 1.1 reads `on` as True
    assert inputs["waiver-repository"]["default"] == inputs["waiver-ref"]["default"] == ""
    assert "GitHub Enterprise Server" in inputs["waiver-repository"]["description"]
    assert "full commit SHA" in inputs["waiver-ref"]["description"]


# --- the change and waiver never share a folder --------------------------------------


@pytest.mark.parametrize("job", ["plan", "properties", "replays", "change-tests"])
def test_waiver_leaves_the_workspace_before_the_change_arrives(job: str) -> None:
    order = names(job)
    assert workflow_step(WORKFLOW, job, "Check out waiver")["with"]["path"] == ".waiver-action"
    assert workflow_step(WORKFLOW, job, "Move waiver out of the workspace")["run"] == (
        'mv -- .waiver-action "$RUNNER_TEMP/waiver"'
    )
    assert (
        order.index("Check out waiver")
        < order.index("Move waiver out of the workspace")
        < order.index("Check out the change")
    )
    assert "path" not in workflow_step(WORKFLOW, job, "Check out the change")["with"]


def test_the_gate_job_roots_the_gate_in_the_change_s_own_folder() -> None:
    assert workflow_step(WORKFLOW, "gate", "Check out waiver")["with"]["path"] == "waiver-action"
    change = next(s for s in steps("gate") if s.get("name", "").startswith("Check out the change"))
    assert change["with"] == {"path": "change", "persist-credentials": False, "fetch-depth": 0}
    classify = workflow_step(WORKFLOW, "gate", "Classify every test id")
    assert classify["uses"] == "./waiver-action"
    assert classify["with"]["working-directory"] == "change"
    for download in (s for s in steps("gate") if "download-artifact" in s.get("uses", "")):
        assert download["with"]["path"].startswith("change/waiver-")
    assert workflow_step(WORKFLOW, "gate", "Clear the folders this job fills")["run"] == (
        "rm -rf -- change/waiver-properties change/waiver-reports change/waiver-base-reports "
        "change/waiver-change-tests change/waiver-red-green"
    )


@pytest.mark.parametrize(
    ("job", "last"), [("properties", "Run the property suite once"),
                      ("replays", "Run the assertion suite")]
)  # fmt: skip
def test_waiver_runs_from_its_image_before_any_of_the_change_s_code(job: str, last: str) -> None:
    order = names(job)
    assert order.index("Pull or build waiver's image") < order.index(
        "Lay out the base commit's test tree"
    ) < order.index(last)  # fmt: skip
    scripts = "\n".join(s.get("run", "") for s in steps(job))
    assert "pip install" not in scripts and "venv" not in scripts
    assert 'action/run-in-image.sh" restore-tests' in scripts


# --- replays only when they can change the verdict -----------------------------------


def test_the_lock_is_checked_in_a_job_of_its_own_before_any_layout_or_test() -> None:
    """On the change as it is: a layout puts the base's files back. The plan job runs no
    command of the change's at all."""
    order = names("plan")
    assert order.index("Check out the change") < order.index(
        "Check the fixtures and the harness against the base commit's lock"
    )
    assert "Lay out the base commit's test tree" not in order
    scripts = "\n".join(json.dumps(step) for step in steps("plan"))
    for command in ("inputs.setup-command", "inputs.property-command", "inputs.test-command"):
        assert command not in scripts
    assert WORKFLOW["jobs"]["plan"]["outputs"]["fixtures-match"] == (
        "${{ steps.lock.outputs.fixtures-match }}"
    )
    order = names("properties")
    assert order.index("Lay out the base commit's test tree") < order.index(
        "Run the property suite once"
    ) < order.index("Run the assertion suite")  # fmt: skip


def test_every_job_that_runs_the_change_s_code_comes_after_every_base_replay() -> None:
    """No base report is uploaded while the change's code runs (docs/limits.md)."""
    jobs = WORKFLOW["jobs"]
    assert jobs["base-replays"]["needs"] == "plan"
    assert jobs["properties"]["needs"] == ["plan", "base-replays"]
    assert jobs["properties"]["if"] == "${{ !cancelled() && needs.plan.result == 'success' }}"
    for job in ("replays", "change-tests"):
        assert "properties" in jobs[job]["needs"]
        # By name: the skipped base replays before it would skip this job by default.
        assert jobs[job]["if"].startswith(
            "${{ !cancelled() && needs.properties.result == 'success' && "
        ), job


@pytest.mark.parametrize("job", sorted(WORKFLOW["jobs"]))
def test_every_job_has_a_time_limit(job: str) -> None:
    # GitHub's default is 6 hours: a tree built to make waiver or its tests slow would hold
    # a runner that long.
    limit = WORKFLOW["jobs"][job].get("timeout-minutes")
    assert limit in ("${{ inputs.timeout-minutes }}", 15), limit


def test_no_replay_or_base_replay_job_runs_unless_the_fixtures_match() -> None:
    jobs = WORKFLOW["jobs"]
    match = "needs.plan.outputs.fixtures-match == 'true'"
    assert jobs["replays"]["if"] == (
        f"${{{{ !cancelled() && needs.properties.result == 'success' && {match} "
        "&& needs.plan.outputs.replay-job-count != '0' }}"
    )
    assert jobs["base-replays"]["if"] == f"${{{{ inputs.base-replays > 0 && {match} }}}}"
    # The property job's own replays: each step guarded.
    for step in steps("properties")[names("properties").index("Run the assertion suite") :]:
        assert step["if"].startswith(f"${{{{ {match}"), step["name"]
    # The gate still runs, and reads no base reports from base replays that did not run.
    assert jobs["gate"]["if"] == "${{ !cancelled() && github.event_name != 'pull_request_review' }}"
    assert workflow_step(WORKFLOW, "gate", "Classify every test id")["with"]["base-reports"] == (
        "${{ inputs.base-replays > 0 && needs.base-replays.result != 'skipped' "
        "&& 'waiver-base-reports' || '' }}"
    )
    assert workflow_step(WORKFLOW, "gate", "Download every replay's shards")["if"] == (
        f"${{{{ needs.properties.result == 'success' && {match} }}}}"
    )


@pytest.fixture
def fake_docker(tmp_path: Path) -> tuple[Path, Path]:
    """(a bin folder whose `docker` is tests/helpers/fake_docker.py, the log of its calls)."""
    folder = install(tmp_path)
    log = tmp_path / "docker.jsonl"
    log.touch()
    return folder, log


@pytest.fixture
def change(tmp_path: Path) -> tuple[Path, str]:
    """The example committed as a pull request's base: (the change's checkout, base commit)."""
    work = tmp_path / "workspace"
    work.mkdir()
    for name in COMMITTED:
        source = EXAMPLE / name
        if source.is_dir():
            shutil.copytree(source, work / name)
        else:
            shutil.copy2(source, work / name)
    git(work, "init", "--quiet")
    git(work, "add", "--", *COMMITTED)
    git(work, "commit", "--quiet", "-m", "base")
    return work, git(work, "rev-parse", "HEAD")


def run_in_image_step(
    name: str, work: Path, fake_docker: tuple[Path, Path], **env: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, str], list[list[str]]]:
    """A property or replay job step that runs waiver in its image, waiver in RUNNER_TEMP."""
    folder, log = fake_docker
    runner_temp = work.parent / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    if not (runner_temp / "waiver").exists():
        (runner_temp / "waiver").symlink_to(REPO)
    job = next(job for job in ("plan", "properties") if name in names(job))
    completed, outputs = run_step(job, name, work, {
        "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}", "RUNNER_TEMP": str(runner_temp),
        "FAKE_DOCKER_LOG": str(log), "WAIVER_IMAGE": "sha256:" + "e" * 64,
        "LOCK": "fixture.lock", "FIXTURES": "fixtures", "CONFIG": "", **env,
    })  # fmt: skip
    calls = [json.loads(line)["argv"] for line in log.read_text().splitlines()]
    return completed, outputs, calls


LOCK_STEP = "Check the fixtures and the harness against the base commit's lock"


def test_matching_fixtures_let_the_replays_run(
    change: tuple[Path, str], fake_docker: tuple[Path, Path]
) -> None:
    work, base = change
    completed, outputs, calls = run_in_image_step(LOCK_STEP, work, fake_docker, BASE=base)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert outputs == {"fixtures-match": "true"}
    (call,) = calls
    assert call[:call.index("--entrypoint")] == [
        "run", "--rm", "--network", "none", "--cap-drop", "ALL", "--security-opt",
        "no-new-privileges", "--read-only", "--tmpfs", "/tmp", "--user",
        f"{os.getuid()}:{os.getgid()}",
        "--mount", f"type=bind,source={work},target=/github/workspace,readonly",
        "--workdir", "/github/workspace",
    ]  # fmt: skip
    assert call[call.index("--entrypoint") :] == [
        "--entrypoint", "python3", "sha256:" + "e" * 64, "-P", "-m", "waiver", "check-lock",
        "--lock", "fixture.lock", "--fixtures", "fixtures", "--trusted-ref", base,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("patch", "named"),
    [
        (lambda work: (work / "fixtures" / "slugs.json").write_text("[]\n"), "fixtures/slugs.json"),
        (lambda work: (work / "tests" / "conftest.py").write_text("\n"), "tests/conftest.py"),
        (lambda work: (work / "fixture.lock").write_text("not a lock\n"), None),
    ],
    ids=["a drifted fixture", "a new conftest.py", "a lock edited by the change"],
)
def test_drift_stops_the_replays_and_the_step_names_it(
    change: tuple[Path, str], fake_docker: tuple[Path, Path], patch: Any, named: str | None
) -> None:
    work, base = change
    patch(work)
    completed, outputs, _ = run_in_image_step(LOCK_STEP, work, fake_docker, BASE=base)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    if named is None:
        # The lock is read from the base commit: the change's own edit of it is no drift.
        assert outputs == {"fixtures-match": "true"}
        return
    assert outputs == {"fixtures-match": "false"}
    assert named in completed.stdout
    assert "The lock check exited 1: no replay can change the verdict, so none runs." in (
        completed.stdout
    )


@pytest.mark.parametrize("base", ["", "0" * 40])
def test_without_a_base_commit_no_replay_runs(
    change: tuple[Path, str], fake_docker: tuple[Path, Path], base: str
) -> None:
    work, _ = change
    completed, outputs, calls = run_in_image_step(LOCK_STEP, work, fake_docker, BASE=base)
    assert completed.returncode == 0
    assert outputs == {"fixtures-match": "false"}
    assert calls == []
    assert "No base commit for this event, so no trusted lock" in completed.stdout


def test_the_restore_step_writes_the_base_tests_from_the_image(
    change: tuple[Path, str], fake_docker: tuple[Path, Path]
) -> None:
    work, base = change
    (work / "conftest.py").write_text("\n")
    module = work / "tests" / "properties" / "test_slug_properties.py"
    module.write_text("def test_p():\n    assert True\n")
    completed, _, calls = run_in_image_step(
        "Lay out the base commit's test tree", work, fake_docker, BASE=base
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert completed.stdout.endswith(
        f"waiver: tests from trusted revision {base}: 1 files restored, "
        "tests/properties/test_slug_properties.py; 1 removed, conftest.py\n"
    )
    assert not (work / "conftest.py").exists()
    (call,) = calls
    # The one run that may write the workspace.
    assert f"type=bind,source={work},target=/github/workspace" in call
    assert call[call.index("--entrypoint") :][3:7] == ["-P", "-m", "waiver", "restore-tests"]


def forge_waiver(work: Path) -> None:
    """A `waiver/` package committed by the change: a check-lock and a layout that say all
    is well and do nothing, as it would run were the checkout on the image's sys.path."""
    (work / "waiver").mkdir()
    (work / "waiver" / "__init__.py").write_text("")
    (work / "waiver" / "__main__.py").write_text("print('forged waiver')\n")


def test_a_waiver_package_in_the_change_is_not_the_lock_check_that_runs(
    change: tuple[Path, str], fake_docker: tuple[Path, Path]
) -> None:
    work, base = change
    forge_waiver(work)
    (work / "fixtures" / "slugs.json").write_text("[]\n")
    completed, outputs, _ = run_in_image_step(LOCK_STEP, work, fake_docker, BASE=base)
    assert "forged waiver" not in completed.stdout + completed.stderr
    assert outputs == {"fixtures-match": "false"}
    assert "fixtures/slugs.json" in completed.stdout


def test_a_waiver_package_in_the_change_is_not_the_layout_that_runs(
    change: tuple[Path, str], fake_docker: tuple[Path, Path]
) -> None:
    work, base = change
    forge_waiver(work)
    (work / "conftest.py").write_text("def pytest_runtest_call(item):\n    pass\n")
    completed, _, _ = run_in_image_step(
        "Lay out the base commit's test tree", work, fake_docker, BASE=base
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "forged waiver" not in completed.stdout
    assert not (work / "conftest.py").exists()


@pytest.mark.parametrize("base", ["", "0" * 40])
def test_the_restore_step_stops_without_a_base_commit(
    change: tuple[Path, str], fake_docker: tuple[Path, Path], base: str
) -> None:
    work, _ = change
    completed, _, calls = run_in_image_step(
        "Lay out the base commit's test tree", work, fake_docker, BASE=base
    )
    assert completed.returncode == 1
    assert completed.stderr == (
        "No base commit for this event, so no trusted test tree to run the property suite from.\n"
    )
    assert calls == []


@pytest.mark.parametrize("command", ["gate", "replay", "", "--help"])
def test_run_in_image_runs_nothing_but_its_five_commands(
    command: str, tmp_path: Path, fake_docker: tuple[Path, Path]
) -> None:
    folder, log = fake_docker
    completed = subprocess.run(
        ["bash", str(REPO / "action" / "run-in-image.sh"), command],
        env={**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}",
             "GITHUB_WORKSPACE": str(tmp_path), "WAIVER_IMAGE": "sha256:" + "e" * 64,
             "FAKE_DOCKER_LOG": str(log)},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert completed.returncode == 2
    assert (
        "runs restore-tests, check-lock, history, change-tests-plan or red-green, not"
        in completed.stdout
    )
    assert log.read_text() == ""


# --- bytecode in the checkout is never read ---------------------------------------------

USER_COMMANDS = [
    ("properties", "Run the property suite once", "PROPERTY_COMMAND"),
    ("replays", "Run the assertion suite", "TEST_COMMAND"),
    ("base-replays", "Run the assertion suite at the base", "TEST_COMMAND"),
    ("properties", "Set up the suite", "SETUP_COMMAND"),
    ("replays", "Set up the suite", "SETUP_COMMAND"),
    ("base-replays", "Set up the suite at the base", "SETUP_COMMAND"),
]


@pytest.mark.parametrize(("job", "name", "variable"), USER_COMMANDS)
def test_the_user_s_command_caches_bytecode_outside_the_checkout(
    job: str, name: str, variable: str, tmp_path: Path
) -> None:
    """A committed unchecked-hash pyc stands in for its source unless Python's cache folder
    is elsewhere: the step's own environment must put it under the runner's temp folder."""
    work = tmp_path / "workspace"
    work.mkdir()
    (work / "helper.py").write_text("FORGED = False\n")
    (tmp_path / "forged.py").write_text("FORGED = True\n")
    py_compile.compile(
        str(tmp_path / "forged.py"),
        cfile=str(work / "__pycache__" / f"helper.{sys.implementation.cache_tag}.pyc"),
        doraise=True,
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )
    command = f"{sys.executable} -c 'import helper, sys; print(helper.FORGED, sys.pycache_prefix)'"
    runner_temp = tmp_path / "runner-temp"
    declared = workflow_step(WORKFLOW, job, name)["env"]["PYTHONPYCACHEPREFIX"]
    assert declared == "${{ runner.temp }}/waiver-pycache"
    prefix = declared.replace("${{ runner.temp }}", str(runner_temp))
    shard = {"WAIVER_REPLAY": "1", "WAIVER_SHARD": "1", "WAIVER_SHARDS": "1"}
    completed, _ = run_step(
        job, name, work, {variable: command, "PYTHONPYCACHEPREFIX": prefix, **shard}
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines()[0] == f"False {prefix}"
    # Without it, the same command runs the forged bytecode.
    plain = subprocess.run(
        ["bash", "-c", command],
        cwd=work,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert plain.stdout == "True None\n"


# --- the plan --------------------------------------------------------------------------


def test_a_plan_that_fails_has_written_a_matrix_first(tmp_path: Path) -> None:
    completed, outputs = run_step("plan", "Plan the matrix of replays by shards", tmp_path, {
        "REPLAYS": "0", "SHARDS": "2", "BASE_REPLAYS": "0", "BASE_SHA": "",
    })  # fmt: skip
    assert completed.returncode == 1
    assert "replays and shards must be whole numbers" in completed.stderr
    assert {name: json.loads(value) for name, value in outputs.items()} == {
        "first-job": [{"replay": 1, "shard": 1}], "replay-jobs": [{"replay": 1, "shard": 1}],
        "replay-job-count": 0, "base-jobs": [{"replay": 1, "shard": 1}],
    }  # fmt: skip


# --- the documentation ---------------------------------------------------------------

DOCS = (REPO / "docs" / "replays.md").read_text()


def test_every_input_of_the_workflow_is_documented() -> None:
    section = DOCS[DOCS.index("## The reusable workflow") :]
    inputs = WORKFLOW[True]["workflow_call"]["inputs"]
    assert [name for name in inputs if f"`{name}`" not in section] == []


def test_the_documented_caller_names_waiver_and_passes_the_linters(tmp_path: Path) -> None:
    text, job = first_caller_workflow(REPO / "docs" / "replays.md")
    check_caller_workflow(text, job, tmp_path)
    caller = yaml.safe_load(text)
    assert (caller["permissions"], job["permissions"]) == (
        {}, {"contents": "read", "pull-requests": "read"},
    )  # fmt: skip
