"""`waiver init` on a jest, a mocha and a vitest project built from scratch, with no flag but
what a pip install from GitHub records: it finds the runner in package.json, the property
suite and the fixtures, runs the suite once for the registry, and writes the policy and
workflows with the reporter settings of the runner's module; the first gate on an honest
change is clean and a real bug is a stable failure."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest
import yaml

from helpers.init_support import (
    commit_as_base,
    gate_written,
    installed_from_github,
    runner_part,
    workflow_inputs,
)
from helpers.js_projects import JEST, MOCHA, VITEST, JsProject
from helpers.node_support import IGNORED, link_install, registry, write_files
from helpers.support import classes, git
from waiver.cli import main
from waiver.runners import NODE_RUNNERS
from waiver.runners.node import Invocation
from waiver.runners.node.setup.node_commands import REPORTER_INSTALL, REPORTER_MODULE

pytestmark = pytest.mark.slow

NODE = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False)
NODE_MAJOR = NODE.stdout.strip().removeprefix("v").split(".")[0]


def _named_by_package(files: Mapping[str, str], **keys: object) -> dict[str, str]:
    """The project's files with its package.json naming its runner, as a real one does."""
    package = json.loads(files["package.json"])
    return {**files, "package.json": json.dumps({**package, **keys}, indent=2)}


# Each project as tests/helpers/js_projects.py builds it: jest named by its jest.config.js,
# mocha by the `test` script, vitest by its dev dependencies.
PROJECTS: dict[str, tuple[JsProject, dict[str, str]]] = {
    "jest": (JEST, dict(JEST.files)),
    "mocha": (MOCHA, _named_by_package(MOCHA.files, scripts={"test": "mocha"})),
    "vitest": (VITEST, _named_by_package(VITEST.files, devDependencies={"vitest": "^2.1.9"})),
}


@pytest.fixture(params=sorted(PROJECTS))
def initialised(
    request: pytest.FixtureRequest, tmp_path: Path, node_modules: Path
) -> tuple[str, Path, str]:
    """(runner, root, base): the project after `waiver init`, committed as the base."""
    runner = request.param
    root = tmp_path / "calc"
    root.mkdir()
    write_files(root, {**PROJECTS[runner][1], ".gitignore": IGNORED})
    link_install(node_modules, root)
    git(root, "init", "--quiet")
    with pytest.MonkeyPatch.context() as patch:
        installed_from_github(tmp_path / "site", patch)
        patch.chdir(root)
        assert main(["init"]) == 0
    commit_as_base(root)
    return runner, root, git(root, "rev-parse", "HEAD")


def test_init_writes_the_runner_the_ids_the_lock_and_the_node_version(
    initialised: tuple[str, Path, str],
) -> None:
    runner, root, _ = initialised
    assert registry(root) == list(PROJECTS[runner][0].registry)
    policy = yaml.safe_load((root / "waiver.yml").read_text())
    assert (policy["runner"], policy["registry"]) == (runner, "known-tests.txt")
    locked = [line.split("  ", 1)[1] for line in (root / "fixture.lock").read_text().splitlines()]
    assert locked == sorted(
        ["fixtures/cases.json", PROJECTS[runner][0].property_file]
        + (["jest.config.js", "test/setup.js"] if runner == "jest" else [])
    )
    inputs = workflow_inputs(root)
    assert inputs["node-version"] == NODE_MAJOR
    # The history records the pushes to the branch the repository has, whatever its name.
    caller = yaml.safe_load((root / ".github/workflows/waiver.yml").read_text())
    assert caller[True]["push"]["branches"] == [git(root, "symbolic-ref", "--short", "HEAD")]
    # ...and the writer that records them, which the report workflow names, is written too.
    report = yaml.safe_load((root / ".github/workflows/waiver-report.yml").read_text())
    history = report["jobs"]["report"]["with"]["history-workflow"]
    writer = yaml.safe_load((root / history).read_text())
    assert writer["name"] == "waiver history"
    assert inputs["fixtures"] == "fixtures"
    # jest-junit is no dependency of the jest project: the install step brings it.
    reporter = f" && {REPORTER_INSTALL}" if runner == "jest" else ""
    assert inputs["setup-command"] == f"npm install{reporter}"
    assert "&&" not in inputs["property-command"] + inputs["test-command"]
    # The project's own binary, never a download.
    assert f"node_modules/.bin/{runner} " in inputs["test-command"]
    assert "npx" not in inputs["property-command"] + inputs["test-command"]
    invocation = Invocation(reporter=REPORTER_MODULE) if runner == "jest" else Invocation()
    assert inputs["red-green-command"] == NODE_RUNNERS[runner].red_green(invocation)


def test_the_first_gate_on_an_honest_change_is_clean(initialised: tuple[str, Path, str]) -> None:
    runner, root, base = initialised
    code = next((root / "src").iterdir())
    code.write_text(
        code.read_text().replace(
            "return Math.min(Math.max(x, lo), hi);",
            "const low = Math.max(x, lo);\n  return Math.min(low, hi);",
        )
    )
    git(root, "commit", "--quiet", "-am", "refactor")
    code_, report = gate_written(root, base, runner_part)
    assert (code_, report["verdict"]) == (0, "clean"), report
    assert set(classes(report).values()) == {"stable_pass"}
    assert sorted(classes(report)) == sorted(PROJECTS[runner][0].registry[1:])


def test_a_real_bug_is_a_stable_failure(initialised: tuple[str, Path, str]) -> None:
    runner, root, base = initialised
    project = PROJECTS[runner][0]
    project.break_clamp(root)
    git(root, "commit", "--quiet", "-am", "bug")
    code, report = gate_written(root, base, runner_part)
    assert code == 1
    assert classes(report)[project.above] == "stable_assertion_fail"


def test_an_install_that_fails_is_named_with_its_output(
    tmp_path: Path, node_modules: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """npm's lockfile is there, so init runs `npm ci` first, as the workflow will; a lock
    out of step with package.json stops it, named, and nothing is written."""
    root = tmp_path / "calc"
    root.mkdir()
    lock = {"name": "calc", "version": "1.0.0", "lockfileVersion": 3, "requires": True,
            "packages": {"": {"name": "calc", "version": "1.0.0"}}}  # fmt: skip
    files = _named_by_package(JEST.files, devDependencies={"jest": "29.7.0"})
    write_files(root, {**files, ".gitignore": IGNORED, "package-lock.json": json.dumps(lock)})
    link_install(node_modules, root)
    git(root, "init", "--quiet")
    with pytest.MonkeyPatch.context() as patch:
        installed_from_github(tmp_path / "site", patch)
        patch.chdir(root)
        assert main(["init"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "waiver: error: npm ci: the install step failed (exit 1)\n  npm error code EUSAGE\n"
    )
    assert "package.json and package-lock.json or npm-shrinkwrap.json are in sync" in err
    assert "<U+" not in err
    assert not (root / "waiver.yml").exists()
