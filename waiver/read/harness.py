"""The test harness: the files, besides the fixtures, that decide how the tests run.

pytest's fixtures live in `conftest.py`, its options in `pytest.ini`, `.pytest.ini`,
`tox.ini`, `setup.cfg` or the `[tool.pytest]` table of `pyproject.toml`, and a property
suite protects nothing if the change can rewrite it. A change that edits any of these
grades its own replays, so they are locked with the fixtures. A policy file can name more
(another runner's configuration) but never fewer.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from waiver.errors import InputError
from waiver.read.files import split_relative

HARNESS_FILES = frozenset({"conftest.py", "pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg"})
PYPROJECT = "pyproject.toml"
PYTEST_TABLE = "tool.pytest"
# A virtualenv (pytest does not collect from one) and git's own folder hold no harness.
VIRTUALENV_MARKER = "pyvenv.cfg"
SKIPPED_FOLDERS = frozenset({".git"})


@dataclass(frozen=True)
class Harness:
    """Which repository paths belong to the harness.

    `patterns` are the policy file's globs: one without a `/` matches a file name in any
    folder, one with a `/` the whole repository-relative path (`*` crosses `/`).
    `modules` are property-suite modules, named by path.
    """

    patterns: tuple[str, ...] = ()
    modules: frozenset[str] = frozenset()

    def covers(self, path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        if name in HARNESS_FILES or name == PYPROJECT or path in self.modules:
            return True
        return self._named(path)

    def _named(self, path: str) -> bool:
        """Whether a policy glob names `path`."""
        name = path.rsplit("/", 1)[-1]
        return any(fnmatchcase(path if "/" in p else name, p) for p in self.patterns)

    def locked_set(self, found: Iterable[str]) -> list[tuple[str, str | None]]:
        """The `(path, table)` pairs to lock among the harness files found: whole files,
        and only the pytest table of a `pyproject.toml` (unless a pattern names it whole)."""
        pairs: list[tuple[str, str | None]] = []
        for path in found:
            if path.rsplit("/", 1)[-1] == PYPROJECT:
                pairs.append((path, PYTEST_TABLE))
                if not self._named(path):
                    continue
            pairs.append((path, None))
        return pairs

    def in_tree(self, root: str) -> list[tuple[str, str | None]]:
        """The `(path, table)` pairs of the harness in the tree under `root`, modules too."""
        found = self.locked_set(scan_harness(root, self))
        return [*found, *((module, None) for module in sorted(self.modules))]


def property_modules(test_ids: Iterable[str]) -> frozenset[str]:
    """The modules a property report's ids name (`tests/props/test_x.py::test_y`)."""
    modules = set()
    for test_id in test_ids:
        head, separator, _ = test_id.partition("::")
        if not separator or not head.endswith(".py"):
            continue
        try:
            split_relative(head, head)
        except InputError:
            continue  # not a path, so not a module in the repository
        modules.add(head)
    return frozenset(modules)


def scan_harness(root: str, harness: Harness) -> list[str]:
    """Every harness file in the repository, sorted; `.git` and virtualenvs are skipped.

    A symlink or a special file where a harness file would be is an input error, like one
    in the fixture set: pytest would follow it to bytes the lock cannot vouch for.
    Symlinked folders are not entered.
    """
    found: list[str] = []
    pending = [""]
    while pending:
        current = pending.pop()
        with os.scandir(os.path.join(root, current) if current else root) as scanned:
            entries = list(scanned)
        if current and any(entry.name == VIRTUALENV_MARKER for entry in entries):
            continue
        for entry in entries:
            path = f"{current}/{entry.name}" if current else entry.name
            covered = harness.covers(path)
            if entry.is_symlink():
                if covered:
                    raise InputError(path, "a symlink in the test harness")
            elif entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIPPED_FOLDERS:
                    pending.append(path)
            elif covered:
                if not entry.is_file(follow_symlinks=False):
                    raise InputError(path, "not a regular file in the test harness")
                found.append(path)
    return sorted(found)


def suite_modules(root: str, suite: str) -> list[str]:
    """Every Python module under a property-suite folder, as repository-relative paths."""
    root_path = os.path.realpath(root)
    folder = os.path.realpath(suite)
    if os.path.islink(suite) or not os.path.isdir(folder):
        raise InputError(suite, "the property-suite folder does not exist or is a symlink")
    if os.path.commonpath([root_path, folder]) != root_path:
        raise InputError(suite, f"the property-suite folder is outside the repository root {root}")
    prefix = os.path.relpath(folder, root_path).replace(os.sep, "/")
    modules = []
    for current, folders, files in os.walk(folder):
        folders[:] = [name for name in folders if name != "__pycache__"]
        inner = os.path.relpath(current, folder).replace(os.sep, "/")
        for name in files:
            if name.endswith(".py"):
                path = "/".join(p for p in (prefix, inner, name) if p not in ("", "."))
                modules.append(path)
    return sorted(modules)
