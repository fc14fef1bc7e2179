"""The test tree of a JavaScript runner (jest, vitest, mocha), read from the base's files.

A spec file is one the runner's defaults name (jest's `__tests__/` and `*.test.js`,
vitest's `*.test.ts`, mocha's `test/*.js`) or one its configuration names: jest's
`testMatch` and `testRegex`, vitest's `test.include`, mocha's `spec`, found in every
configuration file of the runner and the runner's key of every `package.json`, as literal
strings, never by running the configuration. Colocated spec files (`src/calc.test.ts`) are
test code; the `src/calc.ts` beside them is code. Configuration and setup files are the
runner's harness (`waiver.runners.node.node_harness`), restored with it.

Globs are read as the runners' matchers read them (micromatch, picomatch, minimatch): `**`,
`*`, `?`, classes, braces and extglobs (`?(*.)+(spec|test)`), each relative to its
configuration file's folder; a regular expression as jest matches it, against the path.
The defaults always count too: a configuration that narrows them never turns a
`calc.test.js` into code, whose edits the replays would then run. A pattern that cannot be
read (a regular expression Python's `re` refuses) is an input error naming its file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase

from tree_sitter import Node

from waiver.errors import InputError
from waiver.read.harness.listing import Listing, folder_of, name_of, walk
from waiver.read.harness.test_tree import TestTree, in_folders, test_folders
from waiver.read.lock.lock_file import PACKAGE_JSON
from waiver.read.trusted.trees import FileTree, check_name
from waiver.read.untrusted.bounded import load_bounded_yaml, read_json
from waiver.runners.node.js_tests import TEST_FOLDERS
from waiver.runners.node.node_harness import CODE_SUFFIXES, INSTALL_FOLDER, YAML_SUFFIXES
from waiver.runners.node.syntax import literal, parse, parse_json, text
from waiver.runners.node.syntax import walk as walk_nodes

MAX_CONFIG_BYTES = 1 << 20
# A spec file by its name, whatever the configuration: what every runner's docs name one.
TEST_NAME = re.compile(r"[.](test|spec)[.][cm]?[jt]sx?$")
GLOB_CHARS = frozenset("*?[{(!")


@dataclass(frozen=True)
class SpecKeys:
    """How a runner names its spec files: its defaults, and the configuration keys that
    name others."""

    defaults: tuple[str, ...]  # globs from the repository's root
    globs: frozenset[str]  # keys whose strings are globs
    regexes: frozenset[str] = frozenset()  # keys whose strings are regular expressions
    within: str | None = None  # the key whose object holds them (vitest's `test`)
    package_key: str | None = None  # the runner's key of `package.json`
    data_folders: frozenset[str] = frozenset({"__snapshots__", "__fixtures__"})


@dataclass(frozen=True)
class Rule:
    """One spec pattern, from the folder of the file that names it."""

    folder: str
    pattern: re.Pattern[str]
    search: bool = False  # a regular expression, found anywhere in "/" + the path

    def matches(self, path: str) -> bool:
        if self.folder and not path.startswith(self.folder + "/"):
            return False
        relative = path[len(self.folder) + 1 :] if self.folder else path
        if self.search:
            return self.pattern.search("/" + relative) is not None
        return self.pattern.fullmatch(relative) is not None


def _alternatives(glob: str, start: int, close: str) -> tuple[list[str], int]:
    """The parts of a brace or extglob group from `start` to its `close`, split at its
    top-level separators, and where the group ends; ([], -1) when it is never closed."""
    parts, depth, current = [], 0, start
    separators = ",|" if close == "}" else "|"
    for index in range(start, len(glob)):
        char = glob[index]
        if char in "({":
            depth += 1
        elif char in ")}" and depth:
            depth -= 1
        elif char == close:
            parts.append(glob[current:index])
            return parts, index
        elif char in separators and not depth:
            parts.append(glob[current:index])
            current = index + 1
    return [], -1


EXTGLOB = {"?": "?", "*": "*", "+": "+", "@": "", "!": None}


def glob_regex(glob: str) -> str:
    """A runner's glob as a regular expression over a `/`-separated relative path."""
    out, index = [], 0
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if glob.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char in EXTGLOB and glob.startswith("(", index + 1):
            parts, end = _alternatives(glob, index + 2, ")")
            if end >= 0:
                inner = "|".join(glob_regex(part) for part in parts)
                quantifier = EXTGLOB[char]
                out.append("[^/]*" if quantifier is None else f"(?:{inner}){quantifier}")
                index = end + 1
                continue
        if char == "{":
            parts, end = _alternatives(glob, index + 1, "}")
            if end >= 0 and len(parts) > 1:
                out.append("(?:" + "|".join(glob_regex(part) for part in parts) + ")")
                index = end + 1
                continue
        if char == "[":
            end = glob.find("]", index + 2)
            if end >= 0:
                body = glob[index + 1 : end]
                negated = body[:1] in ("!", "^")
                body = body[1:] if negated else body
                out.append("[" + ("^" if negated else "") + body.replace("\\", "\\\\") + "]")
                index = end + 1
                continue
        out.append("[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char))
        index += 1
    return "".join(out)


def _relative_glob(value: str) -> str:
    return value.removeprefix("<rootDir>/").removeprefix("./")


def _js_values(node: Node, keys: frozenset[str], within: str | None) -> Iterator[str]:
    """The literal strings of the `keys` of a configuration's syntax tree (inside an object
    that `within` names, when given)."""
    for found in walk_nodes(node):
        if found.type != "pair":
            continue
        key = found.child_by_field_name("key")
        value = found.child_by_field_name("value")
        if key is None or value is None or _key_name(key) not in keys:
            continue
        if within is not None and not _inside(found, within):
            continue
        items = value.named_children if value.type == "array" else [value]
        for item in items:
            string = literal(item)
            if string is not None:
                yield string


def _key_name(key: Node) -> str:
    found = literal(key)
    return found if found is not None else text(key)


def _inside(pair: Node, within: str) -> bool:
    """Whether a pair lies directly in the object of a pair keyed `within`."""
    container = pair.parent
    outer = None if container is None else container.parent
    key = None if outer is None or outer.type != "pair" else outer.child_by_field_name("key")
    return key is not None and _key_name(key) == within


def _data_values(value: object, keys: frozenset[str], within: str | None) -> Iterator[str]:
    """The strings of `keys` in a document read as data (YAML, a `package.json` key)."""
    pending: list[tuple[object, str | None]] = [(value, None)]
    while pending:
        current, parent = pending.pop()
        if isinstance(current, dict):
            for key, inner in current.items():
                if key in keys and (within is None or parent == within):
                    items = inner if isinstance(inner, list) else [inner]
                    yield from (item for item in items if isinstance(item, str))
                else:
                    pending.append((inner, key if isinstance(key, str) else None))
        elif isinstance(current, list):
            pending += [(item, parent) for item in current]


@dataclass
class _Specs:
    keys: SpecKeys
    tree: FileTree
    listing: Listing
    rules: list[Rule]

    def add(self, folder: str, value: str, regex: bool, path: str) -> None:
        if regex:
            try:
                self.rules.append(Rule(folder, re.compile(value), search=True))
            except (re.error, RecursionError):
                raise InputError(
                    check_name(path), f"names a test pattern it cannot read: {value[:200]}"
                ) from None
            return
        glob = _relative_glob(value)
        named = "/".join(part for part in (folder, glob.rstrip("/")) if part)
        if not GLOB_CHARS & set(glob) and named in self.listing.folders:
            glob = glob.rstrip("/") + "/**"  # a folder: the files in it (mocha's `spec: test`)
        self.rules.append(Rule(folder, re.compile(glob_regex(glob))))

    def config(self, path: str) -> None:
        data = self.tree.read(path, MAX_CONFIG_BYTES)
        if data is None:
            return
        keys = self.keys
        name = name_of(path)
        if name.endswith(YAML_SUFFIXES) or name == ".mocharc":
            document = load_bounded_yaml(data, check_name(path))
            found = [(v, False) for v in _data_values(document, keys.globs, keys.within)]
            found += [(v, True) for v in _data_values(document, keys.regexes, keys.within)]
        else:
            tree = parse(data, path) if name.endswith(CODE_SUFFIXES) else parse_json(data, path)
            found = [(v, False) for v in _js_values(tree, keys.globs, keys.within)]
            found += [(v, True) for v in _js_values(tree, keys.regexes, keys.within)]
        for value, regex in found:
            self.add(folder_of(path), value, regex, path)

    def package(self, path: str) -> None:
        key = self.keys.package_key
        data = None if key is None else self.tree.read(path, MAX_CONFIG_BYTES)
        document = None if data is None else read_json(data, path)
        if key is None or not isinstance(document, dict) or key not in document:
            return
        section = document[key]
        for value in _data_values(section, self.keys.globs, self.keys.within):
            self.add(folder_of(path), value, False, path)
        for value in _data_values(section, self.keys.regexes, self.keys.within):
            self.add(folder_of(path), value, True, path)


def _installed(path: str) -> bool:
    return INSTALL_FOLDER in path.split("/")[:-1]


def named_as_test(path: str) -> bool:
    """A spec file by its name or its `__tests__` folder, as every runner's docs name one."""
    if _installed(path):
        return False
    return bool(TEST_NAME.search(name_of(path))) or (
        "__tests__" in path.split("/")[:-1] and path.endswith(CODE_SUFFIXES)
    )


def node_test_tree(tree: FileTree, keys: SpecKeys, configs: tuple[str, ...]) -> TestTree:
    """A JavaScript runner's test tree in the base `tree`: its spec files by its defaults and
    its configuration files (`configs`, file-name globs in any folder) and `package.json`
    key, the test folders that hold them, and its data folders."""
    listing = walk(tree)
    defaults = [Rule("", re.compile(glob_regex(glob))) for glob in keys.defaults]
    specs = _Specs(keys, tree, listing, defaults)
    for path in sorted(listing.paths()):
        if _installed(path):
            continue
        name = name_of(path)
        if any(fnmatchcase(name, glob) for glob in configs):
            specs.config(path)
        elif name == PACKAGE_JSON:
            specs.package(path)
    rules = tuple(specs.rules)

    def collects(path: str) -> bool:
        return not _installed(path) and (
            named_as_test(path) or any(rule.matches(path) for rule in rules)
        )

    folders = test_folders(listing.paths(), collects, TEST_FOLDERS)
    return TestTree(collects, in_folders(folders), keys.data_folders, named_as_test)
