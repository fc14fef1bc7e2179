"""The reusable workflow's dependency cache, read as a file: restored in every job that runs
a test command, keyed on the dependency files of the base, saved only by the default
branch's own runs, and never in the gate job.

tests/container/test_workflow_act.py restores it under act in a pull request's run, and
tests/container/test_history_act.py saves it in a push to main.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers.support import REPO, git, read_github_output, workflow_step

WORKFLOW: dict[Any, Any] = yaml.safe_load(
    (REPO / ".github" / "workflows" / "waiver-gate.yml").read_text()
)
TEST_JOBS = {
    "properties": "Set up the suite",
    "replays": "Set up the suite",
    "base-replays": "Set up the suite at the base",
    "change-tests": "Set up the suite on the change's tree",
}
CACHE = "actions/cache"
PINNED = re.compile(r"actions/cache/(restore|save)@[0-9a-f]{40}")
DEFAULT_BRANCH_ONLY = (
    "${{ steps.cache.outputs.cache-hit != 'true' && (github.event_name == 'schedule' || "
    "(github.event_name == 'push' && github.ref == "
    "format('refs/heads/{0}', github.event.repository.default_branch))) }}"
)


def names(job: str) -> list[str]:
    return [s.get("name", s.get("uses", "")) for s in WORKFLOW["jobs"][job]["steps"]]


def cache_steps(job: str) -> list[dict[str, Any]]:
    return [s for s in WORKFLOW["jobs"][job]["steps"] if s.get("uses", "").startswith(CACHE)]


@pytest.mark.parametrize(("job", "set_up"), TEST_JOBS.items())
def test_every_test_job_restores_the_cache_before_its_set_up(job: str, set_up: str) -> None:
    order = names(job)
    assert order.index("Name the dependency cache") < order.index("Restore the dependency cache")
    assert order.index("Restore the dependency cache") < order.index(set_up)
    restore = workflow_step(WORKFLOW, job, "Restore the dependency cache")
    assert PINNED.fullmatch(restore["uses"]) and "/restore@" in restore["uses"]
    key = restore["with"]["key"]
    assert key.endswith("${{ steps.cache-key.outputs.digest }}")
    assert key.startswith(restore["with"]["restore-keys"])
    # The base's files, never the change's: the key names what the default branch saved.
    commit = workflow_step(WORKFLOW, job, "Name the dependency cache")["env"]["COMMIT"]
    assert commit == (
        "${{ github.event.pull_request.base.sha || github.event.merge_group.base_sha "
        "|| github.sha }}"
    )
    assert {"~/.cache/pip", "~/.npm", "~/.cache/yarn", "~/.local/share/pnpm/store"} <= set(
        restore["with"]["path"].split()
    )


def test_only_the_property_job_saves_and_only_on_the_default_branch() -> None:
    saves = {
        (job, step["name"])
        for job in WORKFLOW["jobs"]
        for step in cache_steps(job)
        if "/restore@" not in step["uses"]
    }
    assert saves == {("properties", "Save the dependency cache")}
    save = workflow_step(WORKFLOW, "properties", "Save the dependency cache")
    assert PINNED.fullmatch(save["uses"]) and "/save@" in save["uses"]
    assert save["if"] == DEFAULT_BRANCH_ONLY
    assert save["with"]["key"] == "${{ steps.cache.outputs.cache-primary-key }}"
    restore = workflow_step(WORKFLOW, "properties", "Restore the dependency cache")
    assert save["with"]["path"] == restore["with"]["path"]
    # After what the set-up downloaded, before anything a test could write.
    order = names("properties")
    assert order.index("Set up the suite") < order.index("Save the dependency cache")
    assert order.index("Save the dependency cache") < order.index("Run the property suite once")


def test_the_gate_job_restores_no_cache_and_no_job_uses_the_saving_action() -> None:
    assert cache_steps("gate") == []
    every = [s["uses"] for job in WORKFLOW["jobs"] for s in cache_steps(job)]
    # actions/cache itself saves in its post step, in a pull request's run too.
    assert every and all(PINNED.fullmatch(uses) for uses in every)
    assert len(set(every)) == 2  # restore and save, each at the one pinned commit
    assert len({uses.split("@")[1] for uses in every}) == 1


@pytest.mark.parametrize("job", TEST_JOBS)
def test_no_test_job_installs_waiver(job: str) -> None:
    """The set-up is the user's command alone: waiver runs from its image."""
    scripts = "\n".join(s.get("run", "") for s in WORKFLOW["jobs"][job]["steps"])
    assert "pip install" not in scripts and "venv" not in scripts


def cache_digest(repository: Path, commit: str) -> str:
    step = workflow_step(WORKFLOW, "replays", "Name the dependency cache")
    outputs = repository.parent / "output"
    outputs.write_text("")
    subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", step["run"]],
        cwd=repository,
        env={**os.environ, **WORKFLOW["env"], "COMMIT": commit, "GITHUB_OUTPUT": str(outputs)},
        check=True,
    )
    digest = read_github_output(outputs.read_text())["digest"]
    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    return digest


def commit(repository: Path, files: dict[str, str]) -> str:
    for name, text in files.items():
        (repository / name).parent.mkdir(parents=True, exist_ok=True)
        (repository / name).write_text(text)
    git(repository, "add", "--all")
    git(repository, "commit", "--quiet", "-m", "files")
    return git(repository, "rev-parse", "HEAD")


def test_the_key_follows_the_dependency_files_of_the_commit_named(tmp_path: Path) -> None:
    repository = tmp_path / "repository"
    repository.mkdir()
    git(repository, "init", "--quiet")
    base = commit(
        repository,
        {"pyproject.toml": "[project]\nname = 'p'\n", "requirements/test.txt": "pytest\n",
         "web/package-lock.json": "{}\n", "tests/test_a.py": "def test_a(): pass\n"},
    )  # fmt: skip
    tests_only = commit(repository, {"tests/test_a.py": "def test_a(): assert 1\n"})
    assert cache_digest(repository, tests_only) == cache_digest(repository, base)
    for name in ("requirements/test.txt", "web/package-lock.json", "yarn.lock", "uv.lock"):
        git(repository, "checkout", "--quiet", base)
        changed = commit(repository, {name: "changed\n"})
        assert cache_digest(repository, changed) != cache_digest(repository, base), name
    # A commit the checkout lacks names no dependency file: a key that restores a prefix.
    assert cache_digest(repository, "f" * 40) == cache_digest(tmp_path, "f" * 40)
