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
  (`waiver.runners.pytest.harness.shadows`).

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

from waiver.errors import InputError, InputErrors
from waiver.read.harness.listing import Listing, folder_of, join, name_of, walk
from waiver.read.harness.named import MAX_MODULE_BYTES, SUITE_WHY, Harness, Why
from waiver.read.trusted.trees import FILE, LINK, FileTree, check_name
from waiver.read.untrusted.bounded import MAX_TOML_BYTES, read_toml
from waiver.runners.pytest.harness.collected import CONFIG_FILES, CONFTEST, PYPROJECT, TEST_MODULES
from waiver.runners.pytest.harness.plugin_names import PluginList, module_plugins, star_exports
from waiver.runners.pytest.harness.plugin_options import (
    MODULE_NAME,
    entry_modules,
    entry_point_modules,
    ini_values,
    metadata_entry_modules,
    plugin_options,
    split_options,
    toml_values,
)
from waiver.runners.pytest.harness.shadows import (
    METADATA_FILES,
    METADATA_FOLDERS,
    declared_modules,
    is_module_path,
    own_modules,
    shadowed_names,
    top_level_name,
)

SRC_LAYOUT = "src"  # a package under src/ is imported from there once installed
# The TOML configuration files and where pytest's table lies in each.
TOML_TABLES = {
    "pytest.toml": ("pytest",),
    ".pytest.toml": ("pytest",),
    PYPROJECT: ("tool", "pytest"),
}
# How a module is read for `pytest_plugins`: as any module; as a test module, whose literal
# list alone is read (it stays a test: the verdict replays run the base's test tree, so what
# a test module does to its own namespace decides nothing there); as a conftest or plugin
# module, whose list is the harness's; and for what a star import of it binds, from a
# conftest or plugin (STAR) or from a test module (TEST_STAR).
PLAIN, TEST, STRICT, STAR, TEST_STAR = "plain", "test", "strict", "star", "test-star"
GLOBS = "name this module and those files with `harness:` globs in the policy file"
NOT_LITERAL = (
    "sets pytest_plugins to something that is not a literal list of module names, so the "
    f"gate cannot tell which files it loads: {GLOBS}"
)
DYNAMIC = (
    "runs code at import time that writes its own namespace without naming the key (line "
    "{line}: globals(), vars(), exec, eval, setattr with a computed name, sys.modules, "
    "__dict__), so it can set pytest_plugins without naming it and the gate cannot tell "
    "which files it loads: {remedy}"
)
# Why a file is harness, as init and `waiver lock` say it.
CONFTEST_WHY = Why("a conftest.py", obvious=True)
CONFIG_WHY = Why("pytest's configuration", obvious=True)
GLOB_WHY = Why("named by a `harness:` glob of the policy file")
SETS_WHY = Why("sets pytest_plugins")
METADATA_WHY = Why("package metadata on sys.path, whose pytest11 entry points pytest loads")


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
    # The modules read each way but PLAIN, so that none is read twice the same way.
    read_as: dict[str, set[str]] = field(
        default_factory=lambda: {TEST: set(), STRICT: set(), STAR: set(), TEST_STAR: set()}
    )
    # Why each file is harness (the first reason found), and who names each plugin name.
    why: dict[str, Why] = field(default_factory=dict)
    named_by: dict[str, str] = field(default_factory=dict)
    # What cannot be resolved, every one of it, for one error that names them all.
    errors: list[InputError] = field(default_factory=list)

    def add(self, path: str, why: Why) -> None:
        kind = self.listing.kind(path)
        if kind == LINK:
            raise InputError(check_name(path), "a symlink in the test harness")
        if kind != FILE:
            raise InputError(check_name(path), "not a regular file in the test harness")
        self.files.add(check_name(path))
        self.why.setdefault(path, why)

    def add_names(self, names: Iterable[str], by: str) -> None:
        """Plugin names to resolve, named `by` the words given: each once, so resolution
        is linear in their number."""
        for name in names:
            if name not in self.names and MODULE_NAME.match(name):
                self.names.add(name)
                self.named_by[name] = by
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

    def read_module(self, path: str, how: str = PLAIN) -> None:
        """A module that may set `pytest_plugins` (`how` it is read: PLAIN, TEST or STRICT);
        what it star-imports is read for what it exports (`star_exports`). What cannot be
        read is kept in `errors`."""
        pending = [(path, how)]
        while pending:
            path, how = pending.pop()
            if how != PLAIN and path in self.read_as[how]:
                continue
            if how != PLAIN:
                self.read_as[how].add(path)
            data = self.tree.read(path, MAX_MODULE_BYTES) or b""
            try:
                if how in (STAR, TEST_STAR):
                    plugins = star_exports(data, path, how == STAR and self.beside_tests(path))
                else:
                    plugins = module_plugins(data, path, how == STRICT, stars=how != PLAIN)
            except InputError as error:
                self.errors.append(error)
                continue
            if plugins is None:
                continue
            star = TEST_STAR if how in (TEST, TEST_STAR) else STAR
            pending += [(target, star) for target in self.star_targets(path, plugins)]
            if not plugins.sets:
                continue
            if how in (TEST, TEST_STAR):
                # A test module stays a test: its literal list names plugins, no more.
                if plugins.literal:
                    self.add_names(plugins.names, f"pytest_plugins of {path}")
            else:
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
                self.errors.append(InputError(check_name(path), NOT_LITERAL))
                return
            if plugins.dynamic:
                problem = DYNAMIC.format(line=plugins.dynamic, remedy=GLOBS)
                self.errors.append(InputError(check_name(path), problem))
                return
        self.add(path, SETS_WHY)
        self.add_root(folder_of(path))
        self.add_names(plugins.names, f"pytest_plugins of {path}")

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
                self.add_names(entry_point_modules(document), f"a pytest11 entry point of {path}")
                self.declared |= declared_modules(document)
                self.own |= own_modules(document)
                if not _has_table(document, TOML_TABLES[name]):
                    return  # a pyproject.toml without pytest's table configures nothing
        else:
            values = ini_values(data.decode("utf-8", "replace"))
            entries = entry_modules(line.partition("=")[2] for line in values["pytest11"])
            self.add_names(entries, f"a pytest11 entry point of {path}")
        self.roots.add(folder_of(path))
        self.add_pythonpath(path, values["pythonpath"])
        self.add_names(plugin_options(split_options(values["addopts"])), f"-p in {path}")
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

    def shadows(self) -> list[tuple[str, Why]]:
        """What the test process would import at an import root in place of another module,
        and the package metadata there (`waiver.runners.pytest.harness.shadows`), each with why."""
        names = shadowed_names(self.declared, self.own)
        found = []
        for root in self.roots:
            for name in self.listing.kinds.get(root, {}):
                stem = top_level_name(name) or ""
                if name.endswith(METADATA_FILES):
                    found.append((join(root, name), METADATA_WHY))
                elif stem in names or stem.lower() in names:
                    instead = Why(f"imported in place of the module {stem}")
                    found.append((join(root, name), instead))
            for name in self.listing.children.get(root, []):
                folder = join(root, name)
                if name.endswith(METADATA_FOLDERS):
                    found += [(path, METADATA_WHY) for path in self.listing.files_under(folder)]
                    self.read_entry_points(join(folder, "entry_points.txt"))
                elif name in names and self.listing.module_files(folder, "__init__"):
                    instead = Why(f"imported in place of the package {name}")
                    modules = filter(is_module_path, self.listing.files_under(folder))
                    found += [(path, instead) for path in modules]
        return found

    def read_entry_points(self, path: str) -> None:
        if self.listing.kinds.get(folder_of(path), {}).get(name_of(path)) == FILE:
            data = self.tree.read(path, MAX_TOML_BYTES) or b""
            entries = metadata_entry_modules(data.decode("utf-8", "replace"))
            self.add_names(entries, f"a pytest11 entry point of {path}")


def _has_table(document: dict[str, object], table: tuple[str, ...]) -> bool:
    value: object = document
    for key in table:
        value = value.get(key) if isinstance(value, dict) else None
    return value is not None


def _named_why(harness: Harness, path: str) -> Why:
    """Why a file the harness names by itself is harness."""
    name = name_of(path)
    if name == CONFTEST:
        return CONFTEST_WHY
    if name in CONFIG_FILES or name == PYPROJECT:
        return CONFIG_WHY
    return SUITE_WHY if path in harness.modules else GLOB_WHY


def resolution(
    tree: FileTree, harness: Harness, may_set_plugins: Callable[[str], bool]
) -> Resolution:
    """The harness of the tree, resolved; an error naming every module whose plugin list
    cannot be read."""
    listing = walk(tree)
    found = Resolution(tree, listing, harness)
    if SRC_LAYOUT in listing.folders:
        found.roots.add(SRC_LAYOUT)
    named = sorted(path for path in listing.paths() if harness.covers(path))
    for path in named:
        found.add(path, _named_why(harness, path))
    for path in named:
        if name_of(path) in CONFIG_FILES or name_of(path) == PYPROJECT:
            found.read_pytest_config(path)
    for path in named:
        if name_of(path) == CONFTEST:
            found.add_root(folder_of(path))
            found.read_module(path, STRICT)
    for path in sorted(listing.paths()):
        if path.endswith(".py") and listing.kind(path) == FILE and may_set_plugins(path):
            found.read_module(path, TEST if found.is_test_module(path) else PLAIN)
    while True:
        while found.unresolved:
            name = heapq.heappop(found.unresolved)
            for path in found.resolve(name):
                found.add(path, Why(f"the plugin {name}, named by {found.named_by[name]}"))
                if path.endswith(".py"):
                    found.read_module(path, STRICT)
        for path, why in found.shadows():  # package metadata there can name more plugins
            found.add(path, why)
        if not found.unresolved:
            break
    if found.errors:
        # A module read as a conftest and again as any module is named once.
        unique = {str(error): error for error in found.errors}
        raise InputErrors(sorted(unique.values(), key=lambda error: error.source))
    return found


def resolve_harness(
    tree: FileTree, harness: Harness, may_set_plugins: Callable[[str], bool] = bool
) -> list[str]:
    """Every harness file of the tree, sorted (whole files; a `pyproject.toml` is listed
    when pytest would read it, whatever the tables it holds).

    `may_set_plugins` chooses which other `.py` files are read for `pytest_plugins`:
    all of them by default.
    """
    return sorted(resolution(tree, harness, may_set_plugins).files)
