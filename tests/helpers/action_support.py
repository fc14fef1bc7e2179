"""The composite action, run step by step under a simulated runner.

The steps of action.yml run as the runner would run them: each `run:` with bash, with the
step's `env:` (expressions evaluated) and fresh GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
files; `if:` conditions honoured; the upload-artifact step recorded as an upload. `docker`
is tests/helpers/fake_docker.py, which runs the real entry point with only what the script hands
the container. The tests are in tests/test_action_scripts.py and tests/test_action_approvals.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from helpers.support import REPO, git, read_github_output

ACTION = yaml.safe_load((REPO / "action.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
TOKEN = "ghs_not_a_real_token"


@dataclass
class StepRun:
    name: str
    outcome: str  # "success", "failure" or "skipped"
    outputs: dict[str, str] = field(default_factory=dict)
    stdout: str = ""


@dataclass
class Simulation:
    steps: list[StepRun]
    outputs: dict[str, str]
    uploads: list[dict[str, str]]
    docker_calls: list[list[str]]
    summary: str

    def step(self, step_id: str) -> StepRun:
        return self.steps[[s.get("id") for s in ACTION["runs"]["steps"]].index(step_id)]

    @property
    def failed(self) -> bool:
        return any(step.outcome == "failure" for step in self.steps)


class Runner:
    """Just enough of the Actions runner for this action's steps."""

    def __init__(
        self,
        workspace: Path,
        tmp: Path,
        inputs: dict[str, str],
        base_sha: str,
        event: dict[str, Any] | None = None,
    ) -> None:
        self.workspace = workspace
        self.event = event
        self.tmp = tmp
        self.inputs = inputs
        self.base_sha = base_sha
        self.step_outputs: dict[str, dict[str, str]] = {}
        self.uploads: list[dict[str, str]] = []
        self.summary = ""
        self.bin = tmp / "bin"
        self.bin.mkdir(parents=True)
        (self.bin / "docker").write_text(
            f'#!/bin/sh\nexec "{sys.executable}" "{REPO / "tests" / "helpers" / "fake_docker.py"}" "$@"\n'
        )
        (self.bin / "docker").chmod(0o755)
        (tmp / "runner-temp").mkdir()
        self.docker_log = tmp / "docker.jsonl"
        self.docker_log.touch()

    def evaluate(self, expression: str) -> str:
        if "||" in expression:  # the first operand that is not empty, as on a runner
            values = (self.evaluate(part.strip()) for part in expression.split("||"))
            return next((value for value in values if value), "")
        if "&&" in expression:  # the first empty operand, else the last
            values = [self.evaluate(part.strip()) for part in expression.split("&&")]
            return next((value for value in values if not value), values[-1])
        if match := re.fullmatch(r"'([^']*)'", expression):
            return match.group(1)
        if expression == "github.token":
            return TOKEN
        if expression == "github.event.pull_request":
            return "{...}" if self.event and "pull_request" in self.event else ""
        if match := re.fullmatch(r"inputs\.([a-z-]+)", expression):
            name = match.group(1)
            spec = ACTION["inputs"][name]
            if name in self.inputs:
                return self.inputs[name]
            return self.substitute(str(spec.get("default", "")))
        if match := re.fullmatch(r"steps\.([a-z-]+)\.outputs\.([a-z-]+)", expression):
            return self.step_outputs.get(match.group(1), {}).get(match.group(2), "")
        if expression == "github.event.pull_request.base.sha":
            return self.base_sha
        if expression in {"github.event.merge_group.base_sha", "github.event.before"}:
            return ""  # a pull_request event
        raise AssertionError(f"the simulated runner does not know ${{{{ {expression} }}}}")

    def substitute(self, text: str) -> str:
        return EXPRESSION.sub(lambda match: self.evaluate(match.group(1)), text)

    def condition(self, text: str | None, failed: bool) -> bool:
        if text is None:
            return not failed
        terms = [term.strip() for term in text.split("&&")]
        verdict = "always()" in terms or not failed
        for term in terms:
            if term == "always()":
                continue
            match = re.fullmatch(r"(\S+) (==|!=) '([^']*)'", term)
            assert match is not None, f"unsupported condition {term!r}"
            value = self.evaluate(match.group(1))
            verdict = verdict and ((value == match.group(3)) == (match.group(2) == "=="))
        return verdict

    def environment(self, step: dict[str, Any], number: int) -> dict[str, str]:
        return {
            "PATH": f"{self.bin}{os.pathsep}{os.environ['PATH']}",
            "HOME": str(self.tmp),
            "GITHUB_ACTIONS": "true",
            "GITHUB_ACTION_PATH": str(REPO),
            "GITHUB_WORKSPACE": str(self.workspace),
            "RUNNER_TEMP": str(self.tmp / "runner-temp"),
            "GITHUB_OUTPUT": str(self.tmp / f"output-{number}"),
            "GITHUB_STEP_SUMMARY": str(self.tmp / f"summary-{number}"),
            "GITHUB_TOKEN": TOKEN,
            "FAKE_DOCKER_LOG": str(self.docker_log),
            **self.event_variables(),
            **{name: self.substitute(str(value)) for name, value in step.get("env", {}).items()},
        }

    def event_variables(self) -> dict[str, str]:
        if self.event is None:
            return {}
        path = self.tmp / "event.json"
        path.write_text(json.dumps(self.event))
        return {"GITHUB_EVENT_PATH": str(path), "GITHUB_REPOSITORY": "owner/repo"}

    def run_step(self, step: dict[str, Any], number: int, extra: dict[str, str]) -> StepRun:
        name = step["name"]
        if "uses" in step:
            assert step["uses"].startswith("actions/upload-artifact@"), step["uses"]
            settings = {key: self.substitute(str(value)) for key, value in step["with"].items()}
            self.uploads.append(settings)
            found = Path(settings["path"]).is_file()
            return StepRun(name, "success" if found else "failure")
        assert "${{" not in step["run"]
        env = {**self.environment(step, number), **extra}
        for file in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
            Path(env[file]).touch()
        completed = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        outputs = read_github_output(Path(env["GITHUB_OUTPUT"]).read_text())
        self.summary += Path(env["GITHUB_STEP_SUMMARY"]).read_text()
        outcome = "success" if completed.returncode == 0 else "failure"
        return StepRun(name, outcome, outputs, completed.stdout + completed.stderr)

    def run(self, extra: dict[str, str] | None = None) -> Simulation:
        steps: list[StepRun] = []
        for number, step in enumerate(ACTION["runs"]["steps"]):
            failed = any(done.outcome == "failure" for done in steps)
            if not self.condition(step.get("if"), failed):
                steps.append(StepRun(step["name"], "skipped"))
                continue
            done = self.run_step(step, number, extra or {})
            steps.append(done)
            if "id" in step:
                self.step_outputs[step["id"]] = done.outputs
        outputs = {name: self.substitute(spec["value"]) for name, spec in ACTION["outputs"].items()}
        calls = [
            json.loads(line)["argv"] for line in self.docker_log.read_text().splitlines() if line
        ]
        return Simulation(steps, outputs, self.uploads, calls, self.summary)


def checked_out(example: Path) -> tuple[Path, str]:
    """The example as a checked-out repository whose base commit is its only commit."""
    git(example, "init", "--quiet")
    git(example, "add", "fixtures", "tests", "fixture.lock", "known-tests.txt", "freezes.json")
    git(example, "commit", "--quiet", "-m", "base")
    return example, git(example, "rev-parse", "HEAD")


EXAMPLE_INPUTS = {
    "reports": "reports",
    "properties": "properties.xml",
    "known-tests": "known-tests.txt",
    "freezes": "freezes.json",
}


def simulate(
    workspace: tuple[Path, str],
    tmp_path: Path,
    inputs: dict[str, str] | None = None,
    extra: dict[str, str] | None = None,
) -> Simulation:
    work, base = workspace
    runner = Runner(work, tmp_path / "runner", {**EXAMPLE_INPUTS, **(inputs or {})}, base)
    return runner.run(extra)


def outcomes(simulation: Simulation) -> list[str]:
    return [step.outcome for step in simulation.steps]
