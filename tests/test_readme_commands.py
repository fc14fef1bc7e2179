"""The README's two commands: the first runs the gate on the bundled example, the second is
what .ci/run runs. The first is run here for real (its interpreter being this one)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.support import (
    EMPTY,
    EMPTY_FAILURE,
    KNOWN,
    REPO,
    ROUND_TRIP,
    ROUND_TRIP_FAILURE,
    classes,
    load_report,
)

README = (REPO / "README.md").read_text()
TRY_IT = README.split("## Try it", 1)[1].split("\n## ", 1)[0]
COMMANDS = re.findall(r"```sh\n(.*?)\n```", TRY_IT, flags=re.DOTALL)


def test_the_first_section_has_exactly_two_commands() -> None:
    assert COMMANDS == [
        "python3 -m venv .venv && .venv/bin/pip install . pytest && "
        "PYTHON=.venv/bin/python examples/demo/run.sh",
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && "
        ".venv/bin/python -m pytest -n auto",
    ]


def test_ci_runs_the_readme_test_command() -> None:
    assert COMMANDS[1] in (REPO / ".ci" / "run").read_text()


@pytest.mark.slow
def test_the_test_command_fails_when_it_collects_no_test(tmp_path: Path) -> None:
    """The README's pytest options, with this suite's configuration, on a folder without
    tests: exit 5, which `.ci/run` (set -e) turns into a failure, never a pass."""
    options = COMMANDS[1].split(" -m pytest", 1)[1].split()
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", *options, "-c", str(REPO / "pyproject.toml"),
         "--rootdir", str(tmp_path), "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )  # fmt: skip
    assert completed.returncode == 5, completed.stdout + completed.stderr
    assert "set -euo pipefail" in (REPO / ".ci" / "run").read_text()


@pytest.mark.slow
def test_the_example_command_prints_the_verdict_and_the_report_path(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    completed = subprocess.run(
        ["bash", str(REPO / "examples" / "demo" / "run.sh"), str(work)],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 1, completed.stdout + completed.stderr
    lines = completed.stdout.splitlines()
    assert lines == [
        "waiver demo: properties once, then 5 replays of the assertion tests",
        "waiver: blocked; report written to waiver.json",
        "blocking tests (1):",
        "  class                  replays passed  test id",
        f"  stable_assertion_fail  0/5 ✘✘✘✘✘       {EMPTY}",
        f"      {EMPTY_FAILURE}",
        "unstable, not a pass (1):",
        "  replays passed  test id",
        f"  2/5 ✘✔✘✔✘       {ROUND_TRIP}  freeze proposed",
        f"      {ROUND_TRIP_FAILURE}",
        "warning: the lock, registry and freeze store were read from the working tree, which "
        "the change itself can edit; pass --trusted-ref with the base commit to read them from "
        "it",
        f"waiver demo: report {work}/waiver.json, summary {work}/summary.md (exit 1)",
    ]
    report = load_report(work / "waiver.json")
    assert classes(report) == {
        ROUND_TRIP: "unstable_assertion",
        EMPTY: "stable_assertion_fail",
        KNOWN: "stable_pass",
    }
    assert (work / "summary.md").read_text().startswith("## ⛔ waiver: blocked")
