"""Structured files of the change, read in bounded work: a value nested deeper than
MAX_DEPTH, or larger than its cap of nodes, is an input error naming the file, found before
anything walks the value.

YAML's anchors and aliases let a few hundred bytes stand for a billion values (nine levels
of ten aliases to the level below), and PyYAML builds them as shared objects, so the cost
falls on whatever walks the document next. `BoundedLoader` counts, while it composes, every
node with each alias expanded to the size of what it names, and refuses the document once
that count passes MAX_YAML_NODES, once its nesting passes MAX_DEPTH, or at an alias inside
its own anchor (a value that holds itself has no end): the work is linear in the file and
stops at the cap. JSON and TOML have no aliases, so a value is never larger than its file;
`check_shape` caps their depth and nodes all the same, so that what reads them next never
recurses past Python's limit nor walks a value without end. `read_toml` and `read_json`
are the readers of the change's TOML and JSON files (`pyproject.toml`, `package.json`)
that apply it.
"""

from __future__ import annotations

import json
import tomllib
from typing import TYPE_CHECKING

import yaml
from yaml.events import AliasEvent, NodeEvent

from waiver.errors import InputError
from waiver.read.untrusted.files import read_small

if TYPE_CHECKING:
    from yaml.events import Event
    from yaml.nodes import Node

MAX_DEPTH = 100
# Values of a YAML document with its aliases expanded: more than any configuration holds,
# and few enough to walk in a fraction of a second.
MAX_YAML_NODES = 100_000
MAX_NODES = 1_000_000
MAX_TOML_BYTES = 1 << 20


class BoundedLoader(yaml.SafeLoader):
    """yaml.SafeLoader that counts what it composes, aliases expanded, and refuses a
    document past the caps, naming `source`."""

    def __init__(self, stream: str | bytes, source: str) -> None:
        super().__init__(stream)
        self.source = source
        self.depth = 0
        self.expanded = 0  # nodes composed so far, each alias counted as what it names
        self.sizes: dict[int, int] = {}  # anchored node -> its size, once it is complete

    def _next(self) -> Event:
        event: Event = self.peek_event()  # type: ignore[no-untyped-call]
        return event

    def _line(self) -> int:
        mark = self._next().start_mark
        return mark.line + 1 if mark is not None else 0

    def _count(self, nodes: int) -> None:
        self.expanded += nodes
        if self.expanded > MAX_YAML_NODES:
            raise InputError(
                self.source,
                f"the YAML document holds more than {MAX_YAML_NODES:,} values once its "
                f"aliases are expanded (line {self._line()})",
            )

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        event = self._next()
        if isinstance(event, AliasEvent):
            target = self.anchors.get(event.anchor)
            if target is not None:
                size = self.sizes.get(id(target))
                if size is None:
                    raise InputError(
                        self.source,
                        f"the YAML alias *{event.anchor} (line {self._line()}) is inside "
                        "its own anchor: a value that holds itself has no end",
                    )
                self._count(size)
            return super().compose_node(parent, index)
        if self.depth == MAX_DEPTH:
            raise InputError(
                self.source, f"YAML nested deeper than {MAX_DEPTH} levels (line {self._line()})"
            )
        self.depth += 1
        before = self.expanded
        self._count(1)
        node = super().compose_node(parent, index)
        self.depth -= 1
        if isinstance(event, NodeEvent) and event.anchor is not None and node is not None:
            self.sizes[id(node)] = self.expanded - before
        return node


def load_bounded_yaml(data: bytes, source: str) -> object:
    """A YAML document as plain values, within the caps; anything else is an input error."""
    loader = BoundedLoader(data, source)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as error:
        raise InputError(source, f"not valid YAML: {error}") from None
    finally:
        loader.dispose()


def check_shape(value: object, source: str, what: str) -> None:
    """Refuse a parsed JSON or TOML value (`what` names the format) nested deeper than
    MAX_DEPTH or holding more than MAX_NODES values; walked without recursion."""
    pending: list[tuple[object, int]] = [(value, 1)]
    nodes = 0
    while pending:
        current, depth = pending.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise InputError(source, f"the {what} document holds more than {MAX_NODES:,} values")
        if isinstance(current, dict):
            children: list[object] = list(current.values())
        elif isinstance(current, list):
            children = current
        else:
            continue
        if children and depth == MAX_DEPTH:
            raise InputError(source, f"{what} nested deeper than {MAX_DEPTH} levels")
        pending += [(child, depth + 1) for child in children]


def read_toml(data: bytes, path: str) -> dict[str, object]:
    """A TOML file's document; anything that is not TOML, however deep, is an input error,
    and so is a document past the caps of `check_shape`."""
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise InputError(path, f"not valid TOML: {error}") from None
    except RecursionError:
        raise InputError(path, "not valid TOML: nested too deep") from None
    check_shape(document, path, "TOML")
    return document


def read_toml_file(path: str, source: str) -> dict[str, object]:
    """The TOML file at `path` (named `source`), at most MAX_TOML_BYTES of it."""
    return read_toml(read_small(path, MAX_TOML_BYTES, source), source)


def read_json(data: bytes, path: str) -> object:
    """A JSON file's value (a `package.json`); anything that is not JSON is an input error,
    and so is a value past the caps of `check_shape`."""
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as error:
        raise InputError(path, f"not valid JSON: {error}") from None
    except RecursionError:
        raise InputError(path, "not valid JSON: nested too deep") from None
    check_shape(document, path, "JSON")
    return document
