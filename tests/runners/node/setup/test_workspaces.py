"""A JavaScript monorepo on a first day: its workspace's packages are named, and init sets
up the root's suite when the root's runner lists them as projects, or stops naming the
packages that run their own tests when it does not: never a silent partial setup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.init_support import init
from helpers.support import write_tree
from waiver.runners.node.setup.workspaces import root_projects, workspace_note, workspace_packages


def package(**keys: object) -> str:
    return json.dumps({"name": "mono", "private": True, **keys})


PACKAGES = {
    "packages/core/package.json": package(scripts={"test": "vitest run"}),
    "packages/core/vitest.config.ts": "export default {};\n",
    "packages/cli/package.json": package(scripts={"test": "jest"}),
    "packages/docs/package.json": package(),
    "packages/old/package.json": package(),
}


def test_the_packages_of_each_kind_of_workspace(tmp_path: Path) -> None:
    pnpm = write_tree(tmp_path / "pnpm", {
        **PACKAGES, "package.json": package(),
        "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n  - '!packages/old'\n",
    })  # fmt: skip
    assert workspace_packages(str(pnpm), {}) == (
        "a pnpm workspace", ["packages/cli", "packages/core", "packages/docs"]
    )  # fmt: skip
    npm = write_tree(tmp_path / "npm", PACKAGES)
    declared = {"workspaces": {"packages": ["packages/c*"]}}
    assert workspace_packages(str(npm), declared) == (
        "an npm workspace", ["packages/cli", "packages/core"]
    )  # fmt: skip
    assert workspace_packages(str(npm), {}) == ("", [])


def test_a_root_that_lists_projects_runs_every_package(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "vitest", {"vitest.workspace.ts": "export default ['packages/*'];\n"}
    )
    assert root_projects(str(root), "vitest")
    jest = write_tree(tmp_path / "jest", {
        "jest.config.js": "module.exports = { projects: ['<rootDir>/packages/*'] };\n",
    })  # fmt: skip
    assert root_projects(str(jest), "jest")
    assert not root_projects(str(jest), "vitest")
    keyed = write_tree(tmp_path / "key", {"package.json": package(jest={"projects": ["a"]})})
    assert root_projects(str(keyed), "jest")


def test_what_init_says_of_a_workspace(tmp_path: Path) -> None:
    files = {**PACKAGES, "package.json": package(workspaces=["packages/*"])}
    root = write_tree(tmp_path / "own", files)
    said, problem = workspace_note(str(root), "vitest")
    assert said is None
    assert problem is not None and problem.startswith(
        "an npm workspace whose packages run their own tests (packages/cli (jest), "
        "packages/core (vitest)), and vitest's configuration at the root lists no projects"
    )
    listed = write_tree(
        tmp_path / "listed", {**files, "vitest.workspace.ts": "export default [];\n"}
    )
    assert workspace_note(str(listed), "vitest") == (
        "an npm workspace of 4 packages (packages/cli, packages/core, packages/docs, "
        "packages/old): vitest's projects at the root run their tests, and so do the written "
        "commands",
        None,
    )
    plain = write_tree(tmp_path / "plain", {
        "package.json": package(workspaces=["packages/*"]), "packages/a/package.json": package(),
    })  # fmt: skip
    assert workspace_note(str(plain), "jest") == (
        "an npm workspace of 1 package (packages/a): jest at the root runs their tests", None
    )  # fmt: skip
    assert workspace_note(str(tmp_path / "plain" / "packages" / "a"), "jest") == (None, None)


def test_init_stops_at_a_partial_setup_numbered_with_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_tree(tmp_path, {
        **PACKAGES,
        "package.json": package(workspaces=["packages/*"], devDependencies={"vitest": "3"}),
        "properties/add.test.ts": "import fc from 'fast-check';\n",
        "test/a.test.ts": "it('a', () => {});\n",
    })  # fmt: skip
    assert init(root) == 2
    err = capsys.readouterr().err
    assert "an npm workspace whose packages run their own tests" in err
    assert "--test-command and --property-command" in err
