"""Everything pytest will load as configuration or as a plugin, worked out from files alone.

No code of the change runs: the configuration files are read as text or TOML, the
modules that name plugins are parsed with `ast`, and plugin names are resolved to files
the way Python's import system would find them. What is found is harness:

- every configuration file pytest reads, wherever it lies, and in `pyproject.toml` the
  `[tool.pytest]` and `[project.entry-points.pytest11]` tables;
- every `conftest.py`, and every other module that sets `pytest_plugins`;
- every plugin module those name (`-p NAME` in `addopts`, `pytest_plugins`, pytest11
  entry points), and the packages on its way, at every import root: the repository
  root, `src`, each configuration file's folder and its `pythonpath`, and the folders
  pytest puts on `sys.path` for a conftest or test module;
- every module at an import root that Python would import instead of pytest or before
  it (`pytest.py`, `_pytest/`, `pluggy/`, `py.py`, `sitecustomize.py`,
  `usercustomize.py`, any `*.pth`).

A name that resolves to no file in the repository is an installed plugin: not harness.
A virtualenv is skipped only when it is one (a regular-file `pyvenv.cfg` beside an
interpreter and a `site-packages`, and nothing else): a planted marker hides nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from posixpath import normpath

from waiver.errors import InputError
from waiver.read.file_tree import (
    FILE,
    FOLDER,
    LINK,
    Entry,
    FileTree,
    WorkTree,
    check_name,
)
from waiver.read.harness import CONFIG_FILES, PYPROJECT, Harness
from waiver.read.lock import ENTRY_POINTS_TABLE, MAX_TOML_BYTES, PYTEST_TABLE, read_toml
from waiver.read.plugin_names import (
    MODULE_NAME,
    entry_modules,
    entry_point_modules,
    ini_values,
    module_plugins,
    plugin_options,
    split_options,
    toml_values,
)

CONFTEST = "conftest.py"
MAX_MODULE_BYTES = 16 << 20
# Modules Python would import in pytest's place, or at start-up before it.
SHADOW_STEMS = ("pytest", "_pytest", "pluggy", "py", "sitecustomize", "usercustomize")
# What `python -m venv` (or virtualenv) leaves in a virtualenv's folder, and nothing more.
VIRTUALENV_LAYOUT = frozenset(
    {"pyvenv.cfg", ".gitignore", "bin", "Scripts", "include", "Include", "lib", "Lib", "lib64"}
    | {"share", "etc", "CACHEDIR.TAG"}
)
INTERPRETER_FOLDER = re.compile(r"python3\.\d+\Z")
SKIPPED_FOLDERS = frozenset({".git"})
SRC_LAYOUT = "src"  # a package under src/ is imported from there once installed
# The TOML configuration files and where pytest's table lies in each.
TOML_TABLES = {
    "pytest.toml": ("pytest",),
    ".pytest.toml": ("pytest",),
    PYPROJECT: ("tool", "pytest"),
}
NOT_LITERAL = (
    "sets pytest_plugins to something that is not a literal list of module names, so the "
    "gate cannot tell which files it loads: name this module and those files with "
    "`harness:` globs in the policy file"
)


def join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def folder_of(path: str) -> str:
    return path.rpartition("/")[0]


def name_of(path: str) -> str:
    return path.rpartition("/")[2]


@dataclass
class Listing:
    """Every non-folder entry of the tree by folder, and every folder, as the walk found them."""

    kinds: dict[str, dict[str, str]] = field(default_factory=dict)
    folders: set[str] = field(default_factory=lambda: {""})

    def module_files(self, folder: str, stem: str) -> list[str]:
        """The files of `folder` that Python would import as module `stem`."""
        names = self.kinds.get(folder, {})
        return [join(folder, name) for name in names if is_module_file(name, stem)]

    def paths(self) -> Iterator[str]:
        for folder, names in self.kinds.items():
            for name in names:
                yield join(folder, name)

    def kind(self, path: str) -> str:
        """The kind of a path the walk found."""
        return self.kinds[folder_of(path)][name_of(path)]


def is_module_file(name: str, stem: str) -> bool:
    """Whether the file `name` is module `stem`: source, bytecode or an extension module."""
    if not name.startswith(stem + "."):
        return False
    suffix = name[len(stem) :]
    return suffix in (".py", ".pyc", ".pyw") or suffix.endswith((".so", ".pyd"))


def is_virtualenv(tree: FileTree, folder: str, entries: list[Entry]) -> bool:
    """A real virtualenv's folder: pytest collects nothing in it, so neither does the scan."""
    kinds = {entry.name: entry.kind for entry in entries}
    if kinds.get("pyvenv.cfg") != FILE or not kinds.keys() <= VIRTUALENV_LAYOUT:
        return False
    names = {entry.name for entry in tree.entries(join(folder, "bin"))}
    windows = {entry.name for entry in tree.entries(join(folder, "Scripts"))}
    if "python" in names:
        return any(
            INTERPRETER_FOLDER.match(entry.name)
            and _has_folder(tree, join(folder, f"lib/{entry.name}"), "site-packages")
            for entry in tree.entries(join(folder, "lib"))
        )
    return "python.exe" in windows and _has_folder(tree, join(folder, "Lib"), "site-packages")


def _has_folder(tree: FileTree, folder: str, name: str) -> bool:
    return any(entry.name == name and entry.kind == FOLDER for entry in tree.entries(folder))


def walk(tree: FileTree) -> Listing:
    """Every entry of the tree, but `.git` and real virtualenvs."""
    listing = Listing()
    pending = [""]
    while pending:
        folder = pending.pop()
        entries = tree.entries(folder)
        if folder and is_virtualenv(tree, folder, entries):
            entries = []  # pytest collects nothing in it, and neither does the scan
        names = listing.kinds.setdefault(folder, {})
        for entry in entries:
            path = join(folder, entry.name)
            if entry.kind != FOLDER:
                names[entry.name] = entry.kind
            elif entry.name not in SKIPPED_FOLDERS:
                listing.folders.add(path)
                pending.append(path)
    return listing


@dataclass
class Resolution:
    """What the resolver has found so far."""

    tree: FileTree
    listing: Listing
    harness: Harness
    files: set[str] = field(default_factory=set)
    roots: set[str] = field(default_factory=lambda: {""})
    names: set[str] = field(default_factory=set)

    def add(self, path: str) -> None:
        kind = self.listing.kind(path)
        if kind == LINK:
            raise InputError(check_name(path), "a symlink in the test harness")
        if kind != FILE:
            raise InputError(check_name(path), "not a regular file in the test harness")
        self.files.add(check_name(path))

    def add_root(self, folder: str) -> None:
        """A folder on `sys.path`, and the folder pytest inserts for a module in it: the
        first one up that is not a package."""
        self.roots.add(folder)
        while folder and "__init__.py" in self.listing.kinds[folder]:
            folder = folder_of(folder)
        self.roots.add(folder)

    def add_pythonpath(self, config: str, entries: list[str]) -> None:
        """The `pythonpath` folders of a configuration file, relative to its folder (one
        outside the repository holds nothing the walk found)."""
        for entry in (word for value in entries for word in value.split()):
            self.roots.add(normpath(join(folder_of(config), entry)))

    def read_module(self, path: str) -> None:
        """A module that may set `pytest_plugins`: when it does, it is harness."""
        plugins = module_plugins(self.tree.read(path, MAX_MODULE_BYTES) or b"", path)
        if plugins is None:
            return
        # Only a glob that names this very module lifts the error: a policy that locks
        # some other runner's files has not said which files this list loads.
        if not plugins.literal and not self.harness.names(path):
            raise InputError(check_name(path), NOT_LITERAL)
        self.add(path)
        self.add_root(folder_of(path))
        self.names.update(name for name in plugins.names if MODULE_NAME.match(name))

    def read_config(self, path: str) -> None:
        name = name_of(path)
        data = self.tree.read(path, MAX_TOML_BYTES)
        if data is None:
            return
        if name in TOML_TABLES:
            document = read_toml(data, check_name(path))
            values = toml_values(document, TOML_TABLES[name])
            if name == PYPROJECT:
                self.names.update(entry_point_modules(document))
                if not _has_table(document, TOML_TABLES[name]):
                    return  # a pyproject.toml without pytest's table configures nothing
        else:
            values = ini_values(data.decode("utf-8", "replace"))
            self.names.update(entry_modules(line.partition("=")[2] for line in values["pytest11"]))
        self.roots.add(folder_of(path))
        self.add_pythonpath(path, values["pythonpath"])
        self.names.update(plugin_options(split_options(values["addopts"])))

    def resolve(self, name: str) -> list[str]:
        """The files Python would import for module `name`, at every import root."""
        parts = name.split(".")
        found = []
        for root in sorted(self.roots):
            folder = root
            for depth, part in enumerate(parts):
                if depth == len(parts) - 1:
                    found += self.listing.module_files(folder, part)
                package = join(folder, part)
                if package not in self.listing.folders:
                    break
                found += self.listing.module_files(package, "__init__")
                folder = package
        return found

    def shadows(self) -> list[str]:
        """The modules at an import root that would be imported in pytest's place."""
        found = []
        for root in self.roots:
            for name in self.listing.kinds.get(root, {}):
                if name.endswith(".pth") or any(is_module_file(name, s) for s in SHADOW_STEMS):
                    found.append(join(root, name))
            for stem in SHADOW_STEMS:
                found += self.listing.module_files(join(root, stem), "__init__")
        return found


def _has_table(document: dict[str, object], table: tuple[str, ...]) -> bool:
    value: object = document
    for key in table:
        value = value.get(key) if isinstance(value, dict) else None
    return value is not None


def resolve_harness(
    tree: FileTree, harness: Harness, may_set_plugins: Callable[[str], bool] = bool
) -> list[str]:
    """Every harness file of the tree, sorted (whole files; a `pyproject.toml` is listed
    when pytest would read it, whatever the tables it holds).

    `may_set_plugins` chooses which other `.py` files are read for `pytest_plugins`:
    all of them by default.
    """
    listing = walk(tree)
    found = Resolution(tree, listing, harness)
    if SRC_LAYOUT in listing.folders:
        found.roots.add(SRC_LAYOUT)
    named = sorted(path for path in listing.paths() if harness.covers(path))
    for path in named:
        found.add(path)
    for path in named:
        if name_of(path) in CONFIG_FILES or name_of(path) == PYPROJECT:
            found.read_config(path)
    for path in named:
        if name_of(path) == CONFTEST:
            found.add_root(folder_of(path))
            found.read_module(path)
    for path in sorted(listing.paths()):
        if path.endswith(".py") and listing.kind(path) == FILE and may_set_plugins(path):
            found.read_module(path)
    resolved: set[str] = set()
    while found.names - resolved:
        name = min(found.names - resolved)
        resolved.add(name)
        for path in found.resolve(name):
            found.add(path)
            if path.endswith(".py"):
                found.read_module(path)
    for path in found.shadows():
        found.add(path)
    return sorted(found.files)


def harness_pairs(
    tree: FileTree, harness: Harness, may_set_plugins: Callable[[str], bool] = bool
) -> list[tuple[str, str | None]]:
    """The `(path, table)` pairs of the harness in a tree: what `waiver lock` locks and the
    gate holds against the lock. Whole files, and of a `pyproject.toml` only pytest's two
    tables (unless a policy glob names it whole); the property-suite modules too."""
    pairs: list[tuple[str, str | None]] = []
    for path in resolve_harness(tree, harness, may_set_plugins):
        if name_of(path) == PYPROJECT:
            pairs += [(path, PYTEST_TABLE), (path, ENTRY_POINTS_TABLE)]
            if not harness.names(path):
                continue
        pairs.append((path, None))
    return list(dict.fromkeys([*pairs, *((module, None) for module in sorted(harness.modules))]))


def harness_in_tree(root: str, harness: Harness) -> list[tuple[str, str | None]]:
    """The `(path, table)` pairs of the harness in the work tree under `root`."""
    return harness_pairs(WorkTree(root), harness)
