"""The action's container image, built from the Dockerfile and run on the bundled example.

The image is built once per test session on the local Debian base that
.ci/provision-docker.sh imports, then run the way the action runs it: no network, no
capabilities, a read-only root and workspace, and only the output folder writable.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from helpers.docker_support import DOCKER, build_image, docker_missing_reason
from helpers.support import (
    EMPTY,
    KNOWN,
    REPO,
    ROUND_TRIP,
    classes,
    git,
    load_report,
    replay_assertions,
)

pytestmark = [pytest.mark.container, pytest.mark.slow]

WORKSPACE = "/github/workspace"
OUT = "/github/out"

# What the composite action passes for the example: every input the runner would set,
# the ones left empty included (they must be left out of the command line).
EXAMPLE_INPUTS = {
    "INPUT_REPORTS": "reports",
    "INPUT_PROPERTIES": "properties.xml",
    "INPUT_FIXTURES": "fixtures",
    "INPUT_LOCK": "fixture.lock",
    "INPUT_KNOWN-TESTS": "known-tests.txt",
    "INPUT_FREEZES": "freezes.json",
    "INPUT_CONFIG": "",
    "INPUT_MIN-REPLAYS": "5",
    "INPUT_FREEZE-HOURS": "24",
    "INPUT_TRUSTED-REF": "",
    "INPUT_OUT": f"{OUT}/waiver.json",
}


@pytest.fixture(scope="session")
def image(tmp_path_factory: pytest.TempPathFactory) -> str:
    reason = docker_missing_reason()
    if reason is not None:
        # CI must really build and run the container: there a missing engine is a failure.
        if os.environ.get("CI") == "true":
            pytest.fail(f"the container tests cannot run in CI: {reason}")
        pytest.skip(reason)
    return build_image(REPO, tmp_path_factory.mktemp("image") / "iid")


def output_folder(tmp_path: Path) -> Path:
    """The writable folder for the report, the job summary and the step outputs.

    The runner creates the summary and outputs files before the step; the container's
    user is not their owner, so they are left writable to others, as the folder is.
    """
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o777)
    for name in ("summary.md", "outputs.txt"):
        (out / name).touch()
        (out / name).chmod(0o666)
    return out


def run_action(
    image: str, workspace: Path, out: Path, inputs: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    # What the runner sets in a step; the action forwards these into the container.
    variables = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": WORKSPACE,
        "GITHUB_STEP_SUMMARY": f"{OUT}/summary.md",
        "GITHUB_OUTPUT": f"{OUT}/outputs.txt",
        **inputs,
    }
    env_flags = [flag for name, value in variables.items() for flag in ("-e", f"{name}={value}")]
    command = [
        DOCKER, "run", "--rm", "--network", "none", "--cap-drop", "ALL",
        "--security-opt", "no-new-privileges", "--read-only",
        "-v", f"{workspace}:{WORKSPACE}:ro", "-v", f"{out}:{OUT}", "-w", WORKSPACE,
        *env_flags, image,
    ]  # fmt: skip
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def read_outputs(path: Path) -> dict[str, str]:
    """Step outputs from a $GITHUB_OUTPUT file: `name=value` or `name<<DELIMITER` blocks."""
    lines = path.read_text().splitlines()
    outputs: dict[str, str] = {}
    index = 0
    while index < len(lines):
        name, equals, value = lines[index].partition("=")
        if equals and "<<" not in name:
            outputs[name] = value
            index += 1
            continue
        name, _, delimiter = lines[index].partition("<<")
        end = lines.index(delimiter, index + 1)
        outputs[name] = "\n".join(lines[index + 1 : end])
        index = end + 1
    return outputs


def only_the_flipping_test_red(example: Path) -> Path:
    """The example replayed without its always-failing test, which the registry drops too."""
    shutil.rmtree(example / "reports")
    (example / "known-tests.txt").write_text(f"{KNOWN}\n{ROUND_TRIP}\n")
    replay_assertions(example, EMPTY, counter=".demo-counter-flipping")
    return example


def test_blocked_example_exits_1_with_report_summary_and_outputs(
    image: str, example: Path, tmp_path: Path
) -> None:
    out = output_folder(tmp_path)

    completed = run_action(image, example, out, EXAMPLE_INPUTS)

    assert completed.returncode == 1, completed.stdout + completed.stderr
    report = load_report(out / "waiver.json")
    assert (report["verdict"], report["blocked"]) == ("blocked", True)
    assert classes(report) == {
        EMPTY: "stable_assertion_fail",
        KNOWN: "stable_pass",
        ROUND_TRIP: "unstable_assertion",
    }
    summary = (out / "summary.md").read_text()
    assert "waiver: blocked" in summary.splitlines()[0]
    assert f"`{EMPTY}`" in summary
    assert f"`{ROUND_TRIP}`" in summary
    outputs = read_outputs(out / "outputs.txt")
    assert (outputs["blocked"], outputs["verdict"]) == ("true", "blocked")
    assert outputs["waiver-json"] == f"{OUT}/waiver.json"
    assert (outputs["count-stable-assertion-fail"], outputs["count-unstable-assertion"]) == (
        "1",
        "1",
    )


def test_only_a_flipping_test_red_exits_0_with_a_proposal(
    image: str, example: Path, tmp_path: Path
) -> None:
    workspace = only_the_flipping_test_red(example)
    out = output_folder(tmp_path)

    completed = run_action(image, workspace, out, EXAMPLE_INPUTS)

    assert completed.returncode == 0, completed.stdout + completed.stderr
    report = load_report(out / "waiver.json")
    assert (report["verdict"], report["blocked"]) == ("review", False)
    assert classes(report) == {KNOWN: "stable_pass", ROUND_TRIP: "unstable_assertion"}
    (flipping,) = [row for row in report["rows"] if row["test_id"] == ROUND_TRIP]
    assert (flipping["replay_pass"], flipping["replay_total"]) == (2, 5)
    assert flipping["freeze"]["counts_as_pass"] is False
    summary = (out / "summary.md").read_text()
    assert "waiver: review" in summary.splitlines()[0]
    assert f"`{ROUND_TRIP}`" in summary
    outputs = read_outputs(out / "outputs.txt")
    assert (outputs["blocked"], outputs["verdict"]) == ("false", "review")


def test_missing_lock_exits_2_naming_it(image: str, example: Path, tmp_path: Path) -> None:
    out = output_folder(tmp_path)

    completed = run_action(image, example, out, {**EXAMPLE_INPUTS, "INPUT_LOCK": "missing.lock"})

    assert completed.returncode == 2, completed.stdout + completed.stderr
    assert "missing.lock" in completed.stderr
    assert "Traceback" not in completed.stderr
    if (out / "waiver.json").exists():
        assert load_report(out / "waiver.json")["blocked"] is True


def test_the_trusted_revision_is_read_in_an_image_without_git(
    image: str, example: Path, tmp_path: Path
) -> None:
    git(example, "init", "--quiet")
    git(example, "add", "fixtures", "fixture.lock", "known-tests.txt", "freezes.json")
    git(example, "commit", "--quiet", "-m", "base")
    base = git(example, "rev-parse", "HEAD")
    (example / "known-tests.txt").write_text(f"{KNOWN}\n")  # the change shrinks its registry
    out = output_folder(tmp_path)

    completed = run_action(image, example, out, {**EXAMPLE_INPUTS, "INPUT_TRUSTED-REF": base})

    assert completed.returncode == 1, completed.stdout + completed.stderr
    report = load_report(out / "waiver.json")
    assert report["trusted_revision"] == base
    assert report["fixtures"]["protected_changes"] == [
        {"file": "known-tests", "path": "known-tests.txt", "change": "modified"}
    ]
    which = subprocess.run(
        [DOCKER, "run", "--rm", "--network", "none", "--entrypoint", "sh", image, "-c",
         "command -v git || echo absent"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert which.stdout == "absent\n"
    history = subprocess.run(
        [DOCKER, "history", "--no-trunc", "--format", "{{.CreatedBy}}", image],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "pip install" in history
    assert "apt-get" not in history  # no package manager runs while the image is built


@pytest.mark.parametrize("how", ["run-in-image.sh", "--entrypoint python3 IMAGE -m waiver"])
def test_a_waiver_package_in_the_workspace_never_runs_in_place_of_the_image_s(
    image: str, example: Path, how: str
) -> None:
    """The working directory is the change's checkout; neither the script's `-P` nor the
    image's own PYTHONSAFEPATH lets a package there stand in for waiver."""
    (example / "waiver").mkdir()
    (example / "waiver" / "__init__.py").write_text("")
    (example / "waiver" / "__main__.py").write_text("print('forged waiver')\n")
    (example / "fixtures" / "slugs.json").write_text("[]\n")
    check_lock = ["check-lock", "--lock", "fixture.lock", "--fixtures", "fixtures"]
    if how == "run-in-image.sh":
        command = ["bash", str(REPO / "action" / "run-in-image.sh"), *check_lock]
    else:
        command = [
            DOCKER, "run", "--rm", "--network", "none", "--read-only",
            "--user", f"{os.getuid()}:{os.getgid()}", "-v", f"{example}:{WORKSPACE}:ro",
            "-w", WORKSPACE, "--entrypoint", "python3", image, "-m", "waiver", *check_lock,
        ]  # fmt: skip
    completed = subprocess.run(
        command,
        env={**os.environ, "PATH": f"{Path(DOCKER).parent}{os.pathsep}{os.environ['PATH']}",
             "GITHUB_WORKSPACE": str(example), "WAIVER_IMAGE": image},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert "forged waiver" not in completed.stdout + completed.stderr
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "fixtures/slugs.json" in completed.stdout + completed.stderr
