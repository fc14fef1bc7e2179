"""The test harness: the files, besides the fixtures, that decide how the tests run.

pytest's fixtures live in `conftest.py`, its options in `pytest.toml`, `.pytest.toml`,
`pytest.ini`, `.pytest.ini`, `tox.ini`, `setup.cfg` or the pytest tables of
`pyproject.toml`, and a property suite protects nothing if the change can rewrite it. A
change that edits any of these grades its own replays, so they are locked with the
fixtures. These are named here; what they load (plugin modules, modules that set
`pytest_plugins`, modules that shadow pytest) is resolved by `waiver.read.harness.resolve`.
A policy file can name more (another runner's configuration) but never fewer.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase

from waiver.errors import InputError
from waiver.read.policy.globs import unanchored
from waiver.read.trusted.trees import FileTree
from waiver.read.untrusted.files import split_relative

CONFIG_FILES = frozenset(
    {"pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg"}
)
HARNESS_FILES = CONFIG_FILES | {"conftest.py"}
PYPROJECT = "pyproject.toml"
# The modules of a property suite: Python's, and JavaScript's and TypeScript's for the
# runners that run them (fast-check suites under jest, vitest or mocha).
# A locked file, or one table of it (`pyproject.toml`'s `tool.pytest`, `package.json`'s `jest`).
Pair = tuple[str, str | None]


@dataclass(frozen=True)
class Why:
    """Why a file is harness, as `waiver init` and `waiver lock` say it; `obvious` when its
    name says it already (a conftest, a runner's configuration, the property suite)."""

    text: str
    obvious: bool = False


SUITE_MODULES = (".py", ".js", ".cjs", ".mjs", ".jsx", ".ts", ".cts", ".mts", ".tsx")


@dataclass(frozen=True)
class Harness:
    """Which repository paths belong to the harness.

    `patterns` are the policy file's globs: one without a `/` matches a file name in any
    folder, one with a `/` the whole repository-relative path (`*` crosses `/`), and one
    that starts with `/` or `./` is anchored there too (`/package.json` is the root's
    alone, `package.json` every folder's). `modules` are property-suite modules, named by
    path. `runner_files` finds, in a tree, the `(path, table)` pairs that a runner other
    than pytest loads (`waiver.runners`), each with why: its configuration, what that
    names, and what an install left tracked; None for pytest, whose files are built in.
    `tables` are the `(path, table)` pairs the policy names beyond those: the package
    scripts the test command runs (`package_scripts`), locked whether or not the file holds
    them yet.
    """

    patterns: tuple[str, ...] = ()
    modules: frozenset[str] = frozenset()
    runner_files: Callable[[FileTree], Mapping[Pair, Why]] | None = None
    tables: tuple[tuple[str, str], ...] = ()

    def covers(self, path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        if name in HARNESS_FILES or name == PYPROJECT or path in self.modules:
            return True
        return self.names(path)

    def names(self, path: str) -> bool:
        """Whether a policy glob names `path`."""
        name = path.rsplit("/", 1)[-1]
        return any(glob_names(pattern, path, name) for pattern in self.patterns)


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
