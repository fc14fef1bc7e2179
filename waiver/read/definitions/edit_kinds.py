"""The words edit findings are said in: each kind of edit as waiver.json names it, a finding,
and the small readings of a syntax tree that the findings share."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal, get_args

# Every kind of finding, as waiver.json names it.
EditKind = Literal[
    "assertion_removed",
    "comparison_loosened",
    "expected_value_changed",
    "mark_added",
    "parametrize_cases_removed",
    "early_return",
    "assertion_in_try",
    "mocked",
    "tautology",
    "assertion_cannot_fail",
]
KINDS: tuple[EditKind, ...] = get_args(EditKind)


@dataclass(frozen=True, order=True)
class EditFinding:
    """One named kind of edit, and a few words on where it is."""

    kind: EditKind
    detail: str


def dotted(node: ast.AST) -> str:
    """`pytest.mark.skip` of an attribute chain, '' for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    parts.append(node.id)
    return ".".join(reversed(parts))


def own_nodes(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every node of a test's body that runs as the test's own code: a nested function or
    lambda is not walked (its `return` is not the test's)."""
    nested = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    pending = [node for node in nodes if not isinstance(node, nested)]
    while pending:
        node = pending.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, nested):
                pending.append(child)


def short_text(node: ast.AST, limit: int = 120) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
