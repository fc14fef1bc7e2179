"""JavaScript and TypeScript read by a real parser: tree-sitter, with its JavaScript and
TypeScript grammars. Nothing here runs the code it reads.

A JSON file with comments (`tsconfig.json`, `.babelrc`) is read as the JavaScript
expression it is, so one parser serves configuration and code alike.

The parser keeps about a hundred bytes for each node of a tree, and a byte of source can be
a node (`[[[[`, `0,0,0`), so a tree past MAX_NODES is an input error naming its file; what
walks a tree here never recurses, so its depth costs nothing more than its nodes.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import tree_sitter_javascript
import tree_sitter_typescript
from tree_sitter import Language, Node, Parser

from waiver.errors import InputError

TYPESCRIPT_SUFFIXES = (".ts", ".cts", ".mts")
TSX_SUFFIX = ".tsx"
# The calls that load a module by name: `require("x")`, `import("x")`, `require.resolve("x")`.
LOADERS = frozenset({"require", "import", "require.resolve", "jest.requireActual"})
# About four megabytes of real code, a tenth of that of nested brackets.
MAX_NODES = 1_000_000


@cache
def _parser(grammar: str) -> Parser:
    if grammar == "typescript":
        language = Language(tree_sitter_typescript.language_typescript())
    elif grammar == "tsx":
        language = Language(tree_sitter_typescript.language_tsx())
    else:
        language = Language(tree_sitter_javascript.language())
    return Parser(language)


def grammar_of(path: str) -> str:
    if path.endswith(TYPESCRIPT_SUFFIXES):
        return "typescript"
    return "tsx" if path.endswith(TSX_SUFFIX) else "javascript"


def _bounded(root: Node, path: str) -> Node:
    if root.descendant_count > MAX_NODES:
        raise InputError(path, f"its syntax tree holds more than {MAX_NODES:,} nodes")
    return root


def parse(data: bytes, path: str) -> Node:
    """The syntax tree of a module, by the grammar its name asks for."""
    return _bounded(_parser(grammar_of(path)).parse(data).root_node, path)


def parse_json(data: bytes, path: str) -> Node:
    """The syntax tree of a JSON (or JSON-with-comments) document, as a JavaScript
    expression."""
    return _bounded(_parser("javascript").parse(b"(" + data + b"\n)").root_node, path)


def text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def walk(node: Node) -> Iterator[Node]:
    """Every node under `node`, itself first, in source order."""
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(reversed(current.children))


# What a one-character escape of a JavaScript string stands for.
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def _unescaped(part: Node) -> str:
    """A string's part as the value holds it: an escape sequence decoded (a backslash and
    a dot stand for a dot, two backslashes for one)."""
    found = text(part)
    if part.type != "escape_sequence" or len(found) < 2:
        return found
    body = found[1:]
    if body[0] in "xu" and len(body) > 1:
        digits = body[1:].strip("{}")
        try:
            return chr(int(digits, 16))
        except (ValueError, OverflowError):
            return found
    if body in ("\n", "\r\n", "\r"):
        return ""  # a line continuation
    return ESCAPES.get(body, body if len(body) == 1 else "")


def literal(node: Node) -> str | None:
    """The value of a string literal, or a template without substitutions, its escape
    sequences decoded; None for anything else."""
    if node.type == "string":
        return "".join(_unescaped(part) for part in node.named_children)
    if node.type == "template_string" and not any(
        part.type == "template_substitution" for part in node.named_children
    ):
        return "".join(_unescaped(part) for part in node.named_children)
    return None


def strings(node: Node) -> Iterator[str]:
    """Every literal string under `node`."""
    for found in walk(node):
        value = literal(found)
        if value is not None:
            yield value


def _key_of(pair: Node) -> str:
    key = pair.child_by_field_name("key")
    if key is None:
        return ""
    value = literal(key)
    return text(key) if value is None else value


def keyed_strings(node: Node) -> Iterator[tuple[tuple[str, ...], str]]:
    """Every literal string under `node` that is a value, with the keys of the object
    properties it sits in, outermost first (`("test", "setupFiles")`); the keys themselves
    are not among them."""
    for found in walk(node):
        value = literal(found)
        if value is None:
            continue
        keys: list[str] = []
        child, parent = found, found.parent
        while parent is not None:
            if parent.type == "pair":
                if parent.child_by_field_name("key") == child:
                    break  # a property's name, not a value
                keys.append(_key_of(parent))
            child, parent = parent, parent.parent
        else:
            yield tuple(reversed(keys)), value


def _first_argument(call: Node) -> Node | None:
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return None
    named = [child for child in arguments.named_children if child.type != "comment"]
    return named[0] if named else None


def loads(node: Node) -> Iterator[tuple[str | None, int]]:
    """Each module the code under `node` loads by name, with its line (1-based): the
    source of an `import`/`export … from`, and the argument of `require`, `import()`,
    `require.resolve`; None for a name that is computed, not a literal."""
    for found in walk(node):
        line = found.start_point[0] + 1
        if found.type in ("import_statement", "export_statement"):
            source = found.child_by_field_name("source")
            if source is not None:
                yield literal(source), line
        elif found.type == "call_expression":
            function = found.child_by_field_name("function")
            if function is None or text(function) not in LOADERS:
                continue
            argument = _first_argument(found)
            yield (None if argument is None else literal(argument)), line
