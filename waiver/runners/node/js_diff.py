"""What a reviewer reads of an edited JavaScript or TypeScript test: a short diff of each part
the comparison (`waiver.runners.node.js_definitions`) named as changed, the trusted revision's
against the change's, in the lines and caps of Python's (`waiver.runners.pytest.diff`).

There is no unparser to write a part back from its syntax tree, so each side is the part's
source as written: dedented, without trailing whitespace or blank lines, and a describe
without the tests and describes inside it. Unlike Python's, a comment or a new layout can
make a line here, while it makes no edit. A module compared as a digest (a file that is
not code), or a part a side does not have, shows no lines on that side.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tree_sitter import Node

from waiver.read.harness.named import MAX_MODULE_BYTES
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import FileTree
from waiver.runners.node.js_definitions import (
    BODY,
    DESCRIBE,
    FILE_CHANGED,
    MODULE_CODE,
    MODULE_KEY,
    Module,
    script_ids,
)
from waiver.runners.node.js_tests import display, holds_tests, statement_of
from waiver.runners.node.node_harness import CODE_SUFFIXES
from waiver.runners.node.syntax import walk
from waiver.runners.pytest.diff import SUFFIXES, capped, diff_lines

# What stands before a node on its first line, kept as indentation: tabs stay tabs, so that
# the node's lines dedent together.
NOT_TAB = re.compile(rb"[^\t]")


def _shown(text: str) -> str:
    """Text as a diff shows it: dedented, no trailing whitespace, no blank lines."""
    lines = textwrap.dedent(text).splitlines()
    return "\n".join(line.rstrip() for line in lines if line.strip())


def _source(data: bytes, node: Node, left_out: Sequence[Node] = ()) -> str:
    """A node's source as written in `data` (its module), without the nodes `left_out`
    that it holds."""
    start = node.start_byte
    indent = NOT_TAB.sub(b" ", data[data.rfind(b"\n", 0, start) + 1 : start])
    pieces = [indent]
    for inner in sorted(left_out, key=lambda found: found.start_byte):
        pieces.append(data[start : inner.start_byte])
        start = inner.end_byte
    pieces.append(data[start : node.end_byte])
    return _shown(b"".join(pieces).decode("utf-8", "replace"))


def _sources(data: bytes, nodes: Iterable[Node]) -> str:
    return "\n".join(_source(data, node) for node in nodes)


def _describe(data: bytes, suite: Node) -> str:
    """A describe as it is part of its tests: without the tests and describes in it."""
    inner = [n for n in walk(suite) if statement_of(n, suite) and holds_tests(n)]
    return _source(data, suite, inner)


@dataclass(frozen=True)
class Side:
    """A test module on one commit: parsed, and its bytes, which a part's source is cut
    from."""

    tree: FileTree
    module: Module | None
    data: bytes

    @classmethod
    def read(cls, tree: FileTree, path: str, separator: str) -> Side:
        module = Module.read(tree, path, separator)
        return cls(tree, module, b"" if module is None else module.root.text or b"")

    def part(self, title: str, key: str) -> str | None:
        """The source of the part `key` of the test `title`; None where this side has none
        to show."""
        module = self.module
        if module is None:
            return None
        if key == FILE_CHANGED:
            return _shown(self.data.decode("utf-8", "replace"))
        if key.startswith(MODULE_KEY):
            path = key.removeprefix(MODULE_KEY)
            found = None
            if path.endswith(CODE_SUFFIXES) and not path.startswith("../"):
                found = self.tree.read(path, MAX_MODULE_BYTES)
            return None if found is None else _shown(found.decode("utf-8", "replace"))
        if key == MODULE_CODE + module.path:
            return _sources(self.data, module.unbound)
        statements = module.bound(key)
        if statements is not None:
            return _sources(self.data, statements)
        definition = module.find(title)
        if definition is None:
            return None
        if key == BODY:
            return _source(self.data, definition.statement)
        # Of two describes with one title around a test, the comparison keeps the inner one.
        suites = [s for s in definition.suites if DESCRIBE + display(s) == key]
        return _describe(self.data, suites[-1]) if suites else None


def script_diffs(
    committed: Committed, edited: Mapping[str, Sequence[str]], separator: str
) -> dict[str, tuple[str, ...]]:
    """The diff of each edited JavaScript or TypeScript test in `edited`, by test id, from
    the parts the comparison named; a part many tests reach (a helper, their module's
    code, a helper module) is cut and matched once."""
    sides: dict[str, tuple[Side, Side]] = {}
    # A part's lines, by what they depend on: the test for its own parts, else its module
    # (a helper module's, by the module's name alone).
    parts_seen: dict[tuple[str, str], list[str]] = {}
    found: dict[str, tuple[str, ...]] = {}
    for test_id in script_ids(edited):
        path, _, title = test_id.partition("::")
        if path not in sides:
            sides[path] = (
                Side.read(committed.trusted, path, separator),
                Side.read(committed.head, path, separator),
            )
        before, after = sides[path]
        lines: list[str] = []
        for part in dict.fromkeys(map(_part_name, edited[test_id])):
            own = part == BODY or part.startswith(DESCRIBE)
            key = (test_id if own else "" if part.startswith(MODULE_KEY) else path, part)
            if key not in parts_seen:
                old = before.part(title, part) or ""
                new = after.part(title, part) or ""
                parts_seen[key] = diff_lines(part, old, new) if old != new else []
            lines += parts_seen[key]
        if lines:
            found[test_id] = capped(lines)
    return found


def _part_name(change: str) -> str:
    """The part a change names, without `(added)` or `(removed)`."""
    for suffix in SUFFIXES:
        change = change.removesuffix(suffix)
    return change
