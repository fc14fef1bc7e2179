"""Assertions that hold whatever the code does, or that never run: each form an agent tried
on a test it loosened is named, and an honest assertion, or a tautology the trusted test
already had, is no finding."""

from __future__ import annotations

import ast
import textwrap

import pytest

from waiver.runners.pytest.findings import name_edits
from waiver.runners.pytest.tautologies import truth

BEFORE = """\
def test_add(self):
    got = add(4, 6)
    assert got == 10
"""


def edits(before: str, after: str) -> list[tuple[str, str]]:
    old, new = (ast.parse(textwrap.dedent(text)).body[0] for text in (before, after))
    assert isinstance(old, ast.FunctionDef) and isinstance(new, ast.FunctionDef)
    return [(f.kind, f.detail) for f in name_edits(old, new)]


@pytest.mark.parametrize(
    ("new", "detail"),
    [
        ("assert got == 10 or True", "`assert got == 10 or True` is true whatever the code does"),
        ("assert (got == 10) is not None", "`assert (got == 10) is not None` is true whatever the code does"),
        ("assert [got == 10]", "`assert [got == 10]` is true whatever the code does"),
        ("assert (got == 10, 'sum')", "`assert (got == 10, 'sum')` is true whatever the code does"),
        ("assert got == 10 if False else True", "`assert got == 10 if False else True` is true whatever the code does"),
        ("assert not (got != 10 and False)", "`assert not (got != 10 and False)` is true whatever the code does"),
        ("assert got == got", "`assert got == got` compares a value with itself"),
        ("assert got == min(got, 10)", "`assert got == min(got, 10)` compares a value with one computed from itself"),
        ("assert min(got, 10) <= got", "`assert min(got, 10) <= got` is true whatever the code does"),
        ("assert got <= max(10, got)", "`assert got <= max(10, got)` is true whatever the code does"),
        ("self.assertEqual(got, got)", "`self.assertEqual(got, got)` compares a value with itself"),
        ("self.assertTrue(got == 10 or 1)", "`self.assertTrue(got == 10 or 1)` is true whatever the code does"),
        ("self.assertIsNotNone(got == 10)", "`self.assertIsNotNone(got == 10)` tests for None a value that is never None"),
    ],
)  # fmt: skip
def test_a_tautology_is_named(new: str, detail: str) -> None:
    found = edits(BEFORE, BEFORE.replace("assert got == 10", new))
    assert ("tautology", detail) in found
    assert [kind for kind, _ in found if kind == "tautology"] == ["tautology"]


@pytest.mark.parametrize(
    ("block", "why"),
    [
        ("for _ in []:", "inside `for … in []`"),
        ("for _ in range(0):", "inside `for … in range(0)`"),
        ("for case in ():", "inside `for … in ()`"),
        ("while False:", "inside `while False`"),
        ("if 0:", "inside `if 0`"),
        ("if not True:", "inside `if not True`"),
    ],
)
def test_an_assertion_that_never_runs_is_named(block: str, why: str) -> None:
    after = BEFORE.replace("    assert got == 10", f"    {block}\n        assert got == 10")
    assert edits(BEFORE, after) == [
        ("assertion_cannot_fail", f"`assert got == 10` never runs: {why}")
    ]


def test_the_else_of_an_if_that_always_holds_never_runs() -> None:
    after = BEFORE.replace(
        "    assert got == 10",
        "    if True:\n        pass\n    else:\n        self.assertEqual(got, 10)",
    )
    assert (
        "assertion_cannot_fail",
        "`self.assertEqual(got, 10)` never runs: in the `else` of `if True`",
    ) in edits(BEFORE, after)


@pytest.mark.parametrize(
    "honest",
    [
        "assert got == 10 or got == 11",
        "assert got is not None",
        "assert got == min(10, 12)",
        "assert sorted([got]) == [got]",
        "assert slugify(got) == slugify(slugify(got))",
        "for _ in range(3):\n        assert got == 10",
        "if got:\n        assert got == 10",
    ],
)
def test_an_assertion_that_can_fail_is_no_such_finding(honest: str) -> None:
    kinds = [kind for kind, _ in edits(BEFORE, BEFORE.replace("assert got == 10", honest))]
    assert "assertion_cannot_fail" not in kinds
    assert "tautology" not in kinds


def test_a_tautology_the_trusted_test_had_is_no_finding() -> None:
    both = BEFORE + "    assert [got]\n    for _ in []:\n        assert got\n"
    assert edits(both, both.replace("add(4, 6)", "add(6, 4)")) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("x or True", True), ("x and False", False), ("[]", False), ("[x]", True),
        ("{}", False), ("f'{x}!'", True), ("f'{x}'", None), ("lambda: 0", True),
        ("(y := 1)", True), ("x if True else 0", None), ("1 if x else 2", True),
        ("x is None", None), ("(x == 1) is None", False), ("x < x", None), ("x", None),
    ],
)  # fmt: skip
def test_the_truth_of_an_expression_is_known_only_from_its_form(
    text: str, value: bool | None
) -> None:
    assert truth(ast.parse(text, mode="eval").body) is value
