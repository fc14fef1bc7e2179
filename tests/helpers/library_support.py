"""Libraries of the shapes `waiver init` meets on a first day, built from the registries:
a TypeScript library on vitest installed by pnpm, and a jest CLI library installed by npm.

Each project's packages are installed once per test session into a folder shared by the
workers (`installed_template`), by the package manager the project names; a test copies
the template with its `node_modules` as hard links (symlinks, which pnpm's layout is made
of, are copied as links), so that a project that edits a file there must replace it.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from helpers.init_support import commit_as_base, installed_from_github
from helpers.node_support import IGNORED, replace_file, write_files
from helpers.support import git
from waiver.cli import main

PNPM = "pnpm@9.15.0"


def _skip_or_fail(message: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def _run(command: list[str], cwd: Path, env: Mapping[str, str] | None = None) -> None:
    completed = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, check=False,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    if completed.returncode != 0:
        _skip_or_fail(f"{' '.join(command)} failed: {completed.stderr[-2000:]}")


def pnpm(cache: Path) -> Path:
    """pnpm, installed from npm into the cache: the binary."""
    folder = cache / "pnpm"
    binary = folder / "node_modules" / ".bin" / "pnpm"
    if not binary.exists():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text('{"name": "pnpm-here", "private": true}\n')
        _run(["npm", "install", "--no-audit", "--no-fund", "--no-save", PNPM], folder)
    return binary


def installed_template(cache: Path, name: str, package: Mapping[str, object], manager: str) -> Path:
    """A folder holding `package` (its package.json), its lockfile and its `node_modules`,
    installed by `manager` (`pnpm` or `npm`); shared by the session's workers and installed
    again when the package changes. Skipped (failed in CI) without node, npm or the
    registry."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        _skip_or_fail("node and npm are not installed")
    cache.mkdir(parents=True, exist_ok=True)
    text = json.dumps(package, indent=2) + "\n"
    with open(cache / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        template = cache / name
        marker = cache / f".{name}.installed"
        if marker.exists() and marker.read_text() == text:
            return template
        shutil.rmtree(template, ignore_errors=True)
        template.mkdir()
        (template / "package.json").write_text(text)
        if manager == "pnpm":
            store = {"npm_config_store_dir": str(cache / "pnpm-store")}
            _run(
                [str(pnpm(cache)), "install", "--config.confirmModulesPurge=false"], template, store
            )
        else:
            _run(["npm", "install", "--no-audit", "--no-fund"], template)
        marker.write_text(text)
        return template


def start_library(template: Path, work: Path, files: Mapping[str, str]) -> Path:
    """The library in `work`: the template's package.json, lockfile and install, and
    `files`, in a git repository with nothing committed yet."""
    work.mkdir(parents=True)
    for name in os.listdir(template):
        if name != "node_modules":
            shutil.copy2(template / name, work / name)
    subprocess.run(["cp", "-al", str(template / "node_modules"), str(work / "node_modules")],
                   check=True)  # fmt: skip
    write_files(work, {".gitignore": IGNORED, **files})
    git(work, "init", "--quiet")
    return work


def initialised(root: Path, site: Path) -> str:
    """`waiver init` with only the pin a pip install from GitHub records, run at `root`,
    which is then committed as the base: what init printed."""
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        installed_from_github(site, patch)
        patch.chdir(root)
        assert main(["init"]) == 0
    commit_as_base(root)
    return printed.getvalue()


def copy_change(base: Path, tmp_path: Path) -> tuple[Path, str]:
    """A private copy of the initialised library for one change: (root, base commit)."""
    root = tmp_path / base.name
    shutil.copytree(base, root, symlinks=True)
    return root, git(root, "rev-parse", "HEAD")


def commit_files(root: Path, files: Mapping[str, str]) -> None:
    """`files` written over the library's, and committed as the change."""
    for name, text in files.items():
        replace_file(root / name, text)
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "change")


def locked_paths(root: Path) -> list[str]:
    """The paths the library's lock holds, whole files and tables alike, in its order."""
    return [line.split("  ", 1)[1] for line in (root / "fixture.lock").read_text().splitlines()]
