"""The harness of a runner whose configuration is a program: jest, vitest and mocha.

Their configuration is code (`jest.config.js`, `vitest.config.ts`) or data that names code
(`.mocharc.yml`, the `jest` key of `package.json`), and what it names runs in the test
process: setup files, environments, reporters, transforms, module mappers. So, read from
files alone, never run:

- every configuration file by every name the runner (or what it loads: babel, TypeScript,
  the package manager) reads, in any folder: a file of those names that the change adds is
  drift even where the base had none;
- the keys of every `package.json` that configure them (`jest`, `mocha`, `babel`,
  `jest-junit`), each locked on its own, so that a dependency bump is no drift;
- every file those name with a literal string, relative to the file's folder (`<rootDir>`
  is that folder too), with the extensions node tries, and the relative modules those files
  load in turn;
- every file under a `__mocks__` folder (jest and vitest mock modules from there without
  any configuration);
- every file in a `node_modules` folder that the walk sees: only tracked ones are seen,
  since the folders git ignores are not walked (`waiver.read.trusted.ignored`), and a
  tracked file there replaces the installed package it sits in; and Yarn's Plug'n'Play
  loaders (`.pnp.cjs`), which decide where every package is loaded from. In the work tree
  a symlink there is an install's own (`node_modules/.bin`) and is passed over; in a
  commit, where every entry is tracked, it is an input error like any symlink in the
  harness.

A configuration that loads a module whose name it computes (`require(name)`) cannot be
resolved from files: it is an input error naming the file, until a `harness:` glob of the
policy file names that file itself, as for pytest's computed plugin lists.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from waiver.errors import InputError
from waiver.read.bounded import load_bounded_yaml, read_json
from waiver.read.harness.listing import Listing, folder_of, join, name_of, walk
from waiver.read.harness.named import glob_names
from waiver.read.lock.lock_file import PACKAGE_JSON
from waiver.read.trusted.trees import FILE, LINK, DiskTree, FileTree, check_name
from waiver.runners.syntax import loads, parse, parse_json, strings

Pair = tuple[str, str | None]

INSTALL_FOLDER = "node_modules"
MOCKS_FOLDER = "__mocks__"
# Yarn Plug'n'Play: the loader that resolves every package.
PNP_FILES = frozenset({".pnp.cjs", ".pnp.js", ".pnp.loader.mjs"})
# What every JavaScript runner loads through its transforms, TypeScript and the package
# manager that starts it (`npx`, `npm test` read `node-options` from `.npmrc`).
SHARED_CONFIGS = (
    "babel.config.*",
    ".babelrc",
    ".babelrc.*",
    "tsconfig*.json",
    "jsconfig*.json",
    ".swcrc",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
)
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


@dataclass(frozen=True)
class NodeRunnerFiles:
    """A runner's configuration names and `package.json` keys."""

    configs: tuple[str, ...]  # file-name globs, in any folder
    package_keys: tuple[str, ...]
    mocks: bool  # whether `__mocks__` folders apply without configuration


@dataclass
class _Found:
    tree: FileTree
    listing: Listing
    patterns: tuple[str, ...]
    pairs: dict[Pair, None] = field(default_factory=dict)
    read: set[str] = field(default_factory=set)

    def add(self, path: str, table: str | None = None) -> None:
        kind = self.listing.kind(path)
        if kind == LINK:
            raise InputError(check_name(path), "a symlink in the test harness")
        if kind != FILE:
            raise InputError(check_name(path), "not a regular file in the test harness")
        self.pairs[(check_name(path), table)] = None

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

    def named(self, path: str, values: list[str]) -> None:
        """The files the strings of the configuration file `path` name, and what they load."""
        for value in values:
            for folder in dict.fromkeys((folder_of(path), "")):
                found = self.resolve(folder, value)
                if found is not None:
                    self.add(found)
                    self.follow(found)

    def follow(self, path: str) -> None:
        """A named module is harness, and so is every relative module it loads."""
        pending = [path]
        while pending:
            current = pending.pop()
            if current in self.read or not current.endswith(CODE_SUFFIXES):
                continue
            self.read.add(current)
            data = self.tree.read(current, MAX_CONFIG_BYTES) or b""
            for name, _ in loads(parse(data, current)):
                if name is None or not name.startswith("."):
                    continue
                found = self.resolve(folder_of(current), name)
                if found is not None:
                    self.add(found)
                    pending.append(found)

    def config(self, path: str) -> None:
        """A configuration file: harness, and so is what its literal strings name."""
        self.add(path)
        data = self.tree.read(path, MAX_CONFIG_BYTES)
        if data is None:
            return
        name = name_of(path)
        if name.endswith(CODE_SUFFIXES):
            tree = parse(data, path)
            for loaded, line in loads(tree):
                if loaded is None and not any(
                    glob_names(pattern, path, name) for pattern in self.patterns
                ):
                    raise InputError(check_name(path), COMPUTED.format(line=line))
            self.named(path, list(strings(tree)))
            self.follow(path)
        elif name.endswith(YAML_SUFFIXES) or name in (".mocharc", ".yarnrc.yml"):
            self.named(path, _json_strings(load_bounded_yaml(data, check_name(path))))
        elif name in INI_CONFIGS:
            self.named(path, _ini_words(data))
        else:
            self.named(path, list(strings(parse_json(data, path))))

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
                self.add(path, key)
                self.named(path, list(_json_strings(document[key])))


def _json_strings(value: object) -> list[str]:
    found: list[str] = []
    pending = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, str):
            found.append(current)
        elif isinstance(current, dict):
            pending += [*current.keys(), *current.values()]
        elif isinstance(current, list):
            pending += current
    return found


def _ini_words(data: bytes) -> list[str]:
    """The words of an ini-style file's values, quotes taken off."""
    words = []
    for line in data.decode("utf-8", "replace").splitlines():
        _, _, value = line.partition("=")
        words += [word.strip("\"'") for word in value.replace("=", " ").split()]
    return words


def node_harness(
    tree: FileTree, files: NodeRunnerFiles, patterns: tuple[str, ...] = ()
) -> list[Pair]:
    """The `(path, table)` pairs of a JavaScript runner's harness in `tree`, sorted."""
    listing = walk(tree)
    found = _Found(tree, listing, patterns)
    configs = (*files.configs, *SHARED_CONFIGS)
    for path in sorted(listing.paths()):
        parts = path.split("/")
        name = parts[-1]
        installed = INSTALL_FOLDER in parts[:-1] or name in PNP_FILES
        if installed and listing.kind(path) == LINK and isinstance(tree, DiskTree):
            continue  # an install's link in the work tree; a tracked one is in the commit
        if installed or (files.mocks and MOCKS_FOLDER in parts[:-1]):
            found.add(path)
        elif any(fnmatchcase(name, glob) for glob in configs):
            found.config(path)
        elif name == PACKAGE_JSON:
            found.package(path, files.package_keys)
    return sorted(found.pairs, key=lambda pair: (pair[0], pair[1] or ""))
