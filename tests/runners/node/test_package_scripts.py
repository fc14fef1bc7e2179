"""A test command that runs a package script (`npm test`): the script's definition is
harness. `waiver init` finds it from the commands, names it in the policy and locks it; a
change that edits it to strip every `<failure>` from the JUnit file, beside a real bug,
drifts, even when its replays run its own script and report every test passed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from helpers.init_support import commit_as_base, installed_from_github
from helpers.js_projects import VITEST
from helpers.node_support import IGNORED, Project, drifted, link_install, replace_file, write_files
from helpers.support import classes, git
from waiver.cli import main

pytestmark = pytest.mark.slow

JUNIT = "--reporter=default --reporter=junit --outputFile.junit=$WAIVER_JUNIT"
SCRIPTS = {"test": f"vitest run test/ {JUNIT}", "test:props": f"vitest run properties/ {JUNIT}"}
# Runs the tests, then takes every failure out of their report: the replays then pass.
STRIPS = (
    f"vitest run test/ {JUNIT}; node -e \"const fs = require('fs'), f = process.argv[1]; "
    "fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/<failure[^]*?<\\/failure>/g, ''))\" "
    "$WAIVER_JUNIT"
)


def package(scripts: dict[str, str]) -> str:
    document = json.loads(VITEST.files["package.json"])
    return json.dumps({**document, "scripts": scripts, "devDependencies": {"vitest": "^2"}})


@pytest.fixture
def initialised(tmp_path: Path, node_modules: Path) -> tuple[Path, str]:
    """The vitest project, its commands `npm test` and `npm run test:props`, after `waiver
    init`, committed as the base: (root, base)."""
    root = tmp_path / "calc"
    root.mkdir()
    write_files(root, {**VITEST.files, "package.json": package(SCRIPTS), ".gitignore": IGNORED})
    link_install(node_modules, root)
    git(root, "init", "--quiet")
    with pytest.MonkeyPatch.context() as patch:
        installed_from_github(tmp_path / "site", patch)
        patch.chdir(root)
        command = ["init", "--test-command", "npm test", "--property-command", "npm run test:props"]
        assert main(command) == 0
    commit_as_base(root)
    return root, git(root, "rev-parse", "HEAD")


def test_init_locks_the_scripts_the_commands_run(initialised: tuple[Path, str]) -> None:
    root, _ = initialised
    policy = yaml.safe_load((root / "waiver.yml").read_text())
    assert policy["package_scripts"] == ["test", "test:props"]
    lock = (root / "fixture.lock").read_text()
    assert "# [scripts.test] " in lock and "# [scripts.test:props] " in lock


@pytest.mark.parametrize("tests_from", [False, True])
def test_a_script_edited_to_strip_failures_drifts(
    initialised: tuple[Path, str], tests_from: bool
) -> None:
    root, base = initialised
    project = Project(root, "vitest", ["npm", "run", "test:props"], ["npm", "test"])

    def strip(work: Path) -> None:
        VITEST.break_clamp(work)
        replace_file(work / "package.json", package({**SCRIPTS, "test": STRIPS}))

    project.commit_change(strip)
    gated, report = project.replay_and_gate(base, tests_from=tests_from)
    assert (gated, report["verdict"]) == (1, "blocked")
    assert set(classes(report).values()) == {"fixture_drift"}
    assert "package.json" in drifted(report)
    drift = [d for d in report["fixtures"]["drift"] if d["path"] == "package.json"]
    assert drift == [
        {"path": "package.json", "kind": "changed", "part": "harness", "table": "scripts.test"}
    ]


def test_an_edit_elsewhere_in_package_json_is_no_drift(initialised: tuple[Path, str]) -> None:
    root, base = initialised
    project = Project(root, "vitest", ["npm", "run", "test:props"], ["npm", "test"])
    scripts = {**SCRIPTS, "build": "tsc"}
    project.commit_change(lambda work: replace_file(work / "package.json", package(scripts)))
    gated, report = project.replay_and_gate(base, replays=5)  # init's min_replays
    assert (gated, report["verdict"]) == (0, "clean"), report["run_blockers"]
