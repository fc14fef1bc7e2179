"""Helpers of the `waiver init` tests: init run in a generated repository, the workflow it
wrote, and the gate run with that workflow's arguments on a change replayed once."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers.support import git, load_report
from waiver.cli import main

WAIVER_REF = "0123456789abcdef0123456789abcdef01234567"
BIN = Path(sys.executable).parent
FILES = ("fixture.lock", "known-tests.txt", "waiver.yml", ".github/workflows/waiver.yml",
         ".github/workflows/waiver-report.yml", ".github/workflows/waiver-history.yml")  # fmt: skip


def init(root: Path, *extra: str) -> int:
    cwd = os.getcwd()
    os.chdir(root)
    try:
        return main(["init", "--no-verify", "--waiver-repository", "acme/waiver", "--waiver-ref", WAIVER_REF,
                     *extra])  # fmt: skip
    finally:
        os.chdir(cwd)


def workflow_inputs(root: Path) -> dict[str, Any]:
    workflow = yaml.safe_load((root / ".github" / "workflows" / "waiver.yml").read_text())
    inputs: dict[str, Any] = workflow["jobs"]["waiver"]["with"]
    return inputs


def pytest_part(command: str) -> list[str]:
    """The pytest words of a written command (its install step is the setup command), with
    {junit}."""
    words = shlex.split(command)
    return [sys.executable if word == "python" else word for word in words[:-1]] + [
        "--junitxml={junit}"
    ]


def package_venv(folder: Path, packages: list[str]) -> str:
    """A virtual environment of this Python with `packages` from PyPI, for replaying a
    library whose tests import them: its interpreter. Skipped (failed in CI) when they
    cannot be installed."""
    python = folder / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", *packages],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            message = f"pip install {' '.join(packages)} failed: {done.stderr[-2000:]}"
            if os.environ.get("CI") == "true":
                pytest.fail(message)
            pytest.skip(message)
    return str(python)


def venv_part(python: str, *variables: str) -> Callable[[str], list[str]]:
    """The pytest words of a written command run by `python`, with environment `variables`
    (`NAME=value`) set."""

    def part(command: str) -> list[str]:
        words = pytest_part(command)
        return ["env", *variables, python, *words[1:]]

    return part


def runner_part(command: str) -> list[str]:
    """A written command (its install step is the setup command), run by `sh -c` with
    "$WAIVER_JUNIT"."""
    return ["sh", "-c", command]


def gate_written(
    root: Path, base: str, replayed: Callable[[str], list[str]] = pytest_part, *more: str
) -> tuple[int, dict[str, Any]]:
    """The change replayed once with the written commands (`replayed` gives the words each
    runs: pytest's, by default), then gated against the base's files (`more`: further
    arguments of the gate)."""
    inputs = workflow_inputs(root)
    shutil.rmtree(root / "reports", ignore_errors=True)
    properties = shlex.join(replayed(inputs["property-command"]))
    cwd = os.getcwd()
    os.chdir(root)
    try:
        assert main(["replay", "-n", "1", "--out", "reports", "--properties-first", properties,
                     "--", *replayed(inputs["test-command"])]) in (0, 1)  # fmt: skip
        code = main([
            "gate", "--reports", "reports", "--properties", "reports/properties.xml",
            "--fixtures", inputs["fixtures"], "--lock", inputs["lock"],
            "--known-tests", inputs["known-tests"], "--config", inputs["config"],
            "--replays", "1", "--min-replays", "1", "--trusted-ref", base, "--out", "waiver.json",
            "--summary", "summary.md", *more,
        ])  # fmt: skip
    finally:
        os.chdir(cwd)
    return code, load_report(root / "waiver.json")


def installed_from_github(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This process sees a waiver that pip installed from acme/waiver at WAIVER_REF by git."""
    installed = site / "waiver-0.1.0.dist-info"
    installed.mkdir(parents=True)
    (installed / "METADATA").write_text("Metadata-Version: 2.1\nName: waiver\nVersion: 0.1.0\n")
    (installed / "direct_url.json").write_text(
        '{"url": "https://github.com/acme/waiver.git", '
        f'"vcs_info": {{"vcs": "git", "commit_id": "{WAIVER_REF}"}}}}'
    )
    monkeypatch.syspath_prepend(str(site))


def commit_as_base(root: Path) -> Path:
    """`root`, with what init wrote, as a repository whose one commit is the base."""
    git(root, "init", "--quiet")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "base")
    return root


def copy_to_change(base: Path, tmp_path: Path) -> tuple[Path, str]:
    """A private copy of the committed repository at `base`, for one change: (root, base)."""
    root = tmp_path / "repo"
    shutil.copytree(base, root)
    return root, git(root, "rev-parse", "HEAD")
