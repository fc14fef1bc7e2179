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
