"""Assertions of a Python test that hold whatever the code under test does, read from its
syntax tree: the forms a loosened test takes when it keeps an assertion's look.

- `tautology`: the check is true by its own form: a truth test of what is always true
  (`x == 10 or True`, `[x == 10]`, `(x == 10, "msg")`, `… if False else True`), a value
  that is never None tested for None (`(x == 10) is not None`), a value compared with
  itself (`x == x`, `self.assertEqual(x, x)`), or with a `min`/`max` of itself (`x ==
  min(x, 10)` holds for every x up to 10, `min(x, 10) <= x` for all);
- `assertion_cannot_fail`: the assertion never runs: it sits in a loop over nothing (`for
  _ in []:`, `range(0)`), under `if False:` or `while False:`, or in the `else` of an `if`
  whose test is always true.

A finding is an assertion of one of these forms in the change's test that the trusted
revision's test does not have.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Iterator

from waiver.read.definitions.edit_kinds import EditFinding, dotted, short_text
from waiver.runners.pytest.assertions import UNITTEST
from waiver.runners.pytest.scope import dump

# The unittest assertions that hold when both arguments are the same value.
REFLEXIVE = frozenset(
    {"assertEqual", "assertEquals", "assertIs", "assertGreaterEqual", "assertLessEqual"}
    | {"assertAlmostEqual", "assertCountEqual"}
)
REFLEXIVE_OPERATORS = (ast.Eq, ast.Is, ast.GtE, ast.LtE)
# Expressions whose value is never None.
NEVER_NONE = (
    ast.Compare, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp,
    ast.DictComp, ast.GeneratorExp, ast.JoinedStr, ast.Lambda,
)  # fmt: skip
NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _constant(node: ast.AST) -> bool | None:
    """The truth of a literal: True or False where it is known without running, else None."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return bool(node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys)
    if isinstance(node, ast.JoinedStr):
        texts = [part for part in node.values if isinstance(part, ast.Constant)]
        return True if any(part.value for part in texts) else None
    if isinstance(node, ast.Lambda):
        return True
    return None


def truth(node: ast.AST) -> bool | None:
    """Whether `node` is always true (True), always false (False), or may be either (None)."""
    known = _constant(node)
    if known is not None:
        return known
    if isinstance(node, ast.NamedExpr):
        return truth(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = truth(node.operand)
        return None if inner is None else not inner
    if isinstance(node, ast.BoolOp):
        values = [truth(value) for value in node.values]
        wins = isinstance(node.op, ast.Or)  # True decides `or`, False decides `and`
        if wins in values:
            return wins
        return (not wins) if all(value is (not wins) for value in values) else None
    if isinstance(node, ast.IfExp):
        test = truth(node.test)
        if test is not None:
            return truth(node.body if test else node.orelse)
        body, orelse = truth(node.body), truth(node.orelse)
        return body if body == orelse else None
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return _compared(node.left, node.ops[0], node.comparators[0])
    return None


def _compared(left: ast.expr, op: ast.cmpop, right: ast.expr) -> bool | None:
    none = isinstance(right, ast.Constant) and right.value is None
    if none and isinstance(op, ast.IsNot | ast.Is) and isinstance(left, NEVER_NONE):
        return isinstance(op, ast.IsNot)
    if isinstance(op, REFLEXIVE_OPERATORS) and dump(left) == dump(right):
        return True
    if _bounded_by_itself(left, op, right):
        return True
    return None


def _extreme_of(node: ast.AST, value: ast.AST) -> str | None:
    """`min` or `max` when `node` is such a call with `value` among its arguments."""
    if not (isinstance(node, ast.Call) and dotted(node.func) in ("min", "max")):
        return None
    return dotted(node.func) if dump(value) in map(dump, node.args) else None


def _bounded_by_itself(left: ast.expr, op: ast.cmpop, right: ast.expr) -> bool:
    """`min(x, …) <= x`, `x <= max(x, …)` and their mirrors: always true."""
    low, high = (left, right) if isinstance(op, ast.LtE) else (right, left)
    if not isinstance(op, ast.LtE | ast.GtE):
        return False
    return _extreme_of(low, high) == "min" or _extreme_of(high, low) == "max"


def _self_referential(left: ast.expr, right: ast.expr) -> bool:
    """`x == min(x, 10)`: the expected value is computed from the value checked."""
    return _extreme_of(right, left) is not None or _extreme_of(left, right) is not None


def _tautology(node: ast.AST) -> str | None:
    """Why the assertion `node` holds by its form; None when it can fail."""
    if isinstance(node, ast.Assert):
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, op, right = test.left, test.ops[0], test.comparators[0]
            if isinstance(op, REFLEXIVE_OPERATORS) and dump(left) == dump(right):
                return "compares a value with itself"
            if isinstance(op, ast.Eq) and _self_referential(left, right):
                return "compares a value with one computed from itself"
        return "is true whatever the code does" if truth(test) is True else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        method = node.func.attr
        if dotted(node.func.value) != "self" or method not in UNITTEST or not node.args:
            return None
        first = node.args[0]
        if method in REFLEXIVE and len(node.args) > 1 and dump(first) == dump(node.args[1]):
            return "compares a value with itself"
        pair = method == "assertEqual" and len(node.args) > 1
        if pair and _self_referential(first, node.args[1]):
            return "compares a value with one computed from itself"
        wanted = {"assertTrue": True, "assertFalse": False}.get(method)
        if wanted is not None and truth(first) is wanted:
            return "is true whatever the code does"
        if method == "assertIsNotNone" and isinstance(first, NEVER_NONE):
            return "tests for None a value that is never None"
    return None


def _is_assertion(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        return True
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in UNITTEST
        and dotted(node.func.value) == "self"
    )


def _dead(statement: ast.AST) -> Iterator[tuple[list[ast.stmt], str]]:
    """The blocks of `statement` that never run, each with the words for why."""
    if isinstance(statement, ast.For | ast.AsyncFor):
        source = statement.iter
        empty = _constant(source) is False or (
            isinstance(source, ast.Call)
            and dotted(source.func) == "range"
            and len(source.args) == 1
            and isinstance(source.args[0], ast.Constant)
            and source.args[0].value == 0
        )
        if empty:
            yield statement.body, f"inside `for … in {short_text(statement.iter, 40)}`"
    elif isinstance(statement, ast.While) and truth(statement.test) is False:
        yield statement.body, f"inside `while {short_text(statement.test, 40)}`"
    elif isinstance(statement, ast.If):
        test = truth(statement.test)
        if test is False:
            yield statement.body, f"inside `if {short_text(statement.test, 40)}`"
        elif test is True and statement.orelse:
            yield statement.orelse, f"in the `else` of `if {short_text(statement.test, 40)}`"


def _walk(body: Iterable[ast.AST]) -> Iterator[tuple[ast.AST, str | None]]:
    """Every node of a test's own code, with why it never runs (None when it may)."""
    pending: list[tuple[ast.AST, str | None]] = [(node, None) for node in body]
    while pending:
        node, never = pending.pop()
        if isinstance(node, NESTED):
            continue
        yield node, never
        dead = {id(s): why for block, why in _dead(node) for s in block} if never is None else {}
        pending += [(child, never or dead.get(id(child))) for child in ast.iter_child_nodes(node)]


def _findings(body: Iterable[ast.AST]) -> Counter[EditFinding]:
    found: Counter[EditFinding] = Counter()
    for node, never in _walk(body):
        if not _is_assertion(node):
            continue
        shown = short_text(node, 80)
        if never is not None:
            found[EditFinding("assertion_cannot_fail", f"`{shown}` never runs: {never}")] += 1
            continue
        why = _tautology(node)
        if why is not None:
            found[EditFinding("tautology", f"`{shown}` {why}")] += 1
    return found


def tautology_findings(old: Iterable[ast.AST], new: Iterable[ast.AST]) -> list[EditFinding]:
    """The tautologies and the assertions that never run that `new` (the change's test's
    own code) has and `old` (the trusted revision's) does not."""
    return sorted((_findings(new) - _findings(old)).keys())
