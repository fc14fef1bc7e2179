"""The harness of a runner whose configuration is a program: jest, vitest and mocha.

Their configuration is code (`jest.config.js`, `vitest.config.ts`) or data that names code
(`.mocharc.yml`, the `jest` key of `package.json`), and what it names runs in the test
process: setup files, environments, reporters, transforms, module mappers. What the tests
exercise, the library's own source, is code under test and never harness. So, read from
files alone, never run:

- every configuration file by every name the runner (or what it loads: babel, TypeScript,
  the package manager) reads, in any folder: a file of those names that the change adds is
  drift even where the base had none;
- the keys of every `package.json` that configure them (`jest`, `mocha`, `babel`,
  `jest-junit`), each locked on its own, so that a dependency bump is no drift; and of a
  TypeScript configuration (`tsconfig*.json`, `jsconfig*.json`) only what decides where a
  module is loaded from (`extends`, and the compiler options `paths`, `baseUrl`, `types`,
  `plugins`, `rootDirs`), each on its own: its `include`, `files` and `exclude` name the
  library's sources, and the other options how they compile;
- every file a configuration names with a literal string, relative to the file's folder
  (`<rootDir>` is that folder too), with the extensions node tries: under a key that loads
  a module (`setupFiles`, `setupFilesAfterEnv`, `globalSetup`, `testEnvironment`,
  `reporters`, `transform`, mocha's `require`, …) whatever it is, under any other key
  unless it is code under test (a module outside the test folders that is not named as a
  test), and never under a key that names sources, globs or outputs (`roots`, `include`,
  `collectCoverageFrom`, `coverage`, `testMatch`, mocha's `spec`, …);
- the relative modules a configuration file loads from its own folder, which run as
  configuration (a shared `jest.base.js`), but a `package.json`; and those any of these
  load in turn, as far as they are test code: a setup file's helpers in the test folders
  are harness, its import of the library (or a configuration's, `./src/plugin`) is not;
- every file under a `__mocks__` folder (jest and vitest mock modules from there without
  any configuration);
- every file in a `node_modules` folder that the walk sees: only tracked ones are seen,
  since the folders git ignores are not walked (`waiver.read.trusted.ignored`), and a
  tracked file there replaces the installed package it sits in; and Yarn's Plug'n'Play
  loaders (`.pnp.cjs`), which decide where every package is loaded from. In the work tree
  a symlink there is an install's own (`node_modules/.bin`) and is passed over; in a
  commit, where every entry is tracked, it is an input error like any symlink in the
  harness.

Each file found carries why it is harness ("named by jest.config.js setupFilesAfterEnv"),
which `waiver init` and `waiver lock` print. A configuration that loads a module whose name
it computes (`require(name)`) cannot be resolved from files: it is an input error naming
the file, until a `harness:` glob of the policy file names that file itself, as for
pytest's computed plugin lists.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from waiver.errors import InputError
from waiver.read.harness.listing import Listing, folder_of, join, name_of, walk
from waiver.read.harness.named import Pair, Why, glob_names
from waiver.read.lock.lock_file import PACKAGE_JSON, LockTables
from waiver.read.trusted.trees import FILE, LINK, DiskTree, FileTree, check_name
from waiver.read.untrusted.bounded import load_bounded_yaml, read_json
from waiver.read.untrusted.jsonc import read_jsonc
from waiver.runners.node.js_tests import TEST_FOLDERS
from waiver.runners.node.syntax import keyed_strings, loads, parse

INSTALL_FOLDER = "node_modules"
MOCKS_FOLDER = "__mocks__"
# Yarn Plug'n'Play: the loader that resolves every package.
PNP_FILES = frozenset({".pnp.cjs", ".pnp.js", ".pnp.loader.mjs"})
# What every JavaScript runner loads through its transforms, TypeScript and the package
# manager that starts it (`npx`, `npm test` read `node-options` from `.npmrc`), by whose
# configuration each is.
SHARED_CONFIG_TOOLS = {
    "babel.config.*": "babel",
    ".babelrc": "babel",
    ".babelrc.*": "babel",
    "tsconfig*.json": "TypeScript",
    "jsconfig*.json": "TypeScript",
    ".swcrc": "swc",
    ".npmrc": "npm",
    ".yarnrc": "yarn",
    ".yarnrc.yml": "yarn",
}
SHARED_CONFIGS = tuple(SHARED_CONFIG_TOOLS)
TYPESCRIPT_CONFIGS = ("tsconfig*.json", "jsconfig*.json")
# `key=value` lines, whose values are command-line words (`node-options=--require ./hook.js`).
INI_CONFIGS = frozenset({".npmrc", ".yarnrc"})
CODE_SUFFIXES = (".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".jsx", ".tsx")
YAML_SUFFIXES = (".yml", ".yaml")
# What node (and the runners' resolvers) try after a name that names no file.
EXTENSIONS = (*CODE_SUFFIXES, ".json", ".node")
ROOT_DIR = "<rootDir>"
NOT_PATH = frozenset("*?[{\n\0")
MAX_CONFIG_BYTES = 1 << 20
MAX_NAME_CHARS = 1024
COMPUTED = (
    "loads a module whose name it computes (line {line}), so the gate cannot tell which "
    "files it loads: name this file and those files with `harness:` globs in the policy file"
)
# Keys whose values are modules the runner (or babel, or the package manager) loads: what
# they name is harness, whatever it is.
LOADING_KEYS = frozenset(
    {"setupFiles", "setupFilesAfterEnv", "globalSetup", "globalTeardown", "testEnvironment"}
    | {"environment", "reporters", "reporter", "transform", "snapshotResolver", "resolver"}
    | {"snapshotSerializers", "testSequencer", "sequencer", "runner", "testRunner", "preset"}
    | {"watchPlugins", "moduleNameMapper", "dependencyExtractor", "testResultsProcessor"}
    | {"require", "file", "ui", "presets", "plugins", "extends", "node-options"}
)
# Keys whose values name the sources and tests a runner looks through, globs, and where it
# writes: never a module it loads.
SOURCE_KEYS = frozenset(
    {"include", "exclude", "files", "includeSource", "roots", "rootDir", "root", "dir"}
    | {"testMatch", "testRegex", "testPathIgnorePatterns", "modulePathIgnorePatterns"}
    | {"watchPathIgnorePatterns", "transformIgnorePatterns", "coveragePathIgnorePatterns"}
    | {"collectCoverageFrom", "coverage", "coverageDirectory", "coverageThreshold"}
    | {"coverageReporters", "cacheDirectory", "cache", "outputFile", "outputDirectory"}
    | {"modulePaths", "moduleDirectories", "moduleFileExtensions", "spec", "ignore"}
    | {"extension", "watchFiles", "watchExclude", "outDir", "declarationDir", "baseUrl"}
    | {"rootDirs", "typeRoots", "paths", "tsBuildInfoFile", "references"}
)
TEST_NAMES = (".test.", ".spec.")
# What of a TypeScript configuration (`tsconfig.json`, JSON with comments) decides where a
# module is loaded from, each locked on its own like a table: `include`, `files` and
# `exclude` only name the sources, and the other compiler options how they compile.
TSCONFIG_TABLES = (
    "extends",
    "compilerOptions.paths",
    "compilerOptions.baseUrl",
    "compilerOptions.types",
    "compilerOptions.plugins",
    "compilerOptions.rootDirs",
)


@dataclass(frozen=True)
class NodeRunnerFiles:
    """A runner's configuration names and `package.json` keys."""

    runner: str
    configs: tuple[str, ...]  # file-name globs, in any folder
    # The configuration files at a project's root that name this runner its runner, for
    # `waiver init` (a `vite.config.*` configures vitest's build as much as its tests).
    names_runner: tuple[str, ...]
    package_keys: tuple[str, ...]
    mocks: bool  # whether `__mocks__` folders apply without configuration

    def lock_tables(self) -> LockTables:
        """The tables of its harness a lock holds on lines of their own: its `package.json`
        keys, and what of a TypeScript configuration decides where modules load from."""
        return LockTables(
            package_keys=frozenset(self.package_keys), jsonc=frozenset(TSCONFIG_TABLES)
        )


def is_test_side(path: str) -> bool:
    """Whether `path` is the tests' rather than the library's: in a test folder (`test/`,
    `__tests__/`, `__mocks__/`, …), or a test module by its name (`calc.test.ts`)."""
    parts = path.split("/")
    return bool(TEST_FOLDERS & set(parts[:-1])) or any(mark in parts[-1] for mark in TEST_NAMES)


def _keys_words(keys: tuple[str, ...]) -> str:
    return ".".join(key for key in keys if key)


@dataclass
class _Found:
    tree: FileTree
    listing: Listing
    patterns: tuple[str, ...]
    pairs: dict[Pair, Why] = field(default_factory=dict)
    read: set[str] = field(default_factory=set)

    def check(self, path: str) -> str:
        """`path`, when it is a regular file of the tree: anything else in the harness is
        an input error."""
        kind = self.listing.kind(path)
        if kind == LINK:
            raise InputError(check_name(path), "a symlink in the test harness")
        if kind != FILE:
            raise InputError(check_name(path), "not a regular file in the test harness")
        return check_name(path)

    def add(self, path: str, why: Why, table: str | None = None) -> None:
        self.pairs.setdefault((self.check(path), table), why)

    def exists(self, path: str) -> bool:
        return self.listing.kinds.get(folder_of(path), {}).get(name_of(path)) is not None

    def resolve(self, folder: str, name: str) -> str | None:
        """The file `name` names from `folder`, as node would find it; None when it names no
        file of the tree (a package, a folder, a glob, or no path at all)."""
        if not name or len(name) > MAX_NAME_CHARS or NOT_PATH & set(name):
            return None
        if name.startswith(ROOT_DIR):
            name = "." + name[len(ROOT_DIR) :]
        if name.startswith("/") or "://" in name:
            return None
        path = posixpath.normpath(join(folder, name))
        if path.startswith("../") or path == "..":
            return None
        for candidate in (
            path,
            *(path + suffix for suffix in EXTENSIONS),
            *(join(path, "index" + suffix) for suffix in EXTENSIONS),
        ):
            if self.exists(candidate):
                return candidate
        return None

    def named(self, path: str, values: Iterator[tuple[tuple[str, ...], str]]) -> None:
        """The files the strings of the configuration file `path` name, by the key each sits
        under, and what they load."""
        for keys, value in values:
            if SOURCE_KEYS & set(keys):
                continue
            loading = bool(LOADING_KEYS & set(keys))
            for folder in dict.fromkeys((folder_of(path), "")):
                found = self.resolve(folder, value)
                if found is None or not (loading or is_test_side(found)):
                    continue
                where = _keys_words(keys)
                self.add(found, Why(f"named by {path}" + (f" {where}" if where else "")))
                self.follow(found)

    def follow(self, path: str, configuration: bool = False) -> None:
        """The relative modules a named module loads, as far as they are test code. A
        configuration file's own (`configuration`) beside it run as configuration too (a
        shared `jest.base.js`), but its `package.json`, whose runner keys are locked each
        on its own; the library a setup file or a configuration imports is code under
        test."""
        pending = [(path, configuration)]
        while pending:
            current, beside = pending.pop()
            if current in self.read or not current.endswith(CODE_SUFFIXES):
                continue
            self.read.add(current)
            data = self.tree.read(current, MAX_CONFIG_BYTES) or b""
            for name, _ in loads(parse(data, current)):
                if name is None or not name.startswith("."):
                    continue
                found = self.resolve(folder_of(current), name)
                if found is None or name_of(found) == PACKAGE_JSON:
                    continue
                if is_test_side(found) or (beside and folder_of(found) == folder_of(current)):
                    self.add(found, Why(f"loaded by {current}"))
                    pending.append((found, beside))

    def config(self, path: str, why: Why) -> None:
        """A configuration file: harness, and so is what its literal strings name."""
        name = name_of(path)
        if any(fnmatchcase(name, glob) for glob in TYPESCRIPT_CONFIGS):
            self.typescript(path, why)
            return
        self.add(path, why)
        data = self.tree.read(path, MAX_CONFIG_BYTES)
        if data is None:
            return
        if name.endswith(CODE_SUFFIXES):
            tree = parse(data, path)
            for loaded, line in loads(tree):
                if loaded is None and not any(
                    glob_names(pattern, path, name) for pattern in self.patterns
                ):
                    raise InputError(check_name(path), COMPUTED.format(line=line))
            self.named(path, keyed_strings(tree))
            self.follow(path, configuration=True)
        elif name.endswith(YAML_SUFFIXES) or name in (".mocharc", ".yarnrc.yml"):
            self.named(path, _keyed_values(load_bounded_yaml(data, check_name(path))))
        elif name in INI_CONFIGS:
            self.named(path, _ini_words(data))
        else:
            self.named(path, _keyed_values(read_jsonc(data, path)))

    def typescript(self, path: str, why: Why) -> None:
        """A TypeScript configuration: what of it decides where modules are loaded from,
        each table on its own, and the configuration it extends."""
        self.check(path)
        document = read_jsonc(self.tree.read(path, MAX_CONFIG_BYTES) or b"{}", path)
        if not isinstance(document, dict):
            return
        for table in TSCONFIG_TABLES:
            value: object = document
            for key in table.split("."):
                value = value.get(key) if isinstance(value, dict) else None
            if value is not None:
                self.add(path, why, table)
        extended = document.get("extends")
        for name in extended if isinstance(extended, list) else [extended]:
            found = None if not isinstance(name, str) else self.resolve(folder_of(path), name)
            if found is not None and found.endswith(".json") and found not in self.read:
                self.read.add(found)
                self.typescript(found, Why(f"extended by {path}"))

    def package(self, path: str, keys: tuple[str, ...]) -> None:
        """The runner's keys of a `package.json`, each on its own, and what they name."""
        data = self.tree.read(path, MAX_CONFIG_BYTES)
        if data is None:
            return
        document = read_json(data, path)
        if not isinstance(document, dict):
            return
        for key in keys:
            if key in document:
                self.add(path, Why(f"the `{key}` key of {path}", obvious=True), key)
                self.named(path, _keyed_values(document[key], (key,)))


def _keyed_values(
    value: object, keys: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], str]]:
    """Every string value of a JSON or YAML document, with the keys it sits under."""
    pending: list[tuple[tuple[str, ...], object]] = [(keys, value)]
    while pending:
        where, current = pending.pop()
        if isinstance(current, str):
            yield where, current
        elif isinstance(current, dict):
            pending += [((*where, str(key)), inner) for key, inner in current.items()]
        elif isinstance(current, list):
            pending += [(where, inner) for inner in current]


def _ini_words(data: bytes) -> Iterator[tuple[tuple[str, ...], str]]:
    """The words of an ini-style file's values, quotes taken off, under their keys."""
    for line in data.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition("=")
        for word in value.replace("=", " ").split():
            yield (key.strip(),), word.strip("\"'")


def node_harness(
    tree: FileTree, files: NodeRunnerFiles, patterns: tuple[str, ...] = ()
) -> dict[Pair, Why]:
    """The `(path, table)` pairs of a JavaScript runner's harness in `tree`, sorted, each
    with why it is harness."""
    listing = walk(tree)
    found = _Found(tree, listing, patterns)
    own = Why(f"{files.runner}'s configuration", obvious=True)
    tools = {glob: Why(f"{tool}'s configuration") for glob, tool in SHARED_CONFIG_TOOLS.items()}
    configs = {**{glob: own for glob in files.configs}, **tools}
    for path in sorted(listing.paths()):
        parts = path.split("/")
        name = parts[-1]
        installed = INSTALL_FOLDER in parts[:-1] or name in PNP_FILES
        if installed and listing.kind(path) == LINK and isinstance(tree, DiskTree):
            continue  # an install's link in the work tree; a tracked one is in the commit
        if installed:
            found.add(path, Why("tracked in an install folder, in place of what it installs"))
        elif files.mocks and MOCKS_FOLDER in parts[:-1]:
            found.add(path, Why(f"a mock {files.runner} loads without configuration"))
        elif name == PACKAGE_JSON:
            found.package(path, files.package_keys)
        else:
            glob = next((glob for glob in configs if fnmatchcase(name, glob)), None)
            if glob is not None:
                found.config(path, configs[glob])
    return dict(sorted(found.pairs.items(), key=lambda item: (item[0][0], item[0][1] or "")))
