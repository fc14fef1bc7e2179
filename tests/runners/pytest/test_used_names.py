"""`used_names`, the walk edited-test detection spends most of its time in, reads what a
plain walk of the syntax tree reads: every name, every attribute of a name, every argument
name and a `:=`, on real modules and on the statements whose fields hold things that are
not nodes."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest

import waiver
from waiver.runners.pytest.scope import WALRUS, used_names

STATEMENTS = textwrap.dedent(
    """
    def f(a, /, b: int = c, *d, e=g, **h):
        global counter
        nonlocal_free = {None: 1, **table, key: value}
        if (n := len(items)) > limit:
            return [x.y for x in helpers.values if x]
        match point:
            case Point(x=0, y=yy) as p if p.z:
                del cache[p]
            case {"k": kk, **rest}:
                pass
        with ctx() as (one, *two):
            yield from other.stream
        lambda q: q + closure
    """
)


def walked(node: ast.AST) -> tuple[set[str], set[tuple[str, str]]]:
    """What `used_names` reads, by `ast.walk`: the reference it must agree with."""
    names: set[str] = set()
    attributes: set[tuple[str, str]] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            names.add(inner.id)
        elif isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name):
            attributes.add((inner.value.id, inner.attr))
        elif isinstance(inner, ast.arg):
            names.add(inner.arg)
        elif isinstance(inner, ast.NamedExpr):
            names.add(WALRUS)
    return names, attributes


def test_the_statements_whose_fields_hold_more_than_nodes() -> None:
    function = ast.parse(STATEMENTS).body[0]
    names, attributes = used_names(function)
    assert (names, attributes) == walked(function)
    assert {"a", "b", "c", "g", "table", "items", "point", "cache", WALRUS} <= names
    assert {("helpers", "values"), ("x", "y"), ("other", "stream"), ("p", "z")} <= attributes


@pytest.mark.parametrize(
    "package", [Path(waiver.__file__).parent, Path(json.__file__).parent], ids=["waiver", "json"]
)
def test_every_definition_of_real_modules(package: Path) -> None:
    definitions = [
        node
        for module in sorted(package.rglob("*.py"))
        for node in ast.walk(ast.parse(module.read_bytes()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]
    assert len(definitions) > 20
    for node in definitions:
        assert used_names(node) == walked(node), node.name
