"""YAML as a policy file may hold it: plain values only, read alike by every YAML reader.

No tags beyond YAML's own scalars and collections, no aliases, string keys given once, and
no plain scalar that YAML 1.1 reads otherwise than YAML 1.2 (`yes`, `1:00`, `017`): the
node tree is checked before any object is built.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from waiver.errors import InputError
from waiver.read.untrusted.bounded import BoundedLoader

MAX_INTEGER_CHARS = 20
YAML_TAG = "tag:yaml.org,2002:"
PLAIN_TAGS = frozenset(
    YAML_TAG + name for name in ("str", "int", "float", "bool", "null", "seq", "map")
)
# The plain scalars that YAML 1.2's core schema and YAML 1.1 both read as something other
# than a string, spelt the way both read alike. Any other plain scalar is a string here;
# when YAML 1.1 reads it otherwise (`1:00` as 60, `yes` and `on` as true, `017` as 15,
# `0x1f`, `1_000`, `.inf`, a date) the file is refused, so no reader can take it another way.
PLAIN_SCALARS = (
    ("bool", r"true|True|TRUE|false|False|FALSE"),
    ("int", r"[-+]?(?:0|[1-9][0-9]*)"),
    ("float", r"[-+]?(?:0|[1-9][0-9]*)\.[0-9]*(?:[eE][-+][0-9]+)?"),
    ("null", r"~|null|Null|NULL|"),
)


def key_path(parts: Iterable[str | int]) -> str:
    """`bindings[0].tests` style: how a message names a place in the file."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text or "(top level)"


def _tag(tag: str) -> str:
    return "!!" + tag.removeprefix(YAML_TAG) if tag.startswith(YAML_TAG) else tag


@cache
def _loader() -> type[BoundedLoader]:
    """The bounded loader, resolving only the PLAIN_SCALARS; any other plain scalar is a
    string."""

    class PlainLoader(BoundedLoader):
        pass

    PlainLoader.yaml_implicit_resolvers = {}
    for name, pattern in PLAIN_SCALARS:
        # No first characters given: every plain scalar is matched against every pattern.
        PlainLoader.add_implicit_resolver(YAML_TAG + name, re.compile(pattern + r"\Z"), None)
    return PlainLoader


def _yaml_1_1_tag(node: Node) -> str:
    """The tag YAML 1.1 (yaml.SafeLoader's resolver) gives the plain scalar `node`."""
    tag: str = Resolver().resolve(ScalarNode, node.value, (True, False))  # type: ignore[no-untyped-call]
    return tag


def _check_nodes(node: Node, path: list[str | int], seen: set[int], source: str) -> None:
    """Plain values only: no tags beyond YAML's own scalars and collections, no aliases,
    string keys given once, no plain scalar YAML 1.1 would read otherwise. Checked on the
    node tree, before any object is constructed."""
    where = key_path(path)
    if id(node) in seen:
        raise InputError(source, f"{where}: YAML aliases are not allowed in a policy file")
    seen.add(id(node))
    line = node.start_mark.line + 1 if node.start_mark is not None else 0
    if node.tag not in PLAIN_TAGS:
        raise InputError(
            source,
            f"{where}: the YAML tag {_tag(node.tag)} (line {line}) is not allowed; "
            "a policy file holds plain values only",
        )
    if isinstance(node, ScalarNode) and node.style is None:
        older = _yaml_1_1_tag(node)
        if older != node.tag:
            raise InputError(
                source,
                f"{where}: YAML 1.1 reads the plain value {node.value[:60]!r} (line {line}) "
                f"as {_tag(older)}, other YAML readers as {_tag(node.tag)}; quote it, or "
                "write a plain decimal number or true/false",
            )
    if node.tag == YAML_TAG + "int" and len(node.value) > MAX_INTEGER_CHARS:
        # Python refuses to build an int from thousands of digits; say so before it tries.
        raise InputError(
            source, f"{where}: expected an integer, got a number {len(node.value)} characters long"
        )
    if isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            _check_nodes(item, [*path, index], seen, source)
    elif isinstance(node, MappingNode):
        keys: set[str] = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode) or key_node.tag != YAML_TAG + "str":
                shown = f": {key_node.value!r}" if isinstance(key_node, ScalarNode) else ""
                key_line = key_node.start_mark.line + 1 if key_node.start_mark is not None else 0
                raise InputError(
                    source, f"{where}: a key (line {key_line}) is not a plain string{shown}"
                )
            key = key_node.value
            if key in keys:
                raise InputError(source, f"{key_path([*path, key])}: the key is given twice")
            keys.add(key)
            _check_nodes(value_node, [*path, key], seen, source)


def load_yaml(data: bytes, source: str) -> object:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(source, f"not UTF-8 ({error.reason} at byte {error.start})") from None
    try:
        return _safe_load(text, source)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        what = ", ".join(part for part in (error.context, error.problem) if part)
        raise InputError(source, f"not valid YAML: {what}{where}") from None
    except yaml.YAMLError as error:
        raise InputError(source, f"not valid YAML: {error}") from None


def _safe_load(text: str, source: str) -> object:
    """yaml.safe_load in its two halves, so that the node tree is checked first."""
    loader = _loader()(text, source)
    try:
        node = loader.get_single_node()
        if node is None:
            raise InputError(source, "the policy file is empty; write {} to take every default")
        _check_nodes(node, [], set(), source)
        return loader.construct_document(node)
    finally:
        loader.dispose()
