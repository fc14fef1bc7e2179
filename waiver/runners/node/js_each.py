"""The titles a `test.each` table gives its tests, as the runner writes them: each row of a
table written as an array literal (`test.each([[1, 2, 3], …])`, `it.each([{a: 1}, …])`,
vitest's `test.for`), put into the title's printf placeholders (`%s`, `%d`, `%i`, `%f`,
`%j`, `%#`, `%$`, `%%`) or its `$name` references to the row's keys, so that each row is a
test of its own: an edit of one row edits that test alone, and a row added is a new test.

jest formats a `$name` as pretty-format does (`"text"`), vitest as its inspector does
(`'text'`, and `+0` for zero). Only rows of literal numbers, strings, booleans, `null`
and `undefined` (in arrays and plain objects) are formatted; for any other row, or a
placeholder that is not formatted the same way by both runners (`%o`, `%p`), no title is
given, and the test is found by its title as a pattern, as a computed title is.
"""

from __future__ import annotations

import json
import math
import re

from tree_sitter import Node

from waiver.runners.node.syntax import literal, text

TABLE_METHODS = frozenset({"each", "for"})
PRINTF = re.compile(r"%[sdifjoOp#$%]")
VARIABLE = re.compile(r"\$([A-Za-z_]\w*(?:\.\w+)*)")
NUMBER_PLACEHOLDERS = frozenset({"%d", "%i", "%f"})


class NotLiteral(Exception):
    """A row or a value the runner would format in a way not followed here."""


def each_rows(call: Node) -> list[Node] | None:
    """The rows of a test whose table is an array literal; None for any other test."""
    function = call.child_by_field_name("function")
    if function is None or function.type != "call_expression":
        return None
    member = function.child_by_field_name("function")
    method = None if member is None else member.child_by_field_name("property")
    if member is None or member.type != "member_expression" or method is None:
        return None
    arguments = function.child_by_field_name("arguments")
    table = next(
        (c for c in (arguments.named_children if arguments else []) if c.type != "comment"),
        None,
    )
    if text(method) not in TABLE_METHODS or table is None or table.type != "array":
        return None
    return [row for row in table.named_children if row.type != "comment"]


def value_of(node: Node) -> object:
    """A literal's value: numbers, strings, booleans, null, undefined, and arrays and plain
    objects of them."""
    found = literal(node)
    if found is not None:
        return found
    if node.type == "number":
        number = float(text(node).replace("_", ""))
        return int(number) if number.is_integer() and "." not in text(node) else number
    if node.type in ("true", "false"):
        return node.type == "true"
    if node.type == "null":
        return None
    if node.type in ("undefined",) or (node.type == "identifier" and text(node) == "undefined"):
        return Undefined
    if node.type == "unary_expression" and text(node)[:1] == "-":
        inner = node.named_children[0] if node.named_children else None
        value = None if inner is None else value_of(inner)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return -value if value else -0.0
        raise NotLiteral
    if node.type == "array":
        return [value_of(item) for item in node.named_children if item.type != "comment"]
    if node.type == "object":
        table: dict[str, object] = {}
        for pair in node.named_children:
            if pair.type != "pair":
                raise NotLiteral
            key = pair.child_by_field_name("key")
            value = pair.child_by_field_name("value")
            if key is None or value is None:
                raise NotLiteral
            name = literal(key) if key.type == "string" else text(key)
            table[name or ""] = value_of(value)
        return table
    raise NotLiteral


class _Undefined:
    def __repr__(self) -> str:
        return "undefined"


Undefined = _Undefined()


def _number(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise NotLiteral
    if isinstance(value, float):
        if math.copysign(1.0, value) < 0 and value == 0:
            return "-0"
        if value.is_integer():
            return str(int(value))
    return repr(value)


def _plain(value: object) -> str:
    """A value as `%s` writes it: strings as they are, numbers as JavaScript prints them."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if value is Undefined:
        return "undefined"
    return _number(value)


def _shown(value: object, runner: str) -> str:
    """A `$name` value: jest's pretty-format, vitest's inspector."""
    if isinstance(value, str):
        return json.dumps(value) if runner == "jest" else "'" + value.replace("'", "\\'") + "'"
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if runner == "vitest" and number and value == 0:
        return "-0" if math.copysign(1.0, float(str(value))) < 0 else "+0"
    if isinstance(value, list | dict):
        raise NotLiteral
    return _plain(value)


def _printf(placeholder: str, value: object) -> str:
    if placeholder == "%s":
        return _plain(value)
    if placeholder in NUMBER_PLACEHOLDERS:
        number = _number(value)
        if placeholder == "%i":
            return str(math.trunc(float(number)))
        return number
    if placeholder == "%j":
        try:
            return json.dumps(_json(value), separators=(",", ":"))
        except TypeError:
            raise NotLiteral from None
    raise NotLiteral


def _json(value: object) -> object:
    """`value` as JSON.stringify reads it: a float that is a whole number is written as one."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_json(item) for item in value]
    if isinstance(value, dict):
        return {key: _json(item) for key, item in value.items()}
    return value


def row_title(template: str, row: Node, index: int, runner: str) -> str | None:
    """The title the runner gives the test of one row; None where it is not followed."""
    try:
        value = value_of(row)
    except NotLiteral:
        return None
    try:
        if isinstance(value, dict) and VARIABLE.search(template):
            return VARIABLE.sub(lambda match: _lookup(value, match[1], runner), template)
        arguments = iter(value if isinstance(value, list) else [value])

        def placeholder(match: re.Match[str]) -> str:
            found = match[0]
            if found == "%%":
                return "%"
            if found == "%#":
                return str(index)
            if found == "%$":
                return str(index + 1)
            following = next(arguments, Undefined)
            if following is Undefined and runner == "jest":
                raise NotLiteral
            return _printf(found, following)

        return PRINTF.sub(placeholder, template)
    except NotLiteral:
        return None


def _lookup(table: dict[str, object], path: str, runner: str) -> str:
    value: object = table
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            raise NotLiteral
        value = value[key]
    return _shown(value, runner)
