"""The assertions of a test, read from its syntax tree (`assert`, unittest's `self.assert…`),
and what became of them between the two commits: removed, loosened, or comparing other
values."""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterable
from dataclasses import dataclass

from waiver.read.definitions.edit_kinds import EditFinding, dotted, own_nodes, short_text
from waiver.runners.pytest.scope import dump

# `approx`'s own tolerance when none is given.
APPROX_DEFAULTS = {"rel": 1e-6, "abs": 1e-12}
STRICT_OPERATORS = frozenset({"==", "is", "== approx"})
# unittest's assertions, as the comparison they make.
UNITTEST = {
    "assertEqual": "==",
    "assertEquals": "==",
    "assertIs": "is",
    "assertAlmostEqual": "== approx",
    "assertNotEqual": "!=",
    "assertIn": "in",
    "assertNotIn": "not in",
    "assertIsNot": "is not",
    "assertIsNotNone": "is not None",
    "assertIsNone": "is None",
    "assertTrue": "truthy",
    "assertFalse": "falsy",
    "assertGreater": ">",
    "assertGreaterEqual": ">=",
    "assertLess": "<",
    "assertLessEqual": "<=",
    "assertIsInstance": "isinstance",
    "assertCountEqual": "count equal",
    "assertRegex": "matches",
}
OPERATORS: dict[type[ast.cmpop], str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Lt: "<",
    ast.LtE: "<=",
}


@dataclass(frozen=True)
class Assertion:
    subject: str  # the dump of what is checked, `slugify(x)` of `slugify(x) == y`
    operator: str  # `==`, `in`, `is not None`, `truthy`, …
    expected: ast.AST | None  # what it is compared with
    node: ast.AST  # the whole assertion

    def shape(self) -> str:
        """The assertion with every literal value blanked: equal shapes, other values."""
        blank = copy.deepcopy(self.node)
        for inner in ast.walk(blank):
            if isinstance(inner, ast.Constant):
                inner.value = None
        return dump(blank)


def _compare(subject: ast.expr, op: ast.cmpop, right: ast.expr) -> tuple[str, ast.expr | None]:
    name = OPERATORS.get(type(op), "compares")
    if isinstance(right, ast.Constant) and right.value is None and name in ("is", "is not"):
        return f"{name} None", None
    if name == "==" and _is_approx(right):
        return "== approx", right
    if name == "==" and _is_approx(subject):
        return "== approx", subject
    return name, right


def _is_approx(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and dotted(node.func).rpartition(".")[2] == "approx"


def _assertion(node: ast.AST) -> Assertion | None:
    if isinstance(node, ast.Assert):
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            operator, expected = _compare(test.left, test.ops[0], test.comparators[0])
            subject = test.comparators[0] if _is_approx(test.left) else test.left
            return Assertion(dump(subject), operator, expected, node)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return Assertion(dump(test.operand), "falsy", None, node)
        if isinstance(test, ast.Call) and dotted(test.func) == "isinstance" and test.args:
            return Assertion(dump(test.args[0]), "isinstance", None, node)
        return Assertion(dump(test), "truthy", None, node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        method = node.func.attr
        if dotted(node.func.value) == "self" and method in UNITTEST and node.args:
            expected = node.args[1] if len(node.args) > 1 else None
            return Assertion(dump(node.args[0]), UNITTEST[method], expected, node)
    return None


def assertions(nodes: Iterable[ast.AST]) -> list[Assertion]:
    found = (_assertion(node) for node in own_nodes(nodes))
    return sorted(
        (a for a in found if a is not None),
        key=lambda a: (getattr(a.node, "lineno", 0), getattr(a.node, "col_offset", 0)),
    )


def _tolerance(node: ast.AST | None) -> dict[str, float] | None:
    """The tolerances an `approx(…)` call gives, where they are literal numbers."""
    if not isinstance(node, ast.Call):
        return None
    found = dict(APPROX_DEFAULTS)
    for keyword in node.keywords:
        if keyword.arg in found:
            value = keyword.value
            if not (isinstance(value, ast.Constant) and isinstance(value.value, int | float)):
                return None
            found[keyword.arg] = float(value.value)
    if len(node.args) > 2:  # approx(expected, rel, abs)
        for name, value in zip(("rel", "abs"), node.args[1:3], strict=False):
            if not (isinstance(value, ast.Constant) and isinstance(value.value, int | float)):
                return None
            found[name] = float(value.value)
    return found


def _loosened(old: Assertion, new: Assertion) -> str | None:
    if old.operator in STRICT_OPERATORS and new.operator not in STRICT_OPERATORS:
        return f"`{old.operator}` became `{new.operator}`"
    if old.operator == new.operator == "== approx":
        before, after = _tolerance(old.expected), _tolerance(new.expected)
        if before is not None and after is not None:
            wider = [name for name in ("rel", "abs") if after[name] > before[name]]
            if wider:
                return (
                    f"`approx` tolerance {wider[0]} {before[wider[0]]:g} became {after[wider[0]]:g}"
                )
    return None


def assertion_findings(old: list[Assertion], new: list[Assertion]) -> list[EditFinding]:
    """Loosened comparisons and changed expected values, on assertions paired by their
    subject, or by position and shape where the subject's literals changed too."""
    found = []
    by_subject: dict[str, list[Assertion]] = {}
    for assertion in new:
        by_subject.setdefault(assertion.subject, []).append(assertion)
    pairs = []
    for before in old:
        candidates = by_subject.get(before.subject)
        if candidates:
            pairs.append((before, candidates.pop(0)))
    if not pairs and len(old) == len(new):
        pairs = [(b, a) for b, a in zip(old, new, strict=True) if b.shape() == a.shape()]
    for before, after in pairs:
        loosened = _loosened(before, after)
        if loosened is not None:
            found.append(EditFinding("comparison_loosened", loosened))
        elif (
            dump(before.node) != dump(after.node)
            and before.shape() == after.shape()
            and not _same_approx_value(before, after)
        ):
            found.append(
                EditFinding(
                    "expected_value_changed",
                    f"`{short_text(before.node)}` became `{short_text(after.node)}`",
                )
            )
    return found


def _same_approx_value(before: Assertion, after: Assertion) -> bool:
    """Whether only an `approx`'s tolerance changed (a wider one is loosened, a tighter one
    no finding)."""
    old, new = before.expected, after.expected
    return (
        before.operator == after.operator == "== approx"
        and isinstance(old, ast.Call)
        and isinstance(new, ast.Call)
        and bool(old.args)
        and bool(new.args)
        and dump(old.args[0]) == dump(new.args[0])
    )
