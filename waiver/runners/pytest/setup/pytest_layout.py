"""A Python repository's test layout, found from its files: what `waiver init` builds on for
pytest.

Nothing here runs the repository's code. The pytest configuration is read for
`testpaths`; test folders and the property suite are found by name (a property suite
that is not in a folder of its own name by its `hypothesis` imports, and taken as the
tests pytest marks `hypothesis` when those modules hold other tests too), fixture
folders by name or as folders among the tests that hold files but no Python module, and
the data files beside the tests (`tests/cases.json`) as every other file under the test
folders that is not Python's, documentation or git's.
"""

from __future__ import annotations

import configparser
import os
import re

from waiver.errors import InputError
from waiver.init.layout import (
    FIXTURE_FOLDERS,
    PROPERTY_FOLDERS,
    SKIPPED,
    TEST_FOLDERS,
    Layout,
    inside,
)
from waiver.read.trusted.ignored import ignored_folders
from waiver.read.untrusted.bounded import read_toml_file
from waiver.runners.pytest.harness.collected import is_data_file

# The files pytest reads its configuration from, in the order it looks for them, with the
# section that holds it (None: the whole file is pytest's).
PYTEST_CONFIGS: tuple[tuple[str, str | None], ...] = (
    ("pytest.toml", None),
    (".pytest.toml", None),
    ("pytest.ini", "pytest"),
    (".pytest.ini", "pytest"),
    ("pyproject.toml", "tool.pytest.ini_options"),
    ("pyproject.toml", "tool.pytest"),
    ("tox.ini", "pytest"),
    ("setup.cfg", "tool:pytest"),
)


HYPOTHESIS_IMPORT = re.compile(rb"^\s*(?:from|import)\s+hypothesis\b", re.MULTILINE)


# How much of a module is searched for a hypothesis import: a cut, never a refusal.
HYPOTHESIS_SCAN_BYTES = 1 << 20


def pytest_config(root: str) -> tuple[str | None, tuple[str, ...]]:
    """The file pytest reads its configuration from, and its `testpaths`."""
    for name, section in PYTEST_CONFIGS:
        path = os.path.join(root, name)
        if not os.path.isfile(path):
            continue
        if name.endswith(".toml"):
            found = _toml_testpaths(path, name, section)
        else:
            found = _ini_testpaths(path, name, section)
        if found is not None:
            return name, found
    return None, ()


def _toml_testpaths(path: str, name: str, section: str | None) -> tuple[str, ...] | None:
    table: object = read_toml_file(path, name)
    for key in (section or "").split(".") if section else ():
        table = table.get(key) if isinstance(table, dict) else None
    if section is None and isinstance(table, dict):
        table = table.get("pytest", table)
    if not isinstance(table, dict):
        return None
    paths = table.get("testpaths", [])
    return tuple(str(p) for p in paths) if isinstance(paths, list) else (str(paths),)


def _ini_testpaths(path: str, name: str, section: str | None) -> tuple[str, ...] | None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError) as error:
        raise InputError(name, f"not a valid configuration file: {error}") from None
    if section is None or not parser.has_section(section):
        return None
    return tuple(parser.get(section, "testpaths", fallback="").split())


def _folders(root: str, top: str) -> list[str]:
    """Every folder under `top` (itself included), skipping virtualenvs, tool folders and
    the folders git ignores."""
    found: list[str] = []
    ignored = ignored_folders(root, None)
    for current, folders, files in os.walk(os.path.join(root, top)):
        if "pyvenv.cfg" in files:
            folders[:] = []
            continue
        relative = os.path.relpath(current, root).replace(os.sep, "/")
        folders[:] = sorted(
            name
            for name in folders
            if name not in SKIPPED
            and not name.startswith(".")  # .hypothesis, .pytest_cache: tools' own state
            and not os.path.islink(os.path.join(current, name))
            and not ignored(name if relative == "." else f"{relative}/{name}")
        )
        found.append(os.path.relpath(current, root).replace(os.sep, "/"))
    return found


def _outermost(folders: list[str]) -> tuple[str, ...]:
    """The folders that are not inside another one of them."""
    kept: list[str] = []
    for folder in sorted(set(folders)):
        if not any(folder.startswith(outer + "/") for outer in kept):
            kept.append(folder)
    return tuple(kept)


def _modules(root: str, folder: str) -> list[str]:
    return sorted(
        f"{folder}/{name}"
        for name in os.listdir(os.path.join(root, folder))
        if name.endswith(".py") and os.path.isfile(os.path.join(root, folder, name))
    )


def _uses_hypothesis(root: str, module: str) -> bool:
    with open(os.path.join(root, module), "rb") as stream:
        return HYPOTHESIS_IMPORT.search(stream.read(HYPOTHESIS_SCAN_BYTES)) is not None


def _is_test_module(module: str) -> bool:
    name = module.rsplit("/", 1)[-1]
    return name.startswith("test_") or name.endswith("_test.py")


def _property_suites(
    root: str, folders: list[str], test_folders: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Property folders by name; else the one folder below the test folders whose test
    modules all use hypothesis (a test folder itself holds the plain tests too). Returns
    the suites, and the hypothesis modules when they are scattered."""
    named = [
        folder
        for folder in _outermost([f for f in folders if f.rsplit("/", 1)[-1] in PROPERTY_FOLDERS])
        if any(_is_test_module(m) for f in folders if inside(f, folder) for m in _modules(root, f))
    ]
    if named:
        return tuple(named), ()
    users: dict[str, list[str]] = {}
    mixed: set[str] = set()
    for folder in folders:
        for module in filter(_is_test_module, _modules(root, folder)):
            if _uses_hypothesis(root, module):
                users.setdefault(folder, []).append(module)
            else:
                mixed.add(folder)
    if len(users) == 1 and not (mixed | set(test_folders)) & set(users):
        return tuple(users), ()
    return (), tuple(module for modules in users.values() for module in modules)


def find_layout(root: str) -> Layout:
    """The layout of the repository at `root`, as far as its files tell."""
    config, testpaths = pytest_config(root)
    candidates = testpaths or TEST_FOLDERS
    test_folders = tuple(
        path.strip("/") for path in candidates if os.path.isdir(os.path.join(root, path))
    )
    folders = [folder for top in test_folders for folder in _folders(root, top)]
    if os.path.isdir(os.path.join(root, "fixtures")):
        folders.append("fixtures")
    suites, scattered = _property_suites(root, folders, test_folders)
    named = [folder for folder in folders if folder.rsplit("/", 1)[-1] in FIXTURE_FOLDERS]
    fixtures = _outermost(
        [
            folder
            for folder in [*named, *_data_only(root, folders, test_folders)]
            if not any(inside(folder, suite) for suite in suites)
        ]
    )
    data = tuple(
        path
        for path in _data_files(root, folders)
        if not any(inside(path, folder) for folder in fixtures)
    )
    # Hypothesis's pytest plugin marks every @given test `hypothesis`.
    selection = ("-m", "hypothesis") if scattered else ()
    return Layout(config, test_folders, suites, fixtures, scattered, selection, data)


def _data_files(root: str, folders: list[str]) -> list[str]:
    """Every data file in `folders` (`waiver.runners.pytest.harness.collected.is_data_file`)."""
    found = []
    for folder in folders:
        for name in sorted(os.listdir(os.path.join(root, folder))):
            path = f"{folder}/{name}"
            full = os.path.join(root, path)
            if os.path.isfile(full) and not os.path.islink(full) and is_data_file(path):
                found.append(path)
    return found


def _data_only(root: str, folders: list[str], test_folders: tuple[str, ...]) -> list[str]:
    """The folders among the tests that hold files but not one Python module, at any
    depth: what the tests read (`tests/manylinux/` of binaries, say), whatever its name."""
    with_files: set[str] = set()
    with_modules: set[str] = set()
    for folder in folders:
        names = [
            name
            for name in os.listdir(os.path.join(root, folder))
            if os.path.isfile(os.path.join(root, folder, name))
        ]
        if names:
            with_files.add(folder)
        if any(name.endswith(".py") for name in names):
            parts = folder.split("/")
            with_modules.update("/".join(parts[:cut]) for cut in range(1, len(parts) + 1))
    return [
        folder
        for folder in folders
        if folder not in test_folders
        and folder not in with_modules
        and any(inside(holder, folder) for holder in with_files)
    ]
