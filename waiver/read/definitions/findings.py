"""What kind of edit a change made to a test, named from the two syntax trees of its
definition: the weakenings a reviewer should look for first.

Each finding compares the test's own function on the trusted revision with the change's
(its decorators and its body). The kinds:

- `assertion_removed`: fewer assertions (`assert`, `self.assert…`) than before;
- `comparison_loosened`: an assertion on the same subject that compared with `==` (or
  `is`) now checks less: `in`, `is not None`, `>=`, `!=`, a bare truth test; or an
  `approx` with a wider tolerance;
- `expected_value_changed`: the same assertion with other literal values;
- `mark_added`: a `skip`, `skipif`, `xfail` or `timeout` mark (on the test, its class, or
  the `pytestmark` of either or of its module), or a `pytest.skip()` or `pytest.xfail()`
  call, that was not there;
- `parametrize_cases_removed`: a literal `parametrize` list with fewer cases (in the
  decorator, or bound to a module-level name);
- `early_return`: a `return` in the test that was not there;
- `assertion_in_try`: an assertion newly inside `try`/`except` or `contextlib.suppress`;
- `mocked`: a new `patch`, `monkeypatch.setattr`, `Mock` or the like: the code under test
  may no longer run.

An edit of another kind (a helper it calls, its class, a fixture) is just `edited`. Names
and layout play no part where they can be told apart: a renamed local or a reformatted
test is no finding.
"""

from __future__ import annotations

import ast
import copy
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

from waiver.read.definitions.scope import Definition, ModuleScope, dump
from waiver.read.definitions.sources import PARAMETERS, Parsed, Sources
from waiver.read.trusted.protected import Committed

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
]
KINDS: tuple[EditKind, ...] = get_args(EditKind)
WATCHED_MARKS = frozenset({"skip", "skipif", "xfail", "timeout"})
SKIP_CALLS = frozenset({"pytest.skip", "pytest.xfail", "skip", "xfail"})
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
MOCK_CALLS = frozenset(
    {
        "patch",
        "patch.object",
        "patch.dict",
        "patch.multiple",
        "monkeypatch.setattr",
        "monkeypatch.setitem",
        "monkeypatch.delattr",
        "Mock",
        "MagicMock",
        "AsyncMock",
        "create_autospec",
    }
)


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


def _own_nodes(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
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
    found = (_assertion(node) for node in _own_nodes(nodes))
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


def _compared(old: list[Assertion], new: list[Assertion]) -> list[EditFinding]:
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
                    f"`{_text(before.node)}` became `{_text(after.node)}`",
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


def _text(node: ast.AST, limit: int = 120) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _mark(decorator: ast.expr) -> str | None:
    """The mark's name of `@pytest.mark.NAME` or `@pytest.mark.NAME(…)`."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = dotted(target)
    prefix, _, mark = name.rpartition(".")
    if prefix in ("pytest.mark", "mark"):
        return mark
    return None


def _marks(decorators: Iterable[ast.expr], body: Iterable[ast.AST]) -> Counter[str]:
    marks = Counter(
        f"@pytest.mark.{mark}"
        for mark in map(_mark, decorators)
        if mark is not None and mark in WATCHED_MARKS
    )
    for node in _own_nodes(body):
        if isinstance(node, ast.Call) and dotted(node.func) in SKIP_CALLS:
            marks[f"{dotted(node.func)}() in its body"] += 1
    return marks


def _cases(decorators: Iterable[ast.expr], lists: Mapping[str, ast.expr]) -> dict[str, int]:
    """The number of literal cases of each `parametrize`, by its argument names: a list
    written in the decorator, or one a module-level name is bound to."""
    found = {}
    for decorator in decorators:
        if not (isinstance(decorator, ast.Call) and _mark(decorator) == "parametrize"):
            continue
        names = decorator.args[0] if decorator.args else None
        values = decorator.args[1] if len(decorator.args) > 1 else None
        for keyword in decorator.keywords:
            if keyword.arg == "argnames":
                names = keyword.value
            elif keyword.arg == "argvalues":
                values = keyword.value
        if isinstance(values, ast.Name):
            values = lists.get(values.id)
        if names is not None and isinstance(values, ast.List | ast.Tuple | ast.Set):
            found[dump(names)] = len(values.elts)
    return found


def _returns(body: Iterable[ast.AST]) -> int:
    return sum(isinstance(node, ast.Return) for node in _own_nodes(body))


def _suppresses(node: ast.AST) -> bool:
    """A `try` with a handler, or a `with suppress(…)`: what fails inside may not fail it."""
    if isinstance(node, ast.Try | ast.TryStar):
        return bool(node.handlers)
    return isinstance(node, ast.With | ast.AsyncWith) and any(
        isinstance(item.context_expr, ast.Call)
        and dotted(item.context_expr.func).rpartition(".")[2] == "suppress"
        for item in node.items
    )


def _guarded(body: Iterable[ast.AST]) -> int:
    """Assertions inside a `try` that has a handler, or a `with suppress(…)`."""
    return sum(
        len(assertions(node.body))
        for node in _own_nodes(body)
        if isinstance(node, ast.Try | ast.TryStar | ast.With | ast.AsyncWith) and _suppresses(node)
    )


def _mocks(nodes: Iterable[ast.AST]) -> Counter[str]:
    found: Counter[str] = Counter()
    for node in _own_nodes(nodes):
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func)
        parts = name.split(".")
        if any(".".join(parts[i:]) in MOCK_CALLS for i in range(len(parts))):
            found[_text(node, 80)] += 1
    return found


def _parts(node: Definition) -> tuple[list[ast.expr], list[ast.AST]]:
    return node.decorator_list, list(node.body)


@dataclass(frozen=True)
class Around:
    """What around a test's function can mark it or hold its cases: the decorators of its
    classes and the `pytestmark` of its classes and module, and the module-level names
    bound to a literal list."""

    marks: tuple[ast.expr, ...] = ()
    lists: Mapping[str, ast.expr] = field(default_factory=dict)


def _pytestmark(statements: Iterable[ast.stmt]) -> list[ast.expr]:
    found: list[ast.expr] = []
    for statement in statements:
        if isinstance(statement, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark"
            for target in statement.targets
        ):
            value = statement.value
            found += value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
    return found


def around(scope: ModuleScope, classes: Iterable[ast.ClassDef]) -> Around:
    marks = _pytestmark(scope.body)
    for node in classes:
        marks += [*node.decorator_list, *_pytestmark(node.body)]
    lists = {
        target.id: statement.value
        for statement in scope.body
        if isinstance(statement, ast.Assign)
        and isinstance(statement.value, ast.List | ast.Tuple | ast.Set)
        for target in statement.targets
        if isinstance(target, ast.Name)
    }
    return Around(tuple(marks), lists)


def name_edits(
    old: Definition, new: Definition, old_around: Around = Around(), new_around: Around = Around()
) -> tuple[EditFinding, ...]:
    """The named kinds of edit from a test's definition on the trusted revision to the
    change's (with what is around each); empty when none of the kinds is seen."""
    old_decorators, old_body = _parts(old)
    new_decorators, new_body = _parts(new)
    found: list[EditFinding] = []
    before, after = assertions(old_body), assertions(new_body)
    if len(after) < len(before):
        found.append(
            EditFinding("assertion_removed", f"{len(before)} assertions became {len(after)}")
        )
    found += _compared(before, after)
    added_marks = _marks([*new_decorators, *new_around.marks], new_body) - _marks(
        [*old_decorators, *old_around.marks], old_body
    )
    found += [EditFinding("mark_added", f"`{mark}`") for mark in sorted(added_marks)]
    old_cases = _cases(old_decorators, old_around.lists)
    for names, count in sorted(_cases(new_decorators, new_around.lists).items()):
        if names in old_cases and count < old_cases[names]:
            found.append(
                EditFinding("parametrize_cases_removed", f"{old_cases[names]} cases became {count}")
            )
    if _returns(new_body) > _returns(old_body):
        found.append(EditFinding("early_return", "a `return` that was not there"))
    if _guarded(new_body) > _guarded(old_body):
        found.append(EditFinding("assertion_in_try", "an assertion inside try/except"))
    added_mocks = _mocks([*new_decorators, *new_body]) - _mocks([*old_decorators, *old_body])
    found += [EditFinding("mocked", f"`{call}`") for call in sorted(added_mocks)]
    return tuple(dict.fromkeys(found))


def _definition(sources: Sources, definition_id: str) -> tuple[Definition, Around] | None:
    found = sources.definition(definition_id)
    if found is None:
        return None
    scope, classes, function = found
    return function, around(scope, classes)


def edit_findings(
    committed: Committed, edited: Mapping[str, object]
) -> dict[str, tuple[EditFinding, ...]]:
    """The named kinds of edit of each edited Python test id (parametrized ids share their
    definition's); an id whose definition is missing on either side has none, and so has
    one whose module the change did not touch (nothing of it is parsed)."""
    parsed = Parsed()
    trusted = Sources(committed.trusted, committed.changed, parsed)
    head = Sources(committed.head, committed.changed, parsed)
    named: dict[str, tuple[EditFinding, ...]] = {}
    by_definition: dict[str, tuple[EditFinding, ...]] = {}
    for test_id in edited:
        path = test_id.partition("::")[0]
        # A test whose own module the change left alone was edited through what it uses
        # (a helper module): its function, marks and cases are as they were.
        if not path.endswith(".py") or path not in committed.changed:
            named[test_id] = ()
            continue
        definition = PARAMETERS.sub("", test_id)
        if definition not in by_definition:
            old, new = _definition(trusted, definition), _definition(head, definition)
            by_definition[definition] = (
                () if old is None or new is None else name_edits(old[0], new[0], old[1], new[1])
            )
        named[test_id] = by_definition[definition]
    return named
