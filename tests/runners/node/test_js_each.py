"""The titles jest and vitest give the rows of a literal `test.each` table, as each formats
them (the vitest cases are the titles vitest 4 wrote for them); a row or a placeholder not
followed gives none."""

from __future__ import annotations

import pytest

from waiver.runners.node.js_each import each_rows, row_title
from waiver.runners.node.syntax import parse, walk


def titles(source: str, runner: str) -> list[str | None]:
    root = parse(source.encode(), "t.test.ts")
    call = next(node for node in walk(root) if node.type == "call_expression" and each_rows(node))
    rows = each_rows(call) or []
    arguments = call.child_by_field_name("arguments")
    assert arguments is not None
    template = arguments.named_children[0].text.decode()[1:-1]  # type: ignore[union-attr]
    return [row_title(template, row, index, runner) for index, row in enumerate(rows)]


@pytest.mark.parametrize(
    ("source", "runner", "expected"),
    [
        ("test.each([{ a: 1, b: 'x' }, { a: 2, b: 'y' }])('var $a and $b', f)", "vitest",
         ["var 1 and 'x'", "var 2 and 'y'"]),
        ("test.each([{ a: 1, b: 'x' }])('var $a and $b', f)", "jest", ['var 1 and "x"']),
        ("test.each([[1, 'x'], [2, 'y']])('pos %i %s %#', f)", "vitest",
         ["pos 1 x 0", "pos 2 y 1"]),
        ("test.each([1, 2])('num %d', f)", "vitest", ["num 1", "num 2"]),
        ("test.each([1.5, -0])('flt %f', f)", "vitest", ["flt 1.5", "flt -0"]),
        ("test.each([{ x: -5, want: 0 }])('cuts $x to $want', f)", "vitest", ["cuts -5 to +0"]),
        ("test.each([{ a: { deep: 1 } }])('deep $a.deep', f)", "vitest", ["deep 1"]),
        ("it.for([[1, 2]])('for %i %i', f)", "vitest", ["for 1 2"]),
        ("test.each([[{ x: 1 }]])('j %j', f)", "jest", ['j {"x":1}']),
        # Not followed: an object under %s, %o, a computed row, a name the row lacks.
        ("test.each([{ a: 1 }])('s %s', f)", "vitest", [None]),
        ("test.each([[1]])('o %o', f)", "jest", [None]),
        ("test.each([[one]])('n %i', f)", "jest", [None]),
        ("test.each([{ a: 1 }])('$b', f)", "jest", [None]),
    ],
)  # fmt: skip
def test_row_titles(source: str, runner: str, expected: list[str | None]) -> None:
    assert titles(source, runner) == expected


def test_a_table_that_is_not_an_array_literal_has_no_rows() -> None:
    root = parse(b"test.each(cases)('adds %i', f)\ntest.each`a\n${1}`('x', f)\n", "t.test.js")
    calls = [node for node in walk(root) if node.type == "call_expression"]
    assert [each_rows(call) for call in calls] == [None] * len(calls)
