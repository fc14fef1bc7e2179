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
- every module at an import root that the test process would import in place of another
  (one named like a standard-library module, a module pytest imports, or a distribution the
  project declares), and the package metadata and `.pth` files there
  (`waiver.read.harness.shadows`).

A name that resolves to no file in the repository is an installed plugin: not harness.
The tree is listed once (`waiver.read.harness.listing`), and each plugin name is resolved
once, so the work grows with the tree and the number of names, not with their product.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from posixpath import normpath

from waiver.errors import InputError
from waiver.read.bounded import MAX_TOML_BYTES, read_toml
from waiver.read.harness.listing import Listing, folder_of, join, name_of, walk
from waiver.read.harness.named import CONFIG_FILES, PYPROJECT, Harness
from waiver.read.harness.plugin_names import PluginList, module_plugins, star_exports
from waiver.read.harness.plugin_options import (
    MODULE_NAME,
    entry_modules,
    entry_point_modules,
    ini_values,
    metadata_entry_modules,
    plugin_options,
    split_options,
    toml_values,
)
from waiver.read.harness.shadows import (
    METADATA_FILES,
    METADATA_FOLDERS,
    declared_modules,
    is_module_path,
    own_modules,
    shadowed_names,
    top_level_name,
)
from waiver.read.lock.lock_file import ENTRY_POINTS_TABLES, PYTEST_TABLE
from waiver.read.trusted.trees import FILE, LINK, DiskTree, FileTree, check_name

CONFTEST = "conftest.py"
MAX_MODULE_BYTES = 16 << 20
# pytest's default `python_files`: the modules it collects, and reads `pytest_plugins` of.
TEST_MODULES = ("test_*.py", "*_test.py")
SRC_LAYOUT = "src"  # a package under src/ is imported from there once installed
# The TOML configuration files and where pytest's table lies in each.
TOML_TABLES = {
    "pytest.toml": ("pytest",),
    ".pytest.toml": ("pytest",),
    PYPROJECT: ("tool", "pytest"),
}
# How a module is read for `pytest_plugins`: as any module, as pytest reads the list, or
# for what a star import of it binds.
PLAIN, STRICT, STAR = "plain", "strict", "star"
GLOBS = "name this module and those files with `harness:` globs in the policy file"
NOT_LITERAL = (
    "sets pytest_plugins to something that is not a literal list of module names, so the "
    f"gate cannot tell which files it loads: {GLOBS}"
)
DYNAMIC = (
    "runs code at import time that can write its own namespace (globals(), vars(), exec, "
    "eval, setattr, sys.modules, __dict__), so it can set pytest_plugins without naming it "
    f"and the gate cannot tell which files it loads: {GLOBS}"
)


@dataclass
class Resolution:
    """What the resolver has found so far."""

    tree: FileTree
    listing: Listing
    harness: Harness
    files: set[str] = field(default_factory=set)
    roots: set[str] = field(default_factory=lambda: {""})
    names: set[str] = field(default_factory=set)
    unresolved: list[str] = field(default_factory=list)  # a heap of names
    test_modules: list[str] = field(default_factory=list)  # `python_files` patterns
    declared: set[str] = field(default_factory=set)
    own: set[str] = field(default_factory=set)
    # The modules read as pytest reads its list (STRICT) and as a star import binds (STAR).
    read_as: dict[str, set[str]] = field(
        default_factory=lambda: {PLAIN: set(), STRICT: set(), STAR: set()}
    )

    def add(self, path: str) -> None:
        kind = self.listing.kind(path)
        if kind == LINK:
            raise InputError(check_name(path), "a symlink in the test harness")
        if kind != FILE:
            raise InputError(check_name(path), "not a regular file in the test harness")
        self.files.add(check_name(path))

    def add_names(self, names: Iterable[str]) -> None:
        """Plugin names to resolve: each once, so resolution is linear in their number."""
        for name in names:
            if name not in self.names and MODULE_NAME.match(name):
                self.names.add(name)
                heapq.heappush(self.unresolved, name)

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

    def is_test_module(self, path: str) -> bool:
        """Whether pytest would collect `path`, and so read its `pytest_plugins`."""
        name = name_of(path)
        return any(fnmatchcase(name, pattern) for pattern in self.test_modules or TEST_MODULES)

    def read_module(self, path: str, strict: bool = False) -> None:
        """A module that may set `pytest_plugins`: when it does, it is harness. `strict` for
        the modules pytest reads the list of; what they star-import is read for what it
        exports (`star_exports`)."""
        pending = [(path, STRICT if strict else PLAIN)]
        while pending:
            path, how = pending.pop()
            if how != PLAIN and path in self.read_as[how]:
                continue
            self.read_as[how].add(path)
            data = self.tree.read(path, MAX_MODULE_BYTES) or b""
            if how == STAR:
                plugins = star_exports(data, path, self.beside_tests(path))
            else:
                plugins = module_plugins(data, path, how == STRICT)
            if plugins is None:
                continue
            pending += [(star, STAR) for star in self.star_targets(path, plugins)]
            if plugins.sets:
                self.take_plugins(path, plugins)

    def beside_tests(self, path: str) -> bool:
        """Whether `path` lies in a folder that holds a conftest or a test module: a helper
        of the tests rather than the library's source."""
        folder = folder_of(path)
        return any(
            name == CONFTEST or self.is_test_module(join(folder, name))
            for name in self.listing.kinds.get(folder, {})
        )

    def take_plugins(self, path: str, plugins: PluginList) -> None:
        # Only a glob that names this very module lifts the error: a policy that locks
        # some other runner's files has not said which files this list loads.
        if not self.harness.names(path):
            if not plugins.literal:
                raise InputError(check_name(path), NOT_LITERAL)
            if plugins.dynamic:
                raise InputError(check_name(path), DYNAMIC)
        self.add(path)
        self.add_root(folder_of(path))
        self.add_names(plugins.names)

    def star_targets(self, path: str, plugins: PluginList) -> list[str]:
        """The source files of the modules `path` star-imports that are in the tree."""
        found = []
        for level, name in plugins.stars:
            if level == 0:
                files = self.resolve(name)
            else:
                folder = folder_of(path)
                for _ in range(level - 1):
                    folder = folder_of(folder)
                files = self.resolve_in(folder, name.split(".") if name else [])
            found += [file for file in files if file.endswith(".py")]
        return [file for file in found if self.listing.kind(file) == FILE]

    def read_pytest_config(self, path: str) -> None:
        name = name_of(path)
        data = self.tree.read(path, MAX_TOML_BYTES)
        if data is None:
            return
        if name in TOML_TABLES:
            document = read_toml(data, check_name(path))
            values = toml_values(document, TOML_TABLES[name])
            if name == PYPROJECT:
                self.add_names(entry_point_modules(document))
                self.declared |= declared_modules(document)
                self.own |= own_modules(document)
                if not _has_table(document, TOML_TABLES[name]):
                    return  # a pyproject.toml without pytest's table configures nothing
        else:
            values = ini_values(data.decode("utf-8", "replace"))
            self.add_names(entry_modules(line.partition("=")[2] for line in values["pytest11"]))
        self.roots.add(folder_of(path))
        self.add_pythonpath(path, values["pythonpath"])
        self.add_names(plugin_options(split_options(values["addopts"])))
        self.test_modules += split_options(values["python_files"])

    def resolve(self, name: str) -> list[str]:
        """The files Python would import for module `name`, at every import root."""
        parts = name.split(".")
        return [path for root in sorted(self.roots) for path in self.resolve_in(root, parts)]

    def resolve_in(self, folder: str, parts: list[str]) -> list[str]:
        """The files Python would import for the module `parts` below `folder`."""
        found = [] if parts else [*self.listing.module_files(folder, "__init__")]
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
        """What the test process would import at an import root in place of another module,
        and the package metadata there (`waiver.read.harness.shadows`)."""
        names = shadowed_names(self.declared, self.own)
        found = []
        for root in self.roots:
            for name in self.listing.kinds.get(root, {}):
                stem = top_level_name(name)
                if name.endswith(METADATA_FILES) or stem in names or (stem or "").lower() in names:
                    found.append(join(root, name))
            for name in self.listing.children.get(root, []):
                folder = join(root, name)
                if name.endswith(METADATA_FOLDERS):
                    found += self.listing.files_under(folder)
                    self.read_entry_points(join(folder, "entry_points.txt"))
                elif name in names and self.listing.module_files(folder, "__init__"):
                    found += filter(is_module_path, self.listing.files_under(folder))
        return found

    def read_entry_points(self, path: str) -> None:
        if self.listing.kinds.get(folder_of(path), {}).get(name_of(path)) == FILE:
            data = self.tree.read(path, MAX_TOML_BYTES) or b""
            self.add_names(metadata_entry_modules(data.decode("utf-8", "replace")))


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
            found.read_pytest_config(path)
    for path in named:
        if name_of(path) == CONFTEST:
            found.add_root(folder_of(path))
            found.read_module(path, strict=True)
    for path in sorted(listing.paths()):
        if path.endswith(".py") and listing.kind(path) == FILE and may_set_plugins(path):
            found.read_module(path, strict=found.is_test_module(path))
    while True:
        while found.unresolved:
            for path in found.resolve(heapq.heappop(found.unresolved)):
                found.add(path)
                if path.endswith(".py"):
                    found.read_module(path, strict=True)
        for path in found.shadows():  # package metadata there can name more plugins
            found.add(path)
        if not found.unresolved:
            return sorted(found.files)


def harness_pairs(
    tree: FileTree, harness: Harness, may_set_plugins: Callable[[str], bool] = bool
) -> list[tuple[str, str | None]]:
    """The `(path, table)` pairs of the harness in a tree: what `waiver lock` locks and the
    gate holds against the lock. Whole files, and of a `pyproject.toml` only pytest's two
    tables (unless a policy glob names it whole); the property-suite modules too, and the
    files of the harness's runner (`Harness.runner_files`) and the tables the policy names
    (`Harness.tables`)."""
    pairs: list[tuple[str, str | None]] = []
    for path in resolve_harness(tree, harness, may_set_plugins):
        if name_of(path) == PYPROJECT:
            pairs += [(path, PYTEST_TABLE), *((path, table) for table in ENTRY_POINTS_TABLES)]
            if not harness.names(path):
                continue
        pairs.append((path, None))
    if harness.runner_files is not None:
        pairs += harness.runner_files(tree)
    pairs += harness.tables
    return list(dict.fromkeys([*pairs, *((module, None) for module in sorted(harness.modules))]))


def harness_in_tree(
    root: str, harness: Harness, skipped: Callable[[str], bool]
) -> list[tuple[str, str | None]]:
    """The `(path, table)` pairs of the harness in the work tree under `root`, but in the
    folders `skipped` names (`waiver.read.trusted.ignored`)."""
    return harness_pairs(DiskTree(root, skipped), harness)
