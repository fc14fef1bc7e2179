"""action.yml against everything that must agree with it, and the linters it must pass.

In sync: the action's inputs, the gate step's environment, action/run-gate.sh, the
container's entry point (waiver/github/action_inputs.py and the `waiver gate` parser), the
input table of docs/action.md, and the package version. Linters: actionlint, zizmor (regular and
auditor personas) and check-jsonschema on action.yml and every workflow, shellcheck on
action/.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers.support import REPO
from waiver.cli import build_parser
from waiver.github.action_inputs import GATE_INPUTS, gate_argv, input_variable

ACTION: dict[str, Any] = yaml.safe_load((REPO / "action.yml").read_text())
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
ACTION_DOC = (REPO / "docs" / "action.md").read_text()
BIN = Path(sys.executable).parent
TOOL_ENV = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}


def action_step(step_id: str) -> dict[str, Any]:
    steps: list[dict[str, Any]] = ACTION["runs"]["steps"]
    return next(s for s in steps if s.get("id") == step_id)


def tool(name: str, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    executable = BIN / name
    assert executable.exists(), f"{name} is missing: pip install -e '.[test]'"
    return subprocess.run(
        [str(executable), *args],
        cwd=cwd,
        env=TOOL_ENV,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


# --- in sync --------------------------------------------------------------------------


def test_every_gate_input_is_an_action_input() -> None:
    assert set(GATE_INPUTS) <= set(ACTION["inputs"])


# Inputs of the gate step that run-gate.sh reads itself, rather than handing them to the
# container as `waiver gate` flags.
RUN_GATE_INPUTS = ("working-directory",)


def test_the_gate_step_passes_each_gate_input_through_env() -> None:
    env = action_step("gate")["env"]
    expected = {
        input_variable(name).replace("-", "_"): f"${{{{ inputs.{name} }}}}"
        for name in (*GATE_INPUTS, *RUN_GATE_INPUTS)
    }
    assert {name: value for name, value in env.items() if name.startswith("INPUT_")} == expected


def test_run_gate_sh_reads_the_inputs_it_keeps_for_itself() -> None:
    script = (REPO / "action" / "run-gate.sh").read_text()
    for name in RUN_GATE_INPUTS:
        assert name not in GATE_INPUTS
        assert f"${{INPUT_{name.upper().replace('-', '_')}:-" in script


def test_run_gate_sh_forwards_exactly_the_gate_inputs() -> None:
    script = (REPO / "action" / "run-gate.sh").read_text()
    match = re.search(r"readonly GATE_INPUTS=\(([^)]*)\)", script)
    assert match is not None
    # `out` is not forwarded as given: it becomes the path inside the container.
    assert match.group(1).split() == [name for name in GATE_INPUTS if name != "out"]


def test_every_other_input_is_used_by_a_step() -> None:
    used = set()
    for spec in ACTION["runs"]["steps"]:
        text = yaml.safe_dump({key: spec.get(key) for key in ("env", "with", "if")})
        used |= set(re.findall(r"inputs\.([a-z-]+)", text))
    assert set(ACTION["inputs"]) == used


def test_every_gate_input_is_a_flag_of_waiver_gate() -> None:
    env = {input_variable(name): f"value-of-{name}" for name in GATE_INPUTS}
    env["INPUT_MIN-REPLAYS"] = "7"
    env["INPUT_FREEZE-HOURS"] = "9"
    env["INPUT_REPLAYS"] = "6"
    env["INPUT_SHARDS"] = "3"
    args = build_parser().parse_args(gate_argv(env))
    for name in GATE_INPUTS:
        given = getattr(args, name.replace("-", "_"))
        # --red-green may be given once per shard; the action gives it once.
        if name == "red-green":
            assert given == [env[input_variable(name)]]
        else:
            assert str(given) == env[input_variable(name)]


def test_the_entry_point_runs_the_gate_with_the_action_inputs() -> None:
    source = (REPO / "entrypoint.py").read_text()
    assert "sys.exit(main(gate_argv(os.environ)))" in source


def test_the_action_outputs_come_from_the_gate_step() -> None:
    outputs = {name: spec["value"] for name, spec in ACTION["outputs"].items()}
    classes = [
        "property-violation", "fixture-drift", "unknown-test", "stable-pass",
        "unstable-assertion", "stable-assertion-fail",
    ]  # fmt: skip
    assert outputs == {
        "blocked": "${{ steps.gate.outputs.blocked }}",
        "verdict": "${{ steps.gate.outputs.verdict }}",
        "waiver-json": "${{ steps.gate.outputs.report }}",
        "exit-code": "${{ steps.gate.outputs.exit-code }}",
        "error": "${{ steps.gate.outputs.error }}",
        "image-source": "${{ steps.image.outputs.source }}",
        **{f"count-{c}": f"${{{{ steps.gate.outputs.count-{c} }}}}" for c in classes},
    }


def documented_inputs() -> dict[str, str]:
    """The input table of docs/action.md's "## Inputs" section: name -> default cell."""
    section = ACTION_DOC.split("\n## Inputs\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z-]+)` \| (.*?) \| .* \|$", section, re.MULTILINE)
    # A `|` inside a cell is written `\|` in Markdown.
    return {name: default.replace("\\|", "|") for name, default in rows}


def test_the_docs_table_lists_every_input_with_its_default() -> None:
    expected = {}
    for name, spec in ACTION["inputs"].items():
        if spec.get("required"):
            expected[name] = "*(required)*"
        elif spec.get("default", "") == "":
            expected[name] = "—"
        else:
            expected[name] = f"`{spec['default']}`"
    assert documented_inputs() == expected


# --- linters --------------------------------------------------------------------------


def test_workflows_pass_actionlint() -> None:
    completed = tool("actionlint", *(str(path) for path in WORKFLOWS))
    assert completed.returncode == 0, completed.stdout + completed.stderr


def lint_use_of_the_action(
    tmp_path: Path, inputs: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """actionlint on a workflow that runs the action as `./`: it then reads action.yml."""
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(REPO / "action.yml", tmp_path / "action.yml")
    workflow = {
        "name": "use",
        "on": "pull_request",
        "permissions": {},
        "jobs": {
            "gate": {
                "runs-on": "ubuntu-latest",
                "permissions": {"contents": "read"},
                "steps": [{"uses": "./", "with": inputs}],
            }
        },
    }
    (tmp_path / ".github" / "workflows" / "use.yml").write_text(yaml.safe_dump(workflow))
    subprocess.run(["git", "init", "--quiet"], cwd=tmp_path, check=True)
    return tool("actionlint", cwd=tmp_path)


def test_actionlint_reads_action_yml_through_a_workflow_that_uses_it(tmp_path: Path) -> None:
    every = {name: "x" for name in ACTION["inputs"]}
    completed = lint_use_of_the_action(tmp_path / "good", every)
    assert completed.returncode == 0, completed.stdout

    missing_required = {"reports": "r", "no-such-input": "x"}
    completed = lint_use_of_the_action(tmp_path / "bad", missing_required)
    assert completed.returncode == 1
    assert 'input "no-such-input" is not defined in action' in completed.stdout
    assert 'missing input "properties"' in completed.stdout


def test_the_documented_workflow_passes_actionlint(tmp_path: Path) -> None:
    section = ACTION_DOC.split("\n## A complete workflow\n", 1)[1]
    workflow = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert workflow is not None
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "waiver.yml").write_text(workflow.group(1))
    subprocess.run(["git", "init", "--quiet"], cwd=tmp_path, check=True)
    completed = tool("actionlint", cwd=tmp_path)
    assert completed.returncode == 0, completed.stdout


@pytest.mark.parametrize("persona", ["regular", "auditor"])
def test_zizmor_finds_nothing(persona: str) -> None:
    # Under the auditor persona too; the two findings it would make are each suppressed
    # inline with the reason beside them (a local `uses:` of the action under test).
    # One run audits every file and names the file of each finding.
    paths = [str(path) for path in (REPO / "action.yml", *WORKFLOWS)]
    completed = tool("zizmor", "--offline", f"--persona={persona}", "--format", "plain", *paths)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "No findings to report." in completed.stdout


def test_action_yml_matches_the_github_actions_schema() -> None:
    completed = tool(
        "check-jsonschema", "--builtin-schema", "vendor.github-actions", str(REPO / "action.yml")
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_workflows_match_the_github_workflows_schema() -> None:
    completed = tool(
        "check-jsonschema",
        "--builtin-schema",
        "vendor.github-workflows",
        *(str(path) for path in WORKFLOWS),
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_the_action_and_ci_scripts_pass_shellcheck() -> None:
    scripts = sorted(str(path) for path in (REPO / "action").glob("*.sh"))
    scripts += [str(REPO / ".ci" / name) for name in ("provision-docker.sh", "run", "mutation")]
    completed = tool("shellcheck", "--severity=style", *scripts)
    assert completed.returncode == 0, completed.stdout


def test_every_third_party_action_is_pinned_by_full_commit_sha() -> None:
    documents = [REPO / "action.yml", *WORKFLOWS]
    uses = []
    for path in documents:
        uses += re.findall(r"^\s*(?:-\s+)?uses:\s*(\S+)", path.read_text(), re.MULTILINE)
    remote = [ref for ref in uses if not ref.startswith("./")]
    assert remote
    assert [ref for ref in remote if not re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref)] == []


def test_only_the_release_image_job_may_push_packages_and_attest() -> None:
    release = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    assert release["permissions"] == {}
    # YAML 1.1 reads the key `on` as True. Run by hand: a pushed tag is no release.
    assert list(release[True]) == ["workflow_dispatch"]
    permissions = {name: job["permissions"] for name, job in release["jobs"].items()}
    assert permissions == {
        "check": {"contents": "read"},
        "image": {
            "contents": "read",
            "packages": "write",
            "id-token": "write",
            "attestations": "write",
        },
        "publish": {"contents": "write"},
    }
    steps = release["jobs"]["image"]["steps"]
    (build,) = [s for s in steps if s.get("uses", "").startswith("docker/build-push-action@")]
    assert build["with"]["platforms"] == "linux/amd64,linux/arm64"
    (attest,) = [s for s in steps if "attest-build-provenance@" in s.get("uses", "")]
    assert attest["with"]["subject-digest"] == "${{ steps.push.outputs.digest }}"


def test_the_release_records_a_reference_the_action_accepts() -> None:
    record = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    (step,) = [s for s in record["jobs"]["publish"]["steps"] if "image-digest" in s.get("name", "")]
    assert '> "$release/action/image-digest"' in step["run"]
    pattern = re.search(
        r"readonly DIGEST_REFERENCE='([^']+)'", (REPO / "action" / "build-image.sh").read_text()
    )
    assert pattern is not None
    assert re.fullmatch(pattern[1].strip("^$"), "ghcr.io/owner/waiver@sha256:" + "a" * 64)
