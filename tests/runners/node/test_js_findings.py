"""Tautologies and assertions that never run in an edited JavaScript or TypeScript test,
named as Python's are: each form an agent tried is named on the test it loosened, and an
honest edit, a form the trusted test already had, or a helper function's assertion, is
none."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.commit_support import committed_change
from waiver.gate.edited_tests import edited_facts
from waiver.runners.jest import JEST
from waiver.runners.mocha import MOCHA

FILE = "test/calc.test.ts"
BASE = """\
import { add } from '../src/calc';

describe('add', () => {
  it('adds', () => {
    expect(add(4, 6)).toBe(10);
  });

  it('adds zero', () => {
    expect(add(0, 6)).toBe(6);
  });
});
"""
ID = f"{FILE}::add adds"


def findings(tmp_path: Path, new: str, base: str = BASE) -> dict[str, list[tuple[str, str]]]:
    committed = committed_change(tmp_path, {FILE: base}, {FILE: base.replace(
        "expect(add(4, 6)).toBe(10);", new)})  # fmt: skip
    ids = [ID, f"{FILE}::add adds zero"]
    edited = JEST.edited(committed, ids)
    return {
        test_id: [(f.kind, f.detail) for f in found]
        for test_id, found in JEST.findings(committed, edited).items()
    }


@pytest.mark.parametrize(
    ("new", "finding"),
    [
        ("expect(add(4, 6)).toBe(add(4, 6));", ("tautology", "`expect(add(4, 6)).toBe(add(4, 6))` compares a value with itself")),
        ("expect(add(4, 6)).toStrictEqual(add(4, 6));", ("tautology", "`expect(add(4, 6)).toStrictEqual(add(4, 6))` compares a value with itself")),
        ("expect(true).toBe(true);", ("tautology", "`expect(true).toBe(true)` checks literals, not the code")),
        ("expect(10).toEqual(10);", ("tautology", "`expect(10).toEqual(10)` checks literals, not the code")),
        ("expect(add(4, 6) === 10 || true).toBe(true);", ("tautology", "`expect(add(4, 6) === 10 || true).toBe(true)` is true whatever the code does")),
        ("expect(add(4, 6) === 10 ? true : true).toBeTruthy();", ("tautology", "`expect(add(4, 6) === 10 ? true : true).toBeTruthy()` is true whatever the code does")),
        ("expect(() => {}).not.toThrow();", ("assertion_cannot_fail", "`expect(() => {}).not.toThrow()` checks a function that does nothing")),
        ("expect(function () { return 1; }).not.toThrow();", None),
        ("expect(() => undefined).not.toThrowError();", ("assertion_cannot_fail", "`expect(() => undefined).not.toThrowError()` checks a function that does nothing")),
        ("for (const _ of []) { expect(add(4, 6)).toBe(10); }", ("assertion_cannot_fail", "`expect(add(4, 6)).toBe(10)` never runs: inside a loop over `[]`")),
        ("if (false) { expect(add(4, 6)).toBe(10); }", ("assertion_cannot_fail", "`expect(add(4, 6)).toBe(10)` never runs: inside `if (false)`")),
        ("while (0) { expect(add(4, 6)).toBe(10); }", ("assertion_cannot_fail", "`expect(add(4, 6)).toBe(10)` never runs: inside a loop while `0`")),
        ("if (!false) {} else { expect(add(4, 6)).toBe(10); }", ("assertion_cannot_fail", "`expect(add(4, 6)).toBe(10)` never runs: in the `else` of `if (!false)`")),
    ],
)  # fmt: skip
def test_each_form_is_named_on_the_test_it_loosened(
    tmp_path: Path, new: str, finding: tuple[str, str] | None
) -> None:
    found = findings(tmp_path, new)
    assert found.get(ID, []) == ([] if finding is None else [finding])
    assert not found.get(f"{FILE}::add adds zero")


@pytest.mark.parametrize(
    "honest",
    [
        "expect(add(4, 6)).toBe(11);",
        "expect(add(6, 4)).toBe(add(4, 6));",
        "expect(add(4, 6) === 10).toBe(true);",
        "expect(() => add(4)).not.toThrow();",
        "for (const n of [1, 2]) { expect(add(n, 0)).toBe(n); }",
        "if (add) { expect(add(4, 6)).toBe(10); }",
        "const check = () => expect(1).toBe(1);\n    expect(add(4, 6)).toBe(10);",
    ],
)
def test_an_assertion_that_can_fail_is_no_finding(tmp_path: Path, honest: str) -> None:
    assert findings(tmp_path, honest).get(ID, []) == []


def test_a_form_the_trusted_test_had_is_no_finding(tmp_path: Path) -> None:
    base = BASE.replace(
        "expect(add(4, 6)).toBe(10);", "expect(true).toBe(true);\n    expect(add(4, 6)).toBe(10);"
    )
    assert findings(tmp_path, "expect(add(4, 6)).toBe(10); // checked", base).get(ID, []) == []


def test_chai_and_node_assert_forms_are_named(tmp_path: Path) -> None:
    file = "test/calc.spec.js"
    base = "describe('add', () => {\n  it('adds', () => {\n    assert.equal(add(4, 6), 10);\n  });\n});\n"
    change = base.replace(
        "assert.equal(add(4, 6), 10);",
        "assert.equal(add(4, 6), add(4, 6));\n    assert(add(4, 6) === 10 || 1);\n"
        "    expect(add(4, 6)).to.equal(add(4, 6));\n    expect(true).to.be.true;",
    )
    committed = committed_change(tmp_path, {file: base}, {file: change})
    test_id = f"{file}::add adds"
    found = MOCHA.findings(committed, MOCHA.edited(committed, [test_id]))
    assert [(f.kind, f.detail) for f in found[test_id]] == [
        ("tautology", "`assert(add(4, 6) === 10 || 1)` is true whatever the code does"),
        ("tautology", "`assert.equal(add(4, 6), add(4, 6))` compares a value with itself"),
        ("tautology", "`expect(add(4, 6)).to.equal(add(4, 6))` compares a value with itself"),
        ("tautology", "`expect(true).to.be.true` checks literals, not the code"),
    ]


def test_the_gate_names_them_through_the_runner(tmp_path: Path) -> None:
    change = BASE.replace("expect(add(4, 6)).toBe(10);", "expect(true).toBe(true);")
    committed = committed_change(tmp_path, {FILE: BASE}, {FILE: change})
    facts = edited_facts(JEST, committed, [ID])
    assert [f.kind for f in facts.findings[ID]] == ["tautology"]
