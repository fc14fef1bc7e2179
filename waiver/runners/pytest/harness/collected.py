"""Which modules pytest collects as test modules, by the trusted revision's configuration.

A module is test code when pytest loads it as a `conftest.py` or collects it as a test
module: its name matches the `python_files` of a configuration file above it (by default
`test_*.py` and `*_test.py`), and it lies under one of that file's `testpaths` when it names
any. Where a module lies, or what its folder is called, says nothing: a `testing/speedups.py`
that the code under test imports is not collected, and is read like any other source.

Each folder's configuration file is the first pytest would take there (`pytest.toml`,
`.pytest.toml`, `pytest.ini`, `.pytest.ini`, a `pyproject.toml` with pytest's table, a
`tox.ini` with `[pytest]`, a `setup.cfg` with `[tool:pytest]`); without one at the root,
pytest's defaults hold there. A module is collected when any of them collects it, since the
replays may run pytest from any of those folders.
"""

from __future__ import annotations

import configparser
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from waiver.errors import InputError
from waiver.read.harness.listing import Listing, name_of
from waiver.read.trusted.trees import FileTree
from waiver.read.untrusted.bounded import read_toml
from waiver.runners.pytest.harness.plugin_options import split_options

CONFTEST = "conftest.py"
PYPROJECT = "pyproject.toml"
MAX_CONFIG_BYTES = 1 << 20
# pytest's default `python_files`: the modules it collects, and reads `pytest_plugins` of.
TEST_MODULES = ("test_*.py", "*_test.py")
# Each name pytest reads its configuration from, in the order it takes them in one folder,
# with the table or section that makes the file pytest's (None: the whole file is).
CONFIGS: tuple[tuple[str, tuple[str, ...] | None], ...] = (
    ("pytest.toml", ("pytest",)),
    (".pytest.toml", ("pytest",)),
    ("pytest.ini", None),
    (".pytest.ini", None),
    (PYPROJECT, ("tool", "pytest")),
    ("tox.ini", ("pytest",)),
    ("setup.cfg", ("tool:pytest",)),
)
# The files that are pytest's configuration whatever they hold; a `pyproject.toml` is
# when it holds pytest's table.
CONFIG_FILES = frozenset(name for name, _ in CONFIGS) - {PYPROJECT}


@dataclass(frozen=True)
class Config:
    """One configuration file's say: the folder it lies in, `python_files`, `testpaths`."""

    folder: str
    python_files: tuple[str, ...] = TEST_MODULES
    testpaths: tuple[str, ...] = ()

    def collects(self, path: str) -> bool:
        inside = path.startswith(self.folder + "/") if self.folder else True
        if not inside:
            return False
        relative = path[len(self.folder) + 1 :] if self.folder else path
        if self.testpaths and not any(_under(relative, paths) for paths in self.testpaths):
            return False
        return any(_matches(path, pattern) for pattern in self.python_files)


def _under(path: str, testpath: str) -> bool:
    """Whether `path` is `testpath` or lies below it (a glob, as pytest expands them)."""
    pattern = testpath.strip("/").removeprefix("./")
    if pattern in ("", "."):
        return True
    parts = path.split("/")
    return any(fnmatchcase("/".join(parts[:depth]), pattern) for depth in range(1, len(parts) + 1))


def _matches(path: str, pattern: str) -> bool:
    """pytest's `fnmatch_ex`: a pattern with no `/` matches the name, else the path's end."""
    if "/" not in pattern:
        return fnmatchcase(name_of(path), pattern)
    return fnmatchcase("/" + path, "*/" + pattern.lstrip("/"))


@dataclass(frozen=True)
class Collection:
    """Every configuration of a tree; what pytest collects or loads as a conftest."""

    configs: tuple[Config, ...]

    def collects(self, path: str) -> bool:
        """Whether pytest collects `path` as a test module."""
        return any(config.collects(path) for config in self.configs)

    def is_test_code(self, path: str) -> bool:
        return name_of(path) == CONFTEST or self.collects(path)


def _words(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(split_options([value]))
    if isinstance(value, list):
        return tuple(word for item in value if isinstance(item, str) for word in item.split())
    return ()


def _toml_table(data: bytes, table: tuple[str, ...]) -> dict[str, object] | None:
    try:
        value: object = read_toml(data, "pyproject.toml")
    except InputError:
        return None
    for key in table:
        value = value.get(key) if isinstance(value, dict) else None
    if not isinstance(value, dict):
        return None
    options = value.get("ini_options")
    return {**value, **options} if isinstance(options, dict) else value


def _ini_table(data: bytes, sections: tuple[str, ...] | None) -> dict[str, object] | None:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(data.decode("utf-8", "replace"))
    except configparser.Error:
        return None
    for section in sections or ("pytest",):
        if parser.has_section(section):
            return dict(parser.items(section))
    return {} if sections is None else None


def _config(tree: FileTree, folder: str) -> Config | None:
    """The configuration pytest takes in `folder`."""
    for name, table in CONFIGS:
        path = f"{folder}/{name}" if folder else name
        try:
            data = tree.read(path, MAX_CONFIG_BYTES)
        except InputError:  # no regular file, or too large: pytest's own reading decides
            continue
        if data is None:
            continue
        if name.endswith(".toml"):
            found = _toml_table(data, table or ())
        else:
            found = _ini_table(data, table)
        if found is not None:
            files = _words(found.get("python_files"))
            return Config(folder, files or TEST_MODULES, _words(found.get("testpaths")))
    return None


def folders_above(paths: Iterable[str]) -> set[str]:
    """Every folder that holds one of `paths` at any depth, the root (`""`) too: where a
    configuration that applies to them can lie."""
    found = {""}
    for path in paths:
        parts = path.split("/")[:-1]
        found.update("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
    return found


def collection(tree: FileTree, folders: Iterable[str]) -> Collection:
    """The configurations of `tree` in `folders`: a configuration applies only below its
    own folder, so the folders above the paths in question are enough (`folders_above`)."""
    configs = []
    for folder in sorted(set(folders)):
        found = _config(tree, folder)
        if found is not None:
            configs.append(found)
    if not any(config.folder == "" for config in configs):
        configs.append(Config(""))
    return Collection(tuple(configs))


# What is no data beside the tests: Python's own files, and documentation and git's.
NOT_DATA_SUFFIXES = (".py", ".pyi", ".pyc", ".pyo", ".pyd", ".so", ".md", ".rst")
NOT_DATA_NAMES = frozenset({".gitignore", ".gitattributes", ".gitkeep"})


def is_data_file(path: str) -> bool:
    """A file the tests may read as data: not a Python module, bytecode or documentation,
    and not in a `__pycache__` folder."""
    name = name_of(path)
    return (
        "__pycache__" not in path.split("/")
        and not name.endswith(NOT_DATA_SUFFIXES)
        and name not in NOT_DATA_NAMES
    )


@dataclass(frozen=True)
class SuiteFolders:
    """The folders that hold the tests: each configuration's `testpaths` (globs, from its
    folder), and where a configuration names none, the top folder below it of each test
    module it collects (`tests/`, whatever its name)."""

    testpaths: tuple[str, ...]
    tops: frozenset[str]

    def holds(self, path: str) -> bool:
        if any(path.startswith(top + "/") for top in self.tops):
            return True
        return any(_under(path, pattern) for pattern in self.testpaths)


def suite_folders(found: Collection, listing: Listing) -> SuiteFolders:
    testpaths = [
        "/".join(part for part in (config.folder, path.strip("/").removeprefix("./")) if part)
        for config in found.configs
        for path in config.testpaths
    ]
    open_configs = [config for config in found.configs if not config.testpaths]
    tops = set()
    for path in listing.paths():
        for config in open_configs:
            relative = path[len(config.folder) + 1 :] if config.folder else path
            if "/" in relative and config.collects(path):
                tops.add("/".join(part for part in (config.folder, relative.split("/")[0]) if part))
    return SuiteFolders(tuple(testpaths), frozenset(tops))
