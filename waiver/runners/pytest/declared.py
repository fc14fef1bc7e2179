"""The tests a Python test module declares, read from its syntax tree alone: the ids pytest
gives them, where the module's text spells them whole.

The plan of a change's tests (`waiver.gate.change_plan`) takes its new tests from here as
well as from its registry, so that a new test the change did not list still gets red-green
replays. pytest's default rules name the tests: a module-level function whose name starts
with `test`, and such a method of a module-level class whose name starts with `Test` and
that defines no `__init__`. A parametrized test (a `parametrize` mark on it, its class or
its module's `pytestmark`) has ids its values decide, and is left out, as is what another
`python_functions` or `python_classes`, or a plugin, collects: each still runs in the
change's own run of its file, and its row says it was not replayed on the base.
"""

from __future__ import annotations

import ast
from typing import TypeGuard

from waiver.read.harness.named import MAX_MODULE_BYTES
from waiver.read.trusted.trees import FileTree

MARKS = "pytestmark"
PARAMETRIZE = "parametrize"


def declared_tests(tree: FileTree, path: str) -> list[str]:
    """The ids of the tests the module at `path` of `tree` declares, in its order; none for
    a module that is absent or does not parse."""
    data = tree.read(path, MAX_MODULE_BYTES)
    if data is None:
        return []
    try:
        module = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    if _parametrized(module.body):
        return []
    found: list[str] = []
    for statement in module.body:
        if _is_test(statement):
            found.append(f"{path}::{statement.name}")
        elif _is_test_class(statement):
            found += [
                f"{path}::{statement.name}::{method.name}"
                for method in statement.body
                if _is_test(method)
            ]
    return found


def _is_test(node: ast.stmt) -> TypeGuard[ast.FunctionDef | ast.AsyncFunctionDef]:
    return (
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test")
        and not _names_parametrize(node.decorator_list)
    )


def _is_test_class(node: ast.stmt) -> TypeGuard[ast.ClassDef]:
    return (
        isinstance(node, ast.ClassDef)
        and node.name.startswith("Test")
        and not _names_parametrize(node.decorator_list)
        and not _parametrized(node.body)
        and not any(isinstance(s, ast.FunctionDef) and s.name == "__init__" for s in node.body)
    )


def _parametrized(body: list[ast.stmt]) -> bool:
    """Whether a module's or a class's `pytestmark` names `parametrize`."""
    for statement in body:
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            continue
        named = any(isinstance(target, ast.Name) and target.id == MARKS for target in targets)
        if named and _names_parametrize([value]):
            return True
    return False


def _names_parametrize(nodes: list[ast.expr]) -> bool:
    return any(
        (isinstance(node, ast.Attribute) and node.attr == PARAMETRIZE)
        or (isinstance(node, ast.Name) and node.id == PARAMETRIZE)
        for expression in nodes
        for node in ast.walk(expression)
    )
