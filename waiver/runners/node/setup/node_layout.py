"""A JavaScript project's test layout, found from its files: what `waiver init` builds on for
jest, vitest and mocha.

Nothing here runs the project's code. The runner is the one `package.json` names: in its
`test` script, else by a configuration file (`jest.config.*`, `vitest.config.*`,
`.mocharc.*`, the `jest` or `mocha` key), else among its dependencies. The property suite
is every folder named `properties` or `property` that holds a test module; without one,
the test modules named as properties (`add.property.test.js`); without those, the test
modules that load fast-check. Fixture folders are found by name (`fixtures`, `__fixtures__`,
`__snapshots__`, …) anywhere outside the installs, and the data files beside the tests as
every file in a test folder (`test/`, `__tests__/`, …) that is not code, documentation or
git's.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from fnmatch import fnmatchcase

from waiver.errors import InputError, UsageError
from waiver.init.layout import (
    FIXTURE_FOLDERS,
    PROPERTY_FOLDERS,
    SKIPPED,
    Layout,
    inside,
)
from waiver.init.layout import TEST_FOLDERS as PYTEST_FOLDERS
from waiver.read.lock.lock_file import PACKAGE_JSON
from waiver.read.trusted.ignored import ignored_folders
from waiver.read.untrusted.bounded import read_json
from waiver.runners import NODE_RUNNERS
from waiver.runners.node.js_reach import TEST_FOLDERS
from waiver.runners.node.node_harness import CODE_SUFFIXES, SHARED_CONFIGS
from waiver.runners.node.syntax import loads, parse
from waiver.runners.pytest.setup.pytest_layout import pytest_config

# The configuration files that name a runner, at the root.
RUNNER_CONFIGS = {name: runner.harness_files.names_runner for name, runner in NODE_RUNNERS.items()}
JS_FIXTURE_FOLDERS = FIXTURE_FOLDERS | {"__fixtures__", "__snapshots__", "__data__"}
# A test module by its name (`calc.test.js`, `calc.spec.ts`), and one named as a property.
TEST_NAME = re.compile(r"[.](test|spec)[.][^.]+$")
PROPERTY_NAME = re.compile(r"[.](property|properties|prop|props)[.](test|spec)[.][^.]+$")
FAST_CHECK = ("fast-check", "@fast-check/")
NOT_DATA_SUFFIXES = (*CODE_SUFFIXES, ".md", ".rst")
# Configuration in a test folder is harness, not data (`test/tsconfig.json`).
NOT_DATA_NAMES = (PACKAGE_JSON, *SHARED_CONFIGS, *(g for gs in RUNNER_CONFIGS.values() for g in gs))
# What init reads of package.json or of a test file to find the runner and the property
# suite: a file larger than this is not looked into.
MAX_INIT_READ_BYTES = 1 << 20
NPM_LOCKFILES = ("package-lock.json", "npm-shrinkwrap.json")
# The install step of each package manager's lockfile: what it locks, never a newer
# resolution. pnpm, and yarn 2 and later (a `.yarnrc.yml` beside the lockfile), come
# through corepack, which Node ships up to 24; yarn 1 is on GitHub's runners.
PNPM_INSTALL = "corepack enable && pnpm install --frozen-lockfile"
YARN_INSTALL = "yarn install --frozen-lockfile"
YARN_BERRY_INSTALL = "corepack enable && yarn install --immutable"
# bun's lockfiles, which init writes no install step for.
BUN_LOCKFILES = ("bun.lock", "bun.lockb")


@dataclass(frozen=True)
class NodeLayout:
    """Where a JavaScript project keeps its tests; paths from the root, `/`-separated."""

    runner: str
    property_folders: tuple[str, ...]  # folders of their own
    property_files: tuple[str, ...]  # modules by name or by their fast-check import
    fixtures: Layout  # the fixture folders and data files, as pytest's layout holds them
    lockfile: str | None  # npm's lockfile, whose packages `npm ci` installs

    @property
    def property_paths(self) -> tuple[str, ...]:
        return (*self.property_folders, *self.property_files)


def read_package(root: str) -> dict[str, object] | None:
    """The root's `package.json` as a JSON object; None when there is none."""
    path = os.path.join(root, PACKAGE_JSON)
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as stream:
        document = read_json(stream.read(MAX_INIT_READ_BYTES), PACKAGE_JSON)
    if not isinstance(document, dict):
        raise InputError(PACKAGE_JSON, "not a JSON object")
    return document


def _script_runners(package: dict[str, object]) -> list[str]:
    scripts = package.get("scripts")
    script = scripts.get("test") if isinstance(scripts, dict) else None
    if not isinstance(script, str):
        return []
    words = {word.rsplit("/", 1)[-1] for word in re.split(r"[\s;&|()]+", script)}
    return [name for name in NODE_RUNNERS if name in words]


def _config_runners(root: str, package: dict[str, object]) -> list[str]:
    names = os.listdir(root)
    return [
        runner
        for runner, globs in RUNNER_CONFIGS.items()
        if runner in package or any(fnmatchcase(n, g) for n in names for g in globs)
    ]


def _dependency_runners(package: dict[str, object]) -> list[str]:
    found: set[str] = set()
    for key in ("devDependencies", "dependencies"):
        table = package.get(key)
        if isinstance(table, dict):
            found |= {name for name in NODE_RUNNERS if name in table}
    return [name for name in NODE_RUNNERS if name in found]


def detect_runner(root: str, package: dict[str, object]) -> str | None:
    """The runner `package.json` and the configuration files name; None when they name
    none. Where one kind of evidence names two, the next cannot settle it: an error that
    asks for --runner."""
    for where, found in (
        ("the `test` script of package.json names", _script_runners(package)),
        ("the configuration files name", _config_runners(root, package)),
        ("the dependencies of package.json name", _dependency_runners(package)),
    ):
        if len(found) == 1:
            return found[0]
        if found:
            raise UsageError(
                f"{where} {' and '.join(found)}: name the runner the gate replays with --runner"
            )
    return None


def has_pytest_suite(root: str) -> bool:
    """Whether the repository has a pytest configuration or a Python test module in a test
    folder: then init sets pytest up, as it did before it knew other runners."""
    if pytest_config(root)[0] is not None:
        return True
    for folder in PYTEST_FOLDERS:
        for _, _, names in os.walk(os.path.join(root, folder)):
            if any(
                n.startswith("test_") or n.endswith("_test.py") for n in names if n.endswith(".py")
            ):
                return True
    return False


def choose_runner(root: str, flag: str | None) -> str:
    """The runner init sets up: --runner's, else pytest for a Python test suite, else the
    one `package.json` names; pytest without a `package.json`."""
    if flag is not None:
        return flag
    if has_pytest_suite(root):
        return "pytest"
    package = read_package(root)
    if package is None:
        return "pytest"
    found = detect_runner(root, package)
    if found is None:
        raise UsageError(
            "package.json names no test runner (jest, vitest or mocha in its `test` script, "
            "a configuration file or its dependencies), and there is no pytest suite: name "
            "the runner with --runner"
        )
    return found


def _walk(root: str) -> list[tuple[str, list[str]]]:
    """Every folder of the project with its files, outside the installs, hidden folders and
    the folders git ignores; symlinked folders are not entered."""
    ignored = ignored_folders(root, None)
    found = []
    for current, folders, files in os.walk(root):
        relative = os.path.relpath(current, root).replace(os.sep, "/")
        folders[:] = sorted(
            name
            for name in folders
            if name not in SKIPPED
            and not name.startswith(".")
            and not os.path.islink(os.path.join(current, name))
            and not ignored(name if relative == "." else f"{relative}/{name}")
        )
        regular = [n for n in files if not os.path.islink(os.path.join(current, n))]
        found.append(("" if relative == "." else relative, sorted(regular)))
    return found


def _path(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def is_test_module(path: str) -> bool:
    """A test module by the runners' default names: `*.test.*`, `*.spec.*`, or a module in
    a test folder (`test/`, `__tests__/`, …)."""
    parts = path.split("/")
    if not parts[-1].endswith(CODE_SUFFIXES):
        return False
    return TEST_NAME.search(parts[-1]) is not None or bool(TEST_FOLDERS & set(parts[:-1]))


def _loads_fast_check(root: str, path: str) -> bool:
    with open(os.path.join(root, path), "rb") as stream:
        data = stream.read(MAX_INIT_READ_BYTES)
    return any(
        name is not None and (name == FAST_CHECK[0] or name.startswith(FAST_CHECK[1]))
        for name, _ in loads(parse(data, path))
    )


def _outermost(folders: list[str]) -> tuple[str, ...]:
    kept: list[str] = []
    for folder in sorted(set(folders)):
        if not any(inside(folder, outer) for outer in kept):
            kept.append(folder)
    return tuple(kept)


def _property_suite(
    root: str, modules: list[str], folders: list[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The property folders, else the property modules by name, else by fast-check."""
    named = [
        folder
        for folder in _outermost([f for f in folders if f.rsplit("/", 1)[-1] in PROPERTY_FOLDERS])
        if any(inside(module, folder) for module in modules)
    ]
    if named:
        return tuple(named), ()
    by_name = [module for module in modules if PROPERTY_NAME.search(module)]
    if by_name:
        return (), tuple(by_name)
    return (), tuple(module for module in modules if _loads_fast_check(root, module))


def _is_test_data(path: str) -> bool:
    """A file in a test folder that the tests may read: not code, documentation, a dotfile
    (git's, the tools') or configuration."""
    parts = path.split("/")
    name = parts[-1]
    return (
        bool(TEST_FOLDERS & set(parts[:-1]))
        and not name.startswith(".")
        and not name.endswith(NOT_DATA_SUFFIXES)
        and not any(fnmatchcase(name, glob) for glob in NOT_DATA_NAMES)
    )


def find_node_layout(root: str, runner: str) -> NodeLayout:
    """The layout of the JavaScript project at `root`, run by `runner`."""
    walked = _walk(root)
    folders = [folder for folder, _ in walked if folder]
    files = [_path(folder, name) for folder, names in walked for name in names]
    modules = [path for path in files if is_test_module(path)]
    suites, suite_files = _property_suite(root, modules, folders)
    fixtures = _outermost(
        [
            folder
            for folder in folders
            if folder.rsplit("/", 1)[-1] in JS_FIXTURE_FOLDERS
            and not any(inside(folder, suite) for suite in suites)
        ]
    )
    data = tuple(
        path
        for path in files
        if _is_test_data(path) and not any(inside(path, folder) for folder in (*fixtures, *suites))
    )
    lockfile = next((n for n in NPM_LOCKFILES if os.path.isfile(os.path.join(root, n))), None)
    return NodeLayout(
        runner,
        suites,
        suite_files,
        Layout(None, (), suites, fixtures, data_files=data),
        lockfile,
    )


def install_step(root: str) -> str | None:
    """The install step for the package manager whose lockfile is at the root: `npm ci`
    for npm's (first, where two managers' lockfiles lie side by side), pnpm's and yarn's
    frozen installs, `npm install` with no lockfile; None for bun's."""

    def there(name: str) -> bool:
        return os.path.isfile(os.path.join(root, name))

    if any(map(there, NPM_LOCKFILES)):
        return "npm ci"
    if there("pnpm-lock.yaml"):
        return PNPM_INSTALL
    if there("yarn.lock"):
        return YARN_BERRY_INSTALL if there(".yarnrc.yml") else YARN_INSTALL
    if any(map(there, BUN_LOCKFILES)):
        return None
    return "npm install"
