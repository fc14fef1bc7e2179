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
  may no longer run;
- `tautology` and `assertion_cannot_fail`: an assertion that holds by its own form, or
  that never runs (`waiver.runners.pytest.tautologies`).

An edit of another kind (a helper it calls, its class, a fixture) is just `edited`. Names
and layout play no part where they can be told apart: a renamed local or a reformatted
test is no finding.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from waiver.read.definitions.edit_kinds import EditFinding, dotted, own_nodes, short_text
from waiver.read.trusted.protected import Committed
from waiver.runners.pytest.assertions import assertion_findings, assertions
from waiver.runners.pytest.scope import Definition, ModuleScope, dump
from waiver.runners.pytest.sources import PARAMETERS, Parsed, Sources
from waiver.runners.pytest.tautologies import tautology_findings

WATCHED_MARKS = frozenset({"skip", "skipif", "xfail", "timeout"})
SKIP_CALLS = frozenset({"pytest.skip", "pytest.xfail", "skip", "xfail"})
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
    for node in own_nodes(body):
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
    return sum(isinstance(node, ast.Return) for node in own_nodes(body))


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
        for node in own_nodes(body)
        if isinstance(node, ast.Try | ast.TryStar | ast.With | ast.AsyncWith) and _suppresses(node)
    )


def _mocks(nodes: Iterable[ast.AST]) -> Counter[str]:
    found: Counter[str] = Counter()
    for node in own_nodes(nodes):
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func)
        parts = name.split(".")
        if any(".".join(parts[i:]) in MOCK_CALLS for i in range(len(parts))):
            found[short_text(node, 80)] += 1
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
    found += assertion_findings(before, after)
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
    found += tautology_findings(old_body, new_body)
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
