"""The composite action, run step by step under a simulated runner.

The steps of action.yml run as the runner would run them: each `run:` with bash, with the
step's `env:` (expressions evaluated) and fresh GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
files; `if:` conditions honoured; the upload-artifact step recorded as an upload. `docker`
is tests/helpers/fake_docker.py, which runs the real entry point with only what the script hands
the container. tests/container/test_act.py runs the action under a real runner (act);
this simulation keeps what act cannot run here: a failed build or container start, image
pulls that fail, hostile inputs, and every check without a Docker engine.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from helpers.action_support import (
    EXAMPLE_INPUTS,
    TOKEN,
    Runner,
    outcomes,
    simulate,
)
from helpers.chat_server import reply, running_chat_server
from helpers.fake_docker import BUILT_ID, image_id
from helpers.support import REPO, ROUND_TRIP, load_report


def test_the_container_gets_no_network_no_capabilities_no_token(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    work, _ = workspace
    simulation = simulate(workspace, tmp_path)

    build, run = simulation.docker_calls
    assert build[:3] == ["build", "--quiet", "--iidfile"]
    assert build[4:] == ["--", str(REPO)]
    assert run[:9] == [
        "run", "--rm", "--network", "none", "--cap-drop", "ALL",
        "--security-opt", "no-new-privileges", "--read-only",
    ]  # fmt: skip
    assert f"type=bind,source={work},target=/github/workspace,readonly" in run
    writable = [
        spec for spec in run if spec.startswith("type=bind") and not spec.endswith(",readonly")
    ]
    assert [spec.split(",target=")[1] for spec in writable] == [
        "/github/out",
        "/github/file_commands/output",
        "/github/file_commands/step_summary",
    ]
    assert not any(TOKEN in argument or "TOKEN" in argument for argument in run)
    assert run[-1] == BUILT_ID


def test_inputs_reach_the_container_only_as_data(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    work, _ = workspace
    hostile = {
        "known-tests": "$(touch pwned-1)",
        "freezes": '"; touch pwned-2; echo "',
        "config": "`touch pwned-3`",
        "min-replays": "5; touch pwned-4",
    }

    simulation = simulate(workspace, tmp_path, hostile)

    assert not list(work.glob("pwned-*")) and not list(tmp_path.rglob("pwned-*"))
    run = simulation.docker_calls[-1]
    assert "INPUT_KNOWN-TESTS=$(touch pwned-1)" in run
    assert 'INPUT_FREEZES="; touch pwned-2; echo "' in run
    assert "INPUT_CONFIG=`touch pwned-3`" in run
    assert "INPUT_MIN-REPLAYS=5; touch pwned-4" in run
    # `waiver gate` refuses the replay count as a usage error, before it writes any report.
    assert simulation.step("gate").outputs["exit-code"] == "2"
    assert outcomes(simulation) == [
        "success",
        "skipped",
        "success",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "failure",
    ]


def test_every_gate_input_reaches_the_container_under_the_runner_name(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    inputs = {
        "reports": "r", "properties": "p", "fixtures": "f", "lock": "l", "known-tests": "k",
        "freezes": "z", "config": "c", "min-replays": "3", "freeze-hours": "9",
        "trusted-ref": "HEAD", "replays": "4", "out": "sub/w.json",
    }  # fmt: skip
    simulation = simulate(workspace, tmp_path, inputs)

    run = simulation.docker_calls[-1]
    passed = sorted(arg for arg in run if arg.startswith("INPUT_"))
    assert passed == sorted(
        [f"INPUT_{name.upper()}={value}" for name, value in inputs.items() if name != "out"]
        + ["INPUT_OUT=/github/out/w.json"]
    )


def test_a_build_failure_skips_the_gate_and_still_fails_the_step(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    simulation = simulate(workspace, tmp_path, extra={"FAKE_DOCKER_BUILD_EXIT": "1"})

    assert outcomes(simulation) == [
        "failure",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "failure",
    ]
    assert simulation.steps[-1].stdout == "::error title=waiver::the gate did not run\n"


def test_a_container_that_never_ran_leaves_no_report_and_fails(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    work, _ = workspace
    simulation = simulate(workspace, tmp_path, extra={"FAKE_DOCKER_RUN_EXIT": "125"})

    assert outcomes(simulation) == [
        "success",
        "skipped",
        "success",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "failure",
    ]
    assert not (work / "waiver.json").exists()
    assert "the gate failed (exit code 125)" in simulation.steps[-1].stdout


def test_a_prebuilt_image_is_pulled_once_and_run_by_id(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    reference = "registry.example/waiver@sha256:abc"
    simulation = simulate(workspace, tmp_path, {"image": reference})

    assert [call[:2] for call in simulation.docker_calls] == [
        ["image", "inspect"], ["pull", "--quiet"], ["image", "inspect"], ["run", "--rm"],
    ]  # fmt: skip
    assert simulation.docker_calls[-1][-1] == image_id(reference)
    assert simulation.outputs["image-source"] == f"the image input {reference}"


RELEASED = "ghcr.io/owner/waiver@sha256:" + "1" * 64


def released_action(tmp_path: Path, recorded: str) -> str:
    """A copy of the action's scripts whose action/image-digest holds `recorded`."""
    copy = tmp_path / "action-copy"
    shutil.copytree(REPO / "action", copy / "action")
    (copy / "action" / "image-digest").write_text(recorded)
    return str(copy)


def test_a_released_image_is_pulled_by_digest_and_nothing_is_built(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    action = released_action(tmp_path, RELEASED + "\n")
    simulation = simulate(workspace, tmp_path, extra={"GITHUB_ACTION_PATH": action})

    assert [call[0] for call in simulation.docker_calls] == ["image", "pull", "image", "run"]
    assert simulation.docker_calls[1] == ["pull", "--quiet", "--", RELEASED]
    assert simulation.docker_calls[-1][-1] == image_id(RELEASED)
    source = f"the released image {RELEASED} (pulled by digest)"
    assert simulation.outputs["image-source"] == source
    assert f"waiver: gate image {image_id(RELEASED)}, {source}" in simulation.steps[0].stdout
    assert f"<sub>waiver ran in {source}.</sub>" in simulation.summary
    assert simulation.outputs["exit-code"] == "1"


def test_a_released_image_already_present_is_not_pulled_again(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    action = released_action(tmp_path, RELEASED)
    simulation = simulate(
        workspace,
        tmp_path,
        extra={"GITHUB_ACTION_PATH": action, "FAKE_DOCKER_IMAGES": RELEASED},
    )

    assert [call[0] for call in simulation.docker_calls] == ["image", "run"]
    assert simulation.outputs["image-source"] == (
        f"the released image {RELEASED} (already on this machine)"
    )


def test_a_failed_pull_falls_back_to_a_build_on_the_base_image_input(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    action = released_action(tmp_path, RELEASED)
    simulation = simulate(
        workspace,
        tmp_path,
        {"base-image": "mirror.example/python:3.12-slim"},
        extra={"GITHUB_ACTION_PATH": action, "FAKE_DOCKER_PULL_EXIT": "1"},
    )

    calls = simulation.docker_calls
    assert [call[0] for call in calls] == ["image", "pull", "build", "run"]
    assert calls[2][4:] == ["--build-arg", "BASE=mirror.example/python:3.12-slim", "--", action]
    assert calls[-1][-1] == BUILT_ID
    assert simulation.outputs["image-source"] == (
        "built from the action's Dockerfile on mirror.example/python:3.12-slim "
        f"(pulling the released image {RELEASED} failed)"
    )
    assert (
        f"::warning title=waiver::could not pull {RELEASED}; building the image instead: "
        "Error response from daemon: no route to the registry" in simulation.steps[0].stdout
    )
    assert simulation.outputs["exit-code"] == "1"


@pytest.mark.parametrize(
    "recorded",
    [
        "ghcr.io/owner/waiver:v1",
        "ghcr.io/owner/waiver@sha256:abc",
        "--help",
        "waiver@sha256:" + "1" * 64,
    ],
)
def test_a_recorded_image_that_is_no_digest_reference_fails_the_step(
    workspace: tuple[Path, str], tmp_path: Path, recorded: str
) -> None:
    action = released_action(tmp_path, recorded)
    simulation = simulate(workspace, tmp_path, extra={"GITHUB_ACTION_PATH": action})

    assert simulation.docker_calls == []
    assert outcomes(simulation)[:2] == ["failure", "skipped"]
    assert "action/image-digest must hold registry/repository@sha256:" in (
        simulation.steps[0].stdout
    )


@pytest.mark.parametrize("name", ["image", "base-image"])
def test_an_image_input_that_is_an_option_or_has_a_line_break_is_refused(
    workspace: tuple[Path, str], tmp_path: Path, name: str
) -> None:
    for value in ("--help", "mirror.example/python\nsource=forged"):
        simulation = simulate(workspace, tmp_path / value[:3], {name: value})
        assert simulation.docker_calls == []
        assert "image and base-image must be image references" in simulation.steps[0].stdout
        assert "image-source" not in simulation.step("image").outputs


@pytest.mark.parametrize("out", ["../escape.json", "/tmp/abs.json", "a/../../b.json", "a,b.json"])
def test_out_must_stay_inside_the_workspace(
    workspace: tuple[Path, str], tmp_path: Path, out: str
) -> None:
    simulation = simulate(workspace, tmp_path, {"out": out})

    assert outcomes(simulation) == [
        "success",
        "skipped",
        "failure",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "failure",
    ]
    assert "::error title=waiver::out must be a relative path" in simulation.step("gate").stdout
    assert len(simulation.docker_calls) == 1  # the build only


def test_out_through_a_symlinked_folder_is_refused(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    work, _ = workspace
    target = tmp_path / "elsewhere"
    target.mkdir()
    (work / "planted").symlink_to(target)

    simulation = simulate(workspace, tmp_path, {"out": "planted/waiver.json"})

    assert simulation.step("gate").outcome == "failure"
    assert not list(target.iterdir())


def test_the_gate_sees_the_working_directory_alone(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    """A workflow's layout: the change in a folder, the action's checkout beside it, whose
    own conftest.py and pytest configuration must not count as the change's harness."""
    work, base = workspace
    beside = work.parent / "waiver-action"
    (beside / "tests").mkdir(parents=True)
    (beside / "tests" / "conftest.py").write_text("\n")
    (beside / "pyproject.toml").write_text("[tool.pytest.ini_options]\naddopts = '-q'\n")
    runner = Runner(
        work.parent, tmp_path / "runner", {**EXAMPLE_INPUTS, "working-directory": work.name}, base
    )

    simulation = runner.run()

    run = simulation.docker_calls[-1]
    assert f"type=bind,source={work},target=/github/workspace,readonly" in run
    assert simulation.outputs["waiver-json"] == str(work / "waiver.json")
    report = load_report(work / "waiver.json")
    assert report["fixtures"]["drift"] == []
    assert {row["class"] for row in report["rows"]} == {
        "stable_assertion_fail", "stable_pass", "unstable_assertion",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("folder", "message"),
    [
        ("../elsewhere", "working-directory must be a relative path inside the workspace"),
        ("/tmp", "working-directory must be a relative path inside the workspace"),
        ("a,readonly=false", "working-directory must be a relative path inside the workspace"),
        ("planted", "working-directory: "),
        ("no-such-folder", "is not a folder of the workspace"),
    ],
)
def test_a_working_directory_outside_the_workspace_is_refused(
    workspace: tuple[Path, str], tmp_path: Path, folder: str, message: str
) -> None:
    work, _ = workspace
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (work / "planted").symlink_to(elsewhere)

    simulation = simulate(workspace, tmp_path, {"working-directory": folder})

    assert simulation.step("gate").outcome == "failure"
    assert message in simulation.step("gate").stdout
    assert len(simulation.docker_calls) == 1  # the build only
    assert not list(elsewhere.iterdir())


def test_a_report_planted_as_a_symlink_is_replaced_not_followed(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    work, _ = workspace
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched")
    (work / "waiver.json").symlink_to(victim)

    simulation = simulate(workspace, tmp_path)

    assert victim.read_text() == "untouched"
    assert not (work / "waiver.json").is_symlink()
    assert simulation.outputs["waiver-json"] == str(work / "waiver.json")


@pytest.mark.parametrize(
    ("code", "blocked", "verdict", "exit_status", "message"),
    [
        ("0", "false", "clean", 0, "waiver: not blocked (verdict: clean)"),
        ("0", "false", "x\n::error::y", 0, "waiver: not blocked"),
        ("0", "true", "blocked", 1, "::error title=waiver::the gate exited 0 but did not report blocked=false"),
        ("0", "", "", 1, "::error title=waiver::the gate exited 0 but did not report blocked=false"),
        ("1", "true", "blocked", 1, "::error title=waiver::admission is blocked; see the job summary and the waiver.json artifact"),
        ("3", "", "", 1, "::error title=waiver::the gate failed (exit code 3)"),
        ("1\n::warning::x", "", "", 1, "::error title=waiver::the gate step reported no usable exit code"),
    ],
)  # fmt: skip
def test_fail_if_blocked(
    code: str, blocked: str, verdict: str, exit_status: int, message: str
) -> None:
    completed = subprocess.run(
        ["bash", str(REPO / "action" / "fail-if-blocked.sh")],
        env={"PATH": os.environ["PATH"], "GATE_EXIT_CODE": code, "GATE_BLOCKED": blocked,
             "GATE_VERDICT": verdict},
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert (completed.returncode, completed.stdout) == (exit_status, message + "\n")


def test_no_run_step_interpolates_an_expression() -> None:
    documents = [REPO / "action.yml", *sorted((REPO / ".github" / "workflows").glob("*.yml"))]
    runs = []
    for path in documents:
        document = yaml.safe_load(path.read_text())
        steps = document.get("runs", {}).get("steps", [])
        for job in document.get("jobs", {}).values():
            steps += job.get("steps", [])
        runs += [(path.name, step["run"]) for step in steps if "run" in step]
    assert len(runs) >= 10
    assert [name for name, run in runs if "${{" in run] == []


def test_diagnosis_runs_after_the_upload_and_changes_nothing(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    work, _ = workspace
    with running_chat_server() as server:
        server.answers = [reply("1. A counter file shared between replays.")]
        simulation = simulate(
            workspace,
            tmp_path,
            inputs={"diagnose": "true", "model-endpoint": server.url, "model": "local"},
            extra={"WAIVER_MODEL_API_KEY": "sk-simulated-key"},
        )
    names = [step.name for step in simulation.steps]
    assert outcomes(simulation) == [
        "success",
        "skipped",
        "success",
        "success",
        "success",
        "success",
        "skipped",
        "skipped",
        "skipped",
        "failure",
    ]
    assert names.index("Upload waiver.json") < names.index("Diagnose unstable rows")
    assert simulation.outputs["blocked"] == "true"
    assert [upload["name"] for upload in simulation.uploads] == ["waiver", "waiver-diagnosis"]
    assert simulation.uploads[1]["path"] == str(work / "diagnosis.json")
    [seen] = server.seen
    assert json.loads(seen.body)["messages"][1]["content"].count(ROUND_TRIP) == 1
    assert "## Commentary — not a test result" in simulation.summary
    assert simulation.summary.index("waiver: blocked") < simulation.summary.index("Commentary")
    assert "sk-simulated-key" not in simulation.summary
    report = load_report(work / "waiver.json")
    assert report["blocked"] is True


@pytest.mark.parametrize("base_sha", ["", "0" * 40])
def test_without_a_trusted_revision_the_action_blocks_with_an_input_error(
    workspace: tuple[Path, str], tmp_path: Path, base_sha: str
) -> None:
    work, _ = workspace
    (work / "waiver.json").write_text('{"blocked": false}')  # left by an earlier run
    runner = Runner(work, tmp_path / "runner", dict(EXAMPLE_INPUTS), base_sha)

    simulation = runner.run()

    assert outcomes(simulation) == [
        "success",
        "skipped",
        "success",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "failure",
    ]
    assert [call[0] for call in simulation.docker_calls] == ["build"]
    assert simulation.outputs["exit-code"] == "2"
    assert simulation.outputs["error"].startswith(
        "trusted-ref: no trusted revision could be determined for this event"
    )
    assert not (work / "waiver.json").exists()
    assert "**Input error:** trusted-ref: no trusted revision" in simulation.summary


def test_trusted_ref_none_reads_the_protected_files_from_the_change_on_purpose(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    work, _ = workspace
    simulation = simulate(workspace, tmp_path, {"trusted-ref": "none"})

    assert not any(arg.startswith("INPUT_TRUSTED-REF") for arg in simulation.docker_calls[-1])
    assert simulation.outputs["exit-code"] == "1"
    assert load_report(work / "waiver.json")["trusted_revision"] is None
    assert "read from the working tree, which the change itself can edit" in simulation.summary


def test_a_replay_planted_beside_the_five_run_is_an_input_error_by_default(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    # Code under test can write a passing report of its own into the reports folder: with
    # the action's default count it is refused, never counted as a sixth replay.
    work, _ = workspace
    reports = work / "reports"
    shutil.copyfile(reports / "run-2.xml", reports / "run-6.xml")
    simulation = simulate(workspace, tmp_path)

    assert simulation.outputs["exit-code"] == "2"
    assert "run-6.xml: replay 6 is beyond the 5 declared" in simulation.outputs["error"]
    assert load_report(work / "waiver.json")["blocked"] is True
