"""Assertions of an edited JavaScript or TypeScript test that hold whatever the code under
test does, named as Python's are (`waiver.runners.pytest.tautologies`), from the test's
own call and callback (`waiver.runners.node.js_definitions`):

- `tautology`: `expect(x).toBe(x)` (a value compared with itself, by any equality matcher
  of jest, vitest or chai, or `assert.equal(x, x)`); an `expect` of literals alone
  (`expect(true).toBe(true)`, `expect(1 + 1).toEqual(2)`), which checks no code; a truth
  test of what is always true (`expect(x === 10 || true).toBe(true)`, `assert(true)`);
- `assertion_cannot_fail`: `expect(() => {}).not.toThrow()` around nothing, and any
  assertion in a block that never runs (`for (const _ of [])`, `if (false)`, `while (0)`,
  the `else` of `if (true)`).

A finding is one of these that the change's test has and the trusted revision's does not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping

from tree_sitter import Node

from waiver.read.definitions.edit_kinds import EditFinding
from waiver.read.trusted.protected import Committed
from waiver.runners.node.js_definitions import on_both, script_ids
from waiver.runners.node.js_tests import dump
from waiver.runners.node.syntax import literal, text

EQUALITY = frozenset(
    {"toBe", "toEqual", "toStrictEqual", "toMatchObject", "equal", "equals", "eq", "eql"}
    | {"deepEqual", "strictEqual", "deepStrictEqual", "sameMembers", "toBeCloseTo"}
)
TRUTHY = frozenset({"toBeTruthy", "toBeDefined", "ok", "isOk", "isTrue", "true"})
THROWS = frozenset({"toThrow", "toThrowError", "throw", "throws"})
# Identifiers that name a value, not code: a literal made of them checks nothing.
LITERAL_NAMES = frozenset({"undefined", "NaN", "Infinity"})
CODE_NODES = frozenset({"identifier", "shorthand_property_identifier", "this", "super"})
FUNCTIONS = frozenset({"arrow_function", "function_expression", "function"})
NESTED = FUNCTIONS | {"class", "class_declaration", "function_declaration"}
SHOWN = 80


def _shown(node: Node) -> str:
    words = " ".join(text(node).split())
    return words if len(words) <= SHOWN else words[: SHOWN - 1] + "…"


def _inner(node: Node) -> Node:
    """The expression inside parentheses, or inside a `for` header's condition."""
    while node.type in ("parenthesized_expression", "expression_statement") and node.named_children:
        node = node.named_children[0]
    return node


def truth(node: Node) -> bool | None:
    """Whether an expression is always truthy (True), always falsy (False), or may be either
    (None), from its form alone."""
    node = _inner(node)
    kind = node.type
    if kind == "true" or kind in FUNCTIONS or kind in ("array", "object", "class"):
        return True
    if kind in ("false", "null") or (kind == "identifier" and text(node) == "undefined"):
        return False
    if kind == "number":
        return text(node).rstrip("n") not in ("0", "0.0", ".0", "0x0", "0b0", "0o0")
    value = literal(node)
    if value is not None:
        return bool(value)
    if kind == "unary_expression" and text(node).startswith("!"):
        argument = node.child_by_field_name("argument")
        inner = None if argument is None else truth(argument)
        return None if inner is None else not inner
    if kind == "ternary_expression":
        return _ternary(node)
    if kind == "binary_expression":
        return _binary(node)
    return None


def _ternary(node: Node) -> bool | None:
    condition = node.child_by_field_name("condition")
    taken = [node.child_by_field_name(field) for field in ("consequence", "alternative")]
    test = None if condition is None else truth(condition)
    if test is not None:
        chosen = taken[0] if test else taken[1]
        return None if chosen is None else truth(chosen)
    values = {None if branch is None else truth(branch) for branch in taken}
    return values.pop() if len(values) == 1 else None


def _binary(node: Node) -> bool | None:
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    operator = node.child_by_field_name("operator")
    if left is None or right is None or operator is None:
        return None
    sign = text(operator)
    if sign in ("||", "&&"):
        values = [truth(left), truth(right)]
        wins = sign == "||"  # truthy decides `||`, falsy decides `&&`
        if wins in values:
            return wins
        return (not wins) if all(value is (not wins) for value in values) else None
    if dump(_inner(left)) == dump(_inner(right)):
        return {"===": True, "==": True, "<=": True, ">=": True, "!==": False}.get(sign)
    return None


def _checks_code(node: Node) -> bool:
    """Whether an expression names anything at all beyond literals."""
    pending = [node]
    while pending:
        current = pending.pop()
        if current.type in CODE_NODES and text(current) not in LITERAL_NAMES:
            return True
        pending.extend(current.children)
    return False


def _arguments(call: Node) -> list[Node]:
    found = call.child_by_field_name("arguments")
    return [] if found is None else [n for n in found.named_children if n.type != "comment"]


def _chain(node: Node) -> tuple[Node | None, list[str]]:
    """For `expect(x).not.to.equal(y)` read from its outer member: the `expect(x)` call and
    the words after it (`not`, `to`, `equal`); no call when it is no `expect` chain."""
    words: list[str] = []
    current: Node | None = node
    while current is not None:
        if current.type == "member_expression":
            member = current.child_by_field_name("property")
            words.insert(0, "" if member is None else text(member))
            current = current.child_by_field_name("object")
        elif current.type == "call_expression":
            function = current.child_by_field_name("function")
            if function is not None and function.type == "identifier":
                return (current if text(function) == "expect" else None), words
            current = function
        else:
            break
    return None, words


def _empty_function(node: Node) -> bool:
    node = _inner(node)
    if node.type not in FUNCTIONS:
        return False
    body = node.child_by_field_name("body")
    if body is None:
        return False
    if body.type == "statement_block":
        return not [child for child in body.named_children if child.type != "comment"]
    return not _checks_code(body)


def _expect_finding(node: Node) -> EditFinding | None:
    """What an `expect` chain (`node`, its outermost call or member) asserts by its form."""
    target = node.child_by_field_name("function") if node.type == "call_expression" else node
    if target is None or target.type != "member_expression":
        return None
    found, words = _chain(target)
    if found is None or not words:
        return None
    subject = next(iter(_arguments(found)), None)
    if subject is None:
        return None
    matcher, negated = words[-1], "not" in words[:-1]
    expected = _arguments(node) if node.type == "call_expression" else []
    shown = _shown(node)
    if matcher in THROWS and negated and _empty_function(subject):
        return EditFinding(
            "assertion_cannot_fail", f"`{shown}` checks a function that does nothing"
        )
    if _inner(subject).type not in FUNCTIONS and not _checks_code(subject):
        return EditFinding("tautology", f"`{shown}` checks literals, not the code")
    if matcher in EQUALITY and not negated and expected and dump(subject) == dump(expected[0]):
        return EditFinding("tautology", f"`{shown}` compares a value with itself")
    truthy = matcher in TRUTHY or (
        matcher in EQUALITY and expected and _inner(expected[0]).type == "true"
    )
    if truthy and not negated and truth(subject) is True:
        return EditFinding("tautology", f"`{shown}` is true whatever the code does")
    return None


def _assert_finding(call: Node) -> EditFinding | None:
    """What a call of node's or chai's `assert` (`assert(x)`, `assert.equal(x, y)`)
    asserts by its form."""
    function = call.child_by_field_name("function")
    if function is None:
        return None
    name = text(function)
    arguments = _arguments(call)
    if not arguments or not (name == "assert" or name.startswith("assert.")):
        return None
    method = name.partition(".")[2]
    shown = _shown(call)
    if method in EQUALITY and len(arguments) > 1 and dump(arguments[0]) == dump(arguments[1]):
        return EditFinding("tautology", f"`{shown}` compares a value with itself")
    if method in ("", *TRUTHY) and truth(arguments[0]) is True:
        return EditFinding("tautology", f"`{shown}` is true whatever the code does")
    return None


def _is_assertion(node: Node) -> bool:
    """An `assert…` call, the outer call of an `expect` chain, or a chai property assertion
    (`expect(x).to.be.true;`)."""
    if node.type == "call_expression":
        function = node.child_by_field_name("function")
        name = "" if function is None else text(function)
        expects = function is not None and function.type == "member_expression"
        return (
            name == "assert"
            or name.startswith("assert.")
            or (expects and function is not None and _chain(function)[0] is not None)
        )
    statement = node.parent is not None and node.parent.type == "expression_statement"
    return node.type == "member_expression" and statement and _chain(node)[0] is not None


def _finding(node: Node) -> EditFinding | None:
    """What an assertion (`_is_assertion`) asserts by its form; None when it can fail."""
    function = node.child_by_field_name("function") if node.type == "call_expression" else None
    name = "" if function is None else text(function)
    if name == "assert" or name.startswith("assert."):
        return _assert_finding(node)
    return _expect_finding(node)


def _dead(statement: Node) -> Iterator[tuple[Node, str]]:
    """The parts of a statement that never run, each with the words for why."""
    kind = statement.type
    if kind == "for_in_statement":
        right, body = statement.child_by_field_name("right"), statement.child_by_field_name("body")
        empty = right is not None and (
            (_inner(right).type in ("array", "object") and not _inner(right).named_children)
            or literal(_inner(right)) == ""
        )
        if empty and body is not None and right is not None:
            yield body, f"inside a loop over `{_shown(right)}`"
    elif kind in ("while_statement", "for_statement"):
        condition = statement.child_by_field_name("condition")
        body = statement.child_by_field_name("body")
        if condition is not None and body is not None and truth(condition) is False:
            yield body, f"inside a loop while `{_shown(_inner(condition))}`"
    elif kind == "if_statement":
        condition = statement.child_by_field_name("condition")
        test = None if condition is None else truth(condition)
        branches = {True: "alternative", False: "consequence"}
        branch = None if test is None else statement.child_by_field_name(branches[test])
        if branch is not None and condition is not None:
            where = "in the `else` of" if test else "inside"
            yield branch, f"{where} `if {_shown(condition)}`"


def _findings(statement: Node) -> Counter[EditFinding]:
    """The named assertions of a test's statement, walked without recursion; a function
    inside the test's callback is not followed (its assertions run when it is called)."""
    found: Counter[EditFinding] = Counter()
    pending: list[tuple[Node, str | None, bool]] = [(statement, None, False)]
    while pending:
        node, never, nested = pending.pop()
        if nested and node.type in NESTED:
            continue
        if _is_assertion(node):
            finding = _finding(node)
            if never is not None:
                finding = EditFinding(
                    "assertion_cannot_fail", f"`{_shown(node)}` never runs: {never}"
                )
            if finding is not None:
                found[finding] += 1
            continue
        dead = {part.id: why for part, why in _dead(node)} if never is None else {}
        # The test call's own callback is walked; a function inside it is not.
        inside = nested or node.type in FUNCTIONS
        pending += [(child, never or dead.get(child.id), inside) for child in node.children]
    return found


def script_findings(
    committed: Committed, edited: Mapping[str, object], separator: str
) -> dict[str, tuple[EditFinding, ...]]:
    """The tautologies and the assertions that never run of each edited JavaScript or
    TypeScript test that the change's version has and the trusted one does not."""
    named: dict[str, tuple[EditFinding, ...]] = {}
    for test_id, _, title, before, after in on_both(committed, script_ids(edited), separator):
        new = None if after is None else after.find(title)
        if new is None:
            named[test_id] = ()
            continue
        old = None if before is None else before.find(title)
        was = Counter() if old is None else _findings(old.statement)
        named[test_id] = tuple(sorted((_findings(new.statement) - was).keys()))
    return named
