"""A JavaScript monorepo as far as a first day needs: the packages of a pnpm, npm or yarn
workspace, and whether the runner init sets up at the root runs their tests.

`waiver init` sets up one suite, run from the root. A runner whose root configuration
lists projects (jest's `projects`, a `vitest.workspace.*` file, vitest's `test.projects` or
`test.workspace`) runs every package's tests from there, and init says so. A workspace whose
packages run their own tests (a runner configuration or a test script of their own) while
the root's configuration lists no projects would be set up in part, silently: init stops and
says which packages those are and how to settle it.
"""

from __future__ import annotations

import os
from fnmatch import fnmatchcase

from waiver.read.untrusted.bounded import load_bounded_yaml
from waiver.runners import NODE_RUNNERS
from waiver.runners.node.setup.node_layout import MAX_INIT_READ_BYTES, RUNNER_CONFIGS, read_package
from waiver.runners.node.syntax import keyed_strings, parse

PNPM_WORKSPACE = "pnpm-workspace.yaml"
PROJECT_KEYS = frozenset({"projects", "workspace"})
SHOWN = 5


def _globs(root: str, package: dict[str, object]) -> tuple[str, list[str]]:
    """The workspace's kind and its package globs: pnpm's file, else package.json's
    `workspaces` (npm and yarn, a list or `{packages: [...]}`)."""
    path = os.path.join(root, PNPM_WORKSPACE)
    if os.path.isfile(path):
        with open(path, "rb") as stream:
            # Counted with its aliases expanded: a small file of nested aliases is refused.
            document = load_bounded_yaml(stream.read(MAX_INIT_READ_BYTES), PNPM_WORKSPACE)
        listed = document.get("packages") if isinstance(document, dict) else None
        return "a pnpm workspace", [g for g in listed or [] if isinstance(g, str)]
    declared = package.get("workspaces")
    if isinstance(declared, dict):
        declared = declared.get("packages")
    if isinstance(declared, list):
        return "an npm workspace", [g for g in declared if isinstance(g, str)]
    return "", []


def workspace_packages(root: str, package: dict[str, object]) -> tuple[str, list[str]]:
    """The workspace's kind and the folders of its packages (each with a package.json),
    sorted; ("", []) when the root declares none."""
    kind, globs = _globs(root, package)
    found: set[str] = set()
    for glob in globs:
        if glob.startswith("!"):
            continue
        pattern = glob.strip("/").removeprefix("./")
        parent = pattern.split("*", 1)[0].rsplit("/", 1)[0] if "*" in pattern else pattern
        for current, folders, files in os.walk(os.path.join(root, parent or ".")):
            folders[:] = [f for f in folders if f != "node_modules" and not f.startswith(".")]
            relative = os.path.relpath(current, root).replace(os.sep, "/")
            if "package.json" in files and relative != "." and fnmatchcase(relative, pattern):
                found.add(relative)
    excluded = [g[1:].strip("/").removeprefix("./") for g in globs if g.startswith("!")]
    return kind, sorted(p for p in found if not any(fnmatchcase(p, g) for g in excluded))


def root_projects(root: str, runner: str) -> bool:
    """Whether the root's configuration of `runner` lists projects it runs."""
    names = os.listdir(root)
    if runner == "vitest" and any(fnmatchcase(name, "vitest.workspace.*") for name in names):
        return True
    for name in names:
        if not any(fnmatchcase(name, glob) for glob in RUNNER_CONFIGS.get(runner, ())):
            continue
        with open(os.path.join(root, name), "rb") as stream:
            tree = parse(stream.read(MAX_INIT_READ_BYTES), name)
        if any(PROJECT_KEYS & set(keys) for keys, _ in keyed_strings(tree)):
            return True
    package = read_package(root) or {}
    table = package.get(runner)
    return isinstance(table, dict) and "projects" in table


def _runs_own_tests(root: str, folder: str) -> str | None:
    """The runner a workspace package runs its own tests with, if it does."""
    names = os.listdir(os.path.join(root, folder))
    for runner, globs in RUNNER_CONFIGS.items():
        if any(fnmatchcase(name, glob) for name in names for glob in globs):
            return runner
    package = read_package(os.path.join(root, folder)) or {}
    scripts = package.get("scripts")
    script = scripts.get("test") if isinstance(scripts, dict) else None
    words = str(script or "").replace("/", " ").split()
    return next((name for name in NODE_RUNNERS if name in words), None)


def workspace_note(root: str, runner: str) -> tuple[str | None, str | None]:
    """What init says of the workspace at `root` set up with `runner`: a line beside the
    workflow, or a problem that stops it; (None, None) without a workspace."""
    package = read_package(root) or {}
    kind, packages = workspace_packages(root, package)
    if not packages:
        return None, None
    more = f" and {len(packages) - SHOWN} more" if len(packages) > SHOWN else ""
    shown = ", ".join(packages[:SHOWN]) + more
    counted = f"{len(packages)} package{'' if len(packages) == 1 else 's'}"
    if root_projects(root, runner):
        return (
            f"{kind} of {counted} ({shown}): {runner}'s projects at the root "
            "run their tests, and so do the written commands",
            None,
        )
    own = {folder: found for folder in packages if (found := _runs_own_tests(root, folder))}
    if not own:
        return (
            f"{kind} of {counted} ({shown}): {runner} at the root runs their tests",
            None,
        )
    listed = ", ".join(f"{folder} ({found})" for folder, found in sorted(own.items()))
    return None, (
        f"{kind} whose packages run their own tests ({listed}), and {runner}'s "
        "configuration at the root lists no projects, so a suite run from the root would "
        "leave theirs out: list them as projects of one runner at the root (jest's "
        "`projects`, vitest's `test.projects` or a vitest.workspace file), or give the "
        "commands that run every package's tests with --test-command and --property-command"
    )
