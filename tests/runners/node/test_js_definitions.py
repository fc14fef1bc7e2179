"""Edited JavaScript and TypeScript tests are told apart per test, by syntax tree: the test's
call, the describes around it with their hooks, test.each tables and the module-level names
it uses; a new test beside untouched ones, a comment or new layout edits none of them."""

from __future__ import annotations

from pathlib import Path

from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import DiskTree
from waiver.runners.jest import JEST
from waiver.runners.vitest import VITEST

BASE = """\
const { add, clamp } = require('../src/calc');
const { near } = require('./helpers');
const cases = [[1, 2, 3], [2, 3, 5]];

function twice(x) {
  return add(x, x);
}

describe('add', () => {
  let offset;
  beforeEach(() => {
    offset = 0;
  });

  test.each(cases)('adds %i and %i', (a, b, sum) => {
    expect(add(a, b) + offset).toBe(sum);
  });

  it('doubles', () => {
    expect(twice(2)).toBe(4);
  });
});

describe('clamp', () => {
  it('keeps a value inside', () => {
    expect(clamp(5, 0, 10)).toBe(5);
  });

  it('cuts a value above', () => {
    expect(near(clamp(15, 0, 10), 10)).toBe(true);
  });
});
"""
HELPERS = "exports.near = (a, b) => Math.abs(a - b) < 1e-9;\n"
FILE = "test/calc.test.js"
IDS = [
    f"{FILE}::add adds 1 and 2",
    f"{FILE}::add adds 2 and 3",
    f"{FILE}::add doubles",
    f"{FILE}::clamp keeps a value inside",
    f"{FILE}::clamp cuts a value above",
]


def edited(
    tmp_path: Path, after: dict[str, str], before: dict[str, str] | None = None
) -> dict[str, tuple[str, ...]]:
    before = before or {FILE: BASE, "test/helpers.js": HELPERS}
    after = {**before, **after}
    for side, files in (("base", before), ("head", after)):
        for name, text in files.items():
            path = tmp_path / side / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    changed = frozenset(name for name in after if before.get(name) != after[name])
    committed = Committed(
        DiskTree(str(tmp_path / "base")), DiskTree(str(tmp_path / "head")), changed
    )
    return JEST.edited(committed, IDS)


def test_a_loosened_assertion_edits_that_test_alone(tmp_path: Path) -> None:
    loosened = BASE.replace(
        "expect(clamp(5, 0, 10)).toBe(5);", "expect(clamp(5, 0, 10)).toBeDefined();"
    )
    assert edited(tmp_path, {FILE: loosened}) == {
        f"{FILE}::clamp keeps a value inside": ("its body",)
    }


def test_a_new_test_comments_and_layout_edit_nothing(tmp_path: Path) -> None:
    added = BASE.replace(
        "describe('clamp', () => {",
        "describe('clamp', () => {\n  // a new case\n  it('cuts a value below', () => {\n"
        "    expect(clamp(-5, 0, 10)).toBe(0);\n  });\n",
    ).replace(
        "function twice(x) {\n  return add(x, x);\n}", "function twice(x) { return add(x, x); }"
    )
    assert edited(tmp_path, {FILE: added}) == {}


def test_a_hook_of_a_describe_edits_the_tests_inside_it(tmp_path: Path) -> None:
    hooked = BASE.replace("offset = 0;", "offset = 1;")
    found = edited(tmp_path, {FILE: hooked})
    assert set(found) == set(IDS[:3])
    assert found[IDS[2]] == ("its describe add",)


def test_a_table_and_a_module_helper_edit_the_tests_that_use_them(tmp_path: Path) -> None:
    table = BASE.replace("[2, 3, 5]]", "[2, 3, 6]]")
    assert set(edited(tmp_path, {FILE: table})) == set(IDS[:2])
    helper = BASE.replace("return add(x, x);", "return 4;")
    assert edited(tmp_path / "helper", {FILE: helper}) == {
        IDS[2]: ("`twice` in test/calc.test.js",)
    }


def test_an_imported_helper_module_edits_the_tests_that_use_it(tmp_path: Path) -> None:
    found = edited(tmp_path, {"test/helpers.js": "exports.near = () => true;\n"})
    assert found == {IDS[4]: ("the module test/helpers.js",)}


def test_module_code_that_binds_nothing_is_part_of_every_test(tmp_path: Path) -> None:
    mocked = BASE.replace("function twice", "jest.mock('../src/calc');\n\nfunction twice")
    assert set(edited(tmp_path, {FILE: mocked})) == set(IDS)


def test_a_title_no_definition_matches_alone_compares_the_whole_file(tmp_path: Path) -> None:
    twin = BASE.replace("it('doubles'", "it(name, () => {});\n  it('doubles'")
    found = edited(tmp_path, {FILE: twin})
    assert found[IDS[2]] == ("its file changed",)
    assert IDS[3] not in found


def test_typescript_and_vitest_titles(tmp_path: Path) -> None:
    source = "import { expect, it, describe } from 'vitest';\n\ndescribe('sum', () => {\n  it('adds', () => {\n    const n: number = 1 + 2;\n    expect(n).toBe(3);\n  });\n  it('subtracts', () => {\n    expect(3 - 1).toBe(2);\n  });\n});\n"
    loosened = source.replace("expect(n).toBe(3);", "expect(n).toBeTruthy();")
    for side, text in (("base", source), ("head", loosened)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "sum.test.ts").write_text(text)
    committed = Committed(
        DiskTree(str(tmp_path / "base")),
        DiskTree(str(tmp_path / "head")),
        frozenset({"sum.test.ts"}),
    )
    ids = ["sum.test.ts::sum > adds", "sum.test.ts::sum > subtracts"]
    assert VITEST.edited(committed, ids) == {"sum.test.ts::sum > adds": ("its body",)}


def test_a_name_added_to_a_shared_import_list_edits_no_test(tmp_path: Path) -> None:
    """The import a new test needs is no edit of the tests beside it: each name is compared
    by its own part of the statement."""
    widened = BASE.replace(
        "const { add, clamp } = require('../src/calc');",
        "const { add, clamp, sub } = require('../src/calc');",
    )
    assert edited(tmp_path, {FILE: widened}) == {}
    # Changing where a name comes from is an edit of the tests that use it.
    moved = BASE.replace(
        "const { add, clamp } = require('../src/calc');",
        "const { add } = require('../src/calc');\nconst { clamp } = require('../src/other');",
    )
    assert set(edited(tmp_path / "moved", {FILE: moved})) == set(IDS[3:])


def test_an_es_import_list_and_its_default_are_compared_name_by_name(tmp_path: Path) -> None:
    source = (
        "import lib, { add, clamp } from '../src';\n\n"
        "describe('sum', () => {\n  it('adds', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n"
        "  it('clamps', () => {\n    expect(clamp(5, 0, 1)).toBe(lib.one);\n  });\n});\n"
    )
    widened = source.replace("{ add, clamp }", "{ add, clamp, slug as toSlug }")
    renamed = source.replace("import lib,", "import other,").replace("lib.one", "other.one")
    ids = ["sum.test.ts::sum > adds", "sum.test.ts::sum > clamps"]
    for name, head, found in (
        ("widened", widened, {}),
        ("renamed", renamed, {ids[1]: ("`lib` in sum.test.ts (removed)",
                                       "`other` in sum.test.ts (added)", "its body")}),
    ):  # fmt: skip
        for side, text in (("base", source), ("head", head)):
            (tmp_path / name / side).mkdir(parents=True)
            (tmp_path / name / side / "sum.test.ts").write_text(text)
        committed = Committed(
            DiskTree(str(tmp_path / name / "base")),
            DiskTree(str(tmp_path / name / "head")),
            frozenset({"sum.test.ts"}),
        )
        assert VITEST.edited(committed, ids) == found


def test_what_a_formatter_changes_edits_no_test(tmp_path: Path) -> None:
    """Quotes, semicolons, trailing commas, the parentheses of a lone arrow parameter and
    the spelling of a number are a formatter's, not an edit."""
    reformatted = (
        BASE.replace("'", '"')
        .replace(";\n", "\n")
        .replace("[[1, 2, 3], [2, 3, 5]]", "[\n  [1, 2, 3],\n  [2, 3, 5],\n]")
        .replace("(a, b, sum) =>", "(a, b, sum,) =>")
        .replace("exports.near = (a, b)", "exports.near = (a, b)")
        .replace("1e-9", "0.000000001")
    )
    assert (
        edited(tmp_path, {FILE: reformatted, "test/helpers.js": HELPERS.replace("1e-9", "1E-9")})
        == {}
    )


EACH = """\
import { describe, expect, test } from 'vitest';
import { clamp } from '../src';

describe('clamp', () => {
  test.each([
    { x: -5, want: 0 },
    { x: 20, want: 10 },
  ])('cuts $x to $want', ({ x, want }) => {
    expect(clamp(x, 0, 10)).toBe(want);
  });

  test.each([[1, 'one'], [2, 'two']])('names %i as %s', (n, word) => {
    expect(String(n)).toBeTruthy();
  });

  test('', () => {
    expect(clamp(1, 0, 2)).toBe(1);
  });
});
"""
EACH_IDS = [
    "t.test.ts::clamp > cuts -5 to +0",
    "t.test.ts::clamp > cuts 20 to 10",
    "t.test.ts::clamp > names 1 as one",
    "t.test.ts::clamp > names 2 as two",
    "t.test.ts::clamp > (empty title)",
]


def each_edited(tmp_path: Path, head: str) -> dict[str, tuple[str, ...]]:
    for side, text in (("base", EACH), ("head", head)):
        (tmp_path / side).mkdir(parents=True)
        (tmp_path / side / "t.test.ts").write_text(text)
    committed = Committed(
        DiskTree(str(tmp_path / "base")), DiskTree(str(tmp_path / "head")), frozenset({"t.test.ts"})
    )
    return VITEST.edited(committed, EACH_IDS)


def test_each_row_of_a_literal_table_is_a_test_of_its_own(tmp_path: Path) -> None:
    one_row = EACH.replace("{ x: 20, want: 10 }", "{ x: 20, want: 20 }")
    assert each_edited(tmp_path / "row", one_row) == {EACH_IDS[1]: ("its body",)}
    added = EACH.replace("[2, 'two']]", "[2, 'two'], [3, 'three']]")
    assert each_edited(tmp_path / "added", added) == {}
    body = EACH.replace("expect(String(n)).toBeTruthy();", "expect(true).toBe(true);")
    assert each_edited(tmp_path / "body", body) == {
        EACH_IDS[2]: ("its body",), EACH_IDS[3]: ("its body",)
    }  # fmt: skip
    # A test with an empty title is named so, and found by that name.
    empty = EACH.replace("expect(clamp(1, 0, 2)).toBe(1);", "expect(1).toBe(1);")
    assert each_edited(tmp_path / "empty", empty) == {EACH_IDS[4]: ("its body",)}
