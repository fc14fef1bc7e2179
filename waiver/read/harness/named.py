"""The test harness: the files, besides the fixtures, that decide how the tests run.

A runner's fixtures, configuration and plugins, and the property suite, protect nothing if
the change can rewrite them: a change that edits any of them grades its own replays, so
they are locked with the fixtures. A runner names its own (`Harness`, with the
`HarnessFinder` that finds them in a tree, from the runner's package under
`waiver.runners`); the lock, the drift and the restore take them from there
(`harness_pairs`). A policy file can name more (another runner's configuration) but never
fewer.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Protocol

from waiver.errors import InputError
from waiver.read.lock.lock_file import NO_TABLES, LockTables
from waiver.read.policy.globs import unanchored
from waiver.read.trusted.trees import DiskTree, FileTree
from waiver.read.untrusted.files import split_relative

MAX_MODULE_BYTES = 16 << 20  # the most of a harness file or module that is read
# A locked file, or one table of it (`pyproject.toml`'s `tool.pytest`, `package.json`'s `jest`).
Pair = tuple[str, str | None]


@dataclass(frozen=True)
class Why:
    """Why a file is harness, as `waiver init` and `waiver lock` say it; `obvious` when its
    name says it already (a conftest, a runner's configuration, the property suite)."""

    text: str
    obvious: bool = False


SUITE_WHY = Why("a module of the property suite", obvious=True)
PACKAGE_SCRIPT_WHY = Why("a package script the test command runs (the policy's package_scripts)")
# The modules of a property suite: Python's, and JavaScript's and TypeScript's for the
# runners that run them (fast-check suites under jest, vitest or mocha).
SUITE_MODULES = (".py", ".js", ".cjs", ".mjs", ".jsx", ".ts", ".cts", ".mts", ".tsx")


class HarnessFinder(Protocol):
    """How a runner finds its harness in a tree, and the data beside its tests, from files
    alone: what the lock, the drift and the restore need of a runner, which they are handed
    in its `Harness` (they lie below the runners, and import none)."""

    def by_name(self, path: str) -> bool:
        """Whether `path` is harness by its name alone, wherever it lies (a conftest, a
        configuration file)."""

    def resolve(
        self, tree: FileTree, harness: Harness, may_set_plugins: Callable[[str], bool]
    ) -> dict[Pair, Why]:
        """The `(path, table)` pairs of `harness` in `tree` that the runner resolves, each
        with why: what it names and what that loads. `may_set_plugins` chooses which other
        modules are read for what they load."""

    def test_data(self, tree: FileTree, paths: Sequence[str]) -> list[str]:
        """Those of `paths` that are data files beside the tests by the configuration in
        `tree` (the trusted revision's), in their order."""


@dataclass(frozen=True)
class Harness:
    """Which repository paths belong to the harness.

    `finder` is the runner's (`HarnessFinder`). `patterns` are the policy file's globs: one
    without a `/` matches a file name in any folder, one with a `/` the whole
    repository-relative path (`*` crosses `/`), and one that starts with `/` or `./` is
    anchored there too (`/package.json` is the root's alone, `package.json` every
    folder's). `modules` are property-suite modules, named by path. `runner_files` finds,
    in a tree, the `(path, table)` pairs that a runner loads beyond what `finder` resolves
    (`waiver.runners`), each with why: its configuration, what that names, and what an
    install left tracked. `tables` are the `(path, table)` pairs the policy names beyond
    those: the package scripts the test command runs (`package_scripts`), locked whether or
    not the file holds them yet. `lock_tables` are the tables a lock may hold, and how each
    is read: the runner's own, or every runner's (`waiver.runners.LOCK_TABLES`).
    """

    finder: HarnessFinder
    patterns: tuple[str, ...] = ()
    modules: frozenset[str] = frozenset()
    runner_files: Callable[[FileTree], Mapping[Pair, Why]] | None = None
    tables: tuple[tuple[str, str], ...] = ()
    lock_tables: LockTables = NO_TABLES

    def covers(self, path: str) -> bool:
        if self.finder.by_name(path) or path in self.modules:
            return True
        return self.names(path)

    def names(self, path: str) -> bool:
        """Whether a policy glob names `path`."""
        name = path.rsplit("/", 1)[-1]
        return any(glob_names(pattern, path, name) for pattern in self.patterns)


def harness_pairs(
    tree: FileTree, harness: Harness, may_set_plugins: Callable[[str], bool] = bool
) -> dict[Pair, Why]:
    """The `(path, table)` pairs of the harness in a tree, each with why it is harness: what
    `waiver lock` locks and the gate holds against the lock. What the runner resolves
    (`Harness.finder`), the files it loads beyond that (`Harness.runner_files`), the tables
    the policy names (`Harness.tables`) and the property-suite modules.

    `may_set_plugins` chooses which other modules are read for what they load: all of them
    by default.
    """
    pairs = harness.finder.resolve(tree, harness, may_set_plugins)
    if harness.runner_files is not None:
        pairs |= {
            pair: why for pair, why in harness.runner_files(tree).items() if pair not in pairs
        }
    for pair in harness.tables:
        pairs.setdefault(pair, PACKAGE_SCRIPT_WHY)
    for module in sorted(harness.modules):
        pairs.setdefault((module, None), SUITE_WHY)
    return pairs


def harness_in_tree(root: str, harness: Harness, skipped: Callable[[str], bool]) -> dict[Pair, Why]:
    """The `(path, table)` pairs of the harness in the work tree under `root`, but in the
    folders `skipped` names (`waiver.read.trusted.ignored`)."""
    return harness_pairs(DiskTree(root, skipped), harness)


def glob_names(pattern: str, path: str, name: str) -> bool:
    """Whether a `harness:` glob names the file at `path`, whose name is `name`."""
    glob, anchored = unanchored(pattern)
    return fnmatchcase(path if anchored or "/" in glob else name, glob)


def property_modules(test_ids: Iterable[str]) -> frozenset[str]:
    """The modules a property report's ids name (`tests/props/test_x.py::test_y`)."""
    modules = set()
    for test_id in test_ids:
        head, separator, _ = test_id.partition("::")
        if not separator or not head.endswith(SUITE_MODULES):
            continue
        try:
            split_relative(head, head)
        except InputError:
            continue  # not a path, so not a module in the repository
        modules.add(head)
    return frozenset(modules)


def suite_modules(root: str, suite: str) -> list[str]:
    """Every module under a property-suite folder (Python, JavaScript or TypeScript), as
    repository-relative paths."""
    root_path = os.path.realpath(root)
    folder = os.path.realpath(suite)
    if os.path.islink(suite) or not os.path.isdir(folder):
        raise InputError(suite, "the property-suite folder does not exist or is a symlink")
    if os.path.commonpath([root_path, folder]) != root_path:
        raise InputError(suite, f"the property-suite folder is outside the repository root {root}")
    prefix = os.path.relpath(folder, root_path).replace(os.sep, "/")
    modules = []
    for current, folders, files in os.walk(folder):
        folders[:] = [name for name in folders if name not in ("__pycache__", "node_modules")]
        inner = os.path.relpath(current, folder).replace(os.sep, "/")
        for name in files:
            if name.endswith(SUITE_MODULES):
                path = "/".join(p for p in (prefix, inner, name) if p not in ("", "."))
                modules.append(path)
    return sorted(modules)
