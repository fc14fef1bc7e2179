"""JavaScript projects built from scratch, replayed by their real runners and gated.

The runners and reporters come from the npm registry, installed once per test session into
a shared folder (`node_install`); each project gets a copy of that install made of hard
links, so a project that edits a file there must replace it, never write into it
(`replace_file`). A project is committed as the base with its lock and registry, one change
is committed on top, the change is replayed with `waiver replay` and gated with
`--trusted-ref BASE`, as a user runs them.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import shutil
import subprocess
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from helpers.support import git, load_report
from waiver.cli import main
from waiver.runners import runner_named

# The versions the tests install: jest 29 with jest-junit, mocha 10 (its `xunit` reporter
# writes each test's file from 10.4 on) with mocha-junit-reporter, whose reports the gate
# still reads (mocha 11 and later no longer load it), chai 4 (the last that `require`
# loads) and vitest 2.
PACKAGES = (
    "jest@29.7.0",
    "jest-junit@16.0.0",
    "mocha@10.8.2",
    "mocha-junit-reporter@2.2.1",
    "chai@4.5.0",
    "vitest@2.1.9",
)
NOW = "2026-01-01T00:00:00+00:00"
IGNORED = "node_modules\nreports/\nchange-reports/\nwaiver.json\nsummary.md\n"
Patch = Callable[[Path], None]


# mocha 9, whose `xunit` reporter writes no file on a testcase: its ids name none.
MOCHA_9 = ("mocha@9.2.2", "chai@4.5.0")


def node_install(cache: Path, packages: tuple[str, ...] = PACKAGES) -> Path:
    """`node_modules` with `packages` (the runners, by default) installed, shared by every
    worker of the session and installed again when the list of packages changes; skipped
    (failed in CI) when node or npm is missing or the registry cannot be reached."""
    in_ci = os.environ.get("CI") == "true"
    if shutil.which("node") is None or shutil.which("npm") is None:
        if in_ci:
            pytest.fail("node and npm are needed in CI (.ci/run installs them)")
        pytest.skip("node and npm are not installed")
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        modules = cache / "node_modules"
        wanted = "\n".join(packages) + "\n"
        installed = cache / ".installed"
        if not installed.exists() or installed.read_text() != wanted:
            (cache / "package.json").write_text('{"name": "runners", "private": true}\n')
            completed = subprocess.run(
                ["npm", "install", "--no-audit", "--no-fund", "--no-save", *packages],
                cwd=cache,
                capture_output=True,
                text=True,
                check=False,
            )
            if completed.returncode != 0:
                message = f"npm install failed: {completed.stderr[-2000:]}"
                if in_ci:
                    pytest.fail(message)
                pytest.skip(message)
            installed.write_text(wanted)
        return modules


def link_install(modules: Path, work: Path) -> None:
    """The shared install as the project's own `node_modules`: a copy of hard links."""
    subprocess.run(["cp", "-al", str(modules), str(work / "node_modules")], check=True)


def replace_file(path: Path, text: str) -> None:
    """Write `text` to `path` as a new file, leaving any hard-linked original alone."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    path.write_text(text)


def write_files(work: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        replace_file(work / name, text)


class Project:
    """A JavaScript project under `work`, run by `runner` with the commands given."""

    def __init__(self, work: Path, runner: str, properties: list[str], tests: list[str]) -> None:
        self.work = work
        self.runner = runner
        self.properties = properties
        self.tests = tests

    def replay(self, out: str, replays: int, *extra: str) -> int:
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(self.work)
            return main(
                ["replay", "-n", str(replays), "--out", out, *extra,
                 "--properties-first", shlex.join(self.properties), "--", *self.tests]
            )  # fmt: skip

    def commit_base(self) -> str:
        """Lock, registry and policy written from a replay of the project, all committed."""
        (self.work / ".gitignore").write_text(IGNORED)
        (self.work / "waiver.yml").write_text(
            f"runner: {self.runner}\nregistry: known-tests.txt\nmin_replays: 3\n"
        )
        git(self.work, "init", "--quiet")
        scratch = self.work / "reports"
        assert self.replay(str(scratch), 1) == 0
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(self.work)
            lock = ["lock", "--fixtures", "fixtures", "--property-suite", "properties"]
            assert main([*lock, "--config", "waiver.yml"]) == 0
            baseline = ["baseline", "--runner", self.runner, "--reports", "reports"]
            properties = ["--properties", "reports/properties.xml", "--out", "known-tests.txt"]
            assert main([*baseline, *properties]) == 0
        shutil.rmtree(scratch)
        git(self.work, "add", "-A")
        git(self.work, "commit", "--quiet", "-m", "base")
        return git(self.work, "rev-parse", "HEAD")

    def commit_change(self, patch: Patch, *forced: str) -> None:
        patch(self.work)
        git(self.work, "add", "-A")
        if forced:
            git(self.work, "add", "-f", *forced)
        git(self.work, "commit", "--quiet", "-m", "change")

    def change_tests(self, base: str, replays: int) -> list[str]:
        """The change's new and edited tests replayed apart on its tree, with the command
        init writes for the runner: the gate's `--change-tests` of them."""
        out = self.work / "change-reports"
        if out.exists():
            shutil.rmtree(out)
        command = runner_named(self.runner).red_green_command()
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(self.work)
            assert main(["change-tests", "--base", base, "-n", str(replays), "--out", str(out),
                         "--config", "waiver.yml", "--", "sh", "-c", command]) == 0  # fmt: skip
        return ["--change-tests", str(out)]

    def replay_and_gate(
        self, base: str, tests_from: bool = True, replays: int = 3
    ) -> tuple[int, dict[str, Any]]:
        """The change replayed and gated: by default its new and edited tests apart, then
        the base's test tree on its code; else its own tree. The gate's exit code and its
        report."""
        reports = self.work / "reports"
        if reports.exists():
            shutil.rmtree(reports)
        restore = ["--tests-from", base, "--config", "waiver.yml"] if tests_from else []
        change = self.change_tests(base, replays) if tests_from else []
        self.replay(str(reports), replays, *restore)
        gated = main(
            ["gate", "--root", str(self.work), "--reports", str(reports),
             "--properties", str(reports / "properties.xml"),
             "--fixtures", str(self.work / "fixtures"), "--lock", str(self.work / "fixture.lock"),
             "--known-tests", str(self.work / "known-tests.txt"),
             "--config", str(self.work / "waiver.yml"),
             "--out", str(self.work / "waiver.json"), "--now", NOW,
             "--replays", str(replays), "--trusted-ref", base, *change]
        )  # fmt: skip
        return gated, load_report(self.work / "waiver.json")


def drifted(report: Mapping[str, Any]) -> set[str]:
    """Every path the report names as drifted, in the tree or in the change's commit."""
    fixtures = report["fixtures"]
    return {entry["path"] for entry in fixtures["drift"]} | {
        entry["path"] for entry in fixtures.get("committed_changes", [])
    }


def package_json(**keys: object) -> str:
    return json.dumps({"name": "calc", "version": "1.0.0", "private": True, **keys}, indent=2)


def registry(work: Path) -> list[str]:
    return (work / "known-tests.txt").read_text().splitlines()


def lines(path: Path) -> Iterator[str]:
    yield from path.read_text().splitlines()
