"""The diff of an edited JavaScript or TypeScript test: each part the comparison named, as
written on both commits, in Python's lines and caps; an untouched neighbour has none, and
a change's hostile text stays capped and inert in the summary."""

from __future__ import annotations

from pathlib import Path

from helpers.commit_support import committed_change
from helpers.markdown_support import render_like_github
from helpers.support import report_document
from waiver.runners.jest import JEST
from waiver.runners.node import NodeRunner
from waiver.runners.pytest.diff import MAX_DIFF_LINE, MAX_DIFF_LINES
from waiver.runners.vitest import VITEST
from waiver.write.report.report_types import report_of
from waiver.write.summary.summary import render_summary

FILE = "test/calc.test.js"
BASE = """\
const { add, clamp } = require('../src/calc');
const { near } = require('./helpers');

function twice(x) {
  return add(x, x);
}

describe('add', () => {
  let offset;
  beforeEach(() => {
    offset = 0;
  });

  it('doubles', () => {
    expect(twice(2) + offset).toBe(4);
  });

  it('adds', () => {
    expect(add(1, 2)).toBe(3);
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
IDS = [
    f"{FILE}::add doubles",
    f"{FILE}::add adds",
    f"{FILE}::clamp keeps a value inside",
    f"{FILE}::clamp cuts a value above",
]


def diffs(
    tmp_path: Path,
    change: dict[str, str],
    base: dict[str, str] | None = None,
    runner: NodeRunner = JEST,
    ids: list[str] = IDS,
) -> dict[str, tuple[str, ...]]:
    base = base or {FILE: BASE, "test/helpers.js": HELPERS, "src/calc.js": "exports.add = 1;\n"}
    tmp_path.mkdir(exist_ok=True)
    committed = committed_change(tmp_path, base, {**base, **change})
    return runner.diffs(committed, runner.edited(committed, ids))


def test_a_loosened_expect_and_an_edited_helper_show_in_the_tests_they_edit(
    tmp_path: Path,
) -> None:
    change = BASE.replace(
        "expect(clamp(5, 0, 10)).toBe(5);",
        "expect(clamp(5, 0, 10)).toBeDefined();",
    ).replace("return add(x, x);", "return 4;")
    assert diffs(tmp_path, {FILE: change}) == {
        f"{FILE}::add doubles": (
            "@@ `twice` in test/calc.test.js @@",
            " function twice(x) {",
            "-  return add(x, x);",
            "+  return 4;",
            " }",
        ),
        f"{FILE}::clamp keeps a value inside": (
            "@@ its body @@",
            " it('keeps a value inside', () => {",
            "-  expect(clamp(5, 0, 10)).toBe(5);",
            "+  expect(clamp(5, 0, 10)).toBeDefined();",
            " });",
        ),
    }


def test_a_describe_shows_without_its_tests_and_a_helper_module_whole(tmp_path: Path) -> None:
    change = {
        FILE: BASE.replace("offset = 0;", "offset = 1;"),
        "test/helpers.js": "exports.near = () => true;\n",
    }
    hook = (
        "@@ its describe add @@",
        "   beforeEach(() => {",
        "-    offset = 0;",
        "+    offset = 1;",
        "   });",
    )
    assert diffs(tmp_path, change) == {
        f"{FILE}::add doubles": hook,
        f"{FILE}::add adds": hook,
        f"{FILE}::clamp cuts a value above": (
            "@@ the module test/helpers.js @@",
            "-exports.near = (a, b) => Math.abs(a - b) < 1e-9;",
            "+exports.near = () => true;",
        ),
    }


def test_a_typescript_test_of_vitest_and_a_data_file_compared_as_a_digest(
    tmp_path: Path,
) -> None:
    path = "tests/sum.test.ts"
    source = (
        "import { it, expect } from 'vitest';\n"
        "import cases from './cases.json';\n"
        "// module code\n"
        "vi.mock('../src/sum');\n\n"
        "it('sums', () => {\n  expect(cases.length).toBe(2);\n});\n"
    )
    base = {path: source, "tests/cases.json": "[1, 2]\n"}
    change = {
        path: source.replace("vi.mock('../src/sum');", "vi.mock('../src/sum', () => ({}));"),
        "tests/cases.json": "[1]\n",
    }
    [test_id] = ids = [f"{path}::sums"]
    found = diffs(tmp_path, change, base, VITEST, ids)
    # The data file's change is named among the changes, with no lines of its own.
    assert found == {
        test_id: (
            f"@@ module code of {path} @@",
            "-vi.mock('../src/sum');",
            "+vi.mock('../src/sum', () => ({}));",
        )
    }


def test_layout_and_comments_show_only_beside_an_edit(tmp_path: Path) -> None:
    relaid = BASE.replace(
        "function twice(x) {\n  return add(x, x);\n}", "function twice(x) { return add(x, x); }"
    ).replace("  it('adds', () => {", "  // a comment\n  it('adds', () => {")
    assert diffs(tmp_path / "layout", {FILE: relaid}) == {}
    loosened = BASE.replace("toBe(3);", "toBeTruthy(); // close enough")
    assert diffs(tmp_path / "edit", {FILE: loosened})[f"{FILE}::add adds"][2:4] == (
        "-  expect(add(1, 2)).toBe(3);",
        "+  expect(add(1, 2)).toBeTruthy(); // close enough",
    )


def hostile(tmp_path: Path) -> dict[str, tuple[str, ...]]:
    body = "".join(f"  expect(add({n}, 0)).toBe({n});\n" for n in range(300))
    huge = BASE + f"\nfunction many() {{\n{body}}}\n\nit('many', () => many());\n"
    change = huge.replace(").toBe(", ").not.toBe(").replace(
        "toBe(5);", f"toBe('```</details><img src=x> @org/admins {'9' * 500}');"
    )
    return diffs(tmp_path, {FILE: change}, {FILE: huge}, ids=[*IDS, f"{FILE}::many"])


def test_a_300_line_helper_and_a_long_line_are_cut_to_the_caps(tmp_path: Path) -> None:
    found = hostile(tmp_path)
    many = found[f"{FILE}::many"]
    assert len(many) == MAX_DIFF_LINES
    assert many[:3] == (
        "@@ `many` in test/calc.test.js @@",
        " function many() {",
        "-  expect(add(0, 0)).toBe(0);",
    )
    # Its header, 600 changed lines and the two lines around them.
    assert many[-1] == f"… {1 + 600 + 2 - (MAX_DIFF_LINES - 1)} more lines"
    long = found[f"{FILE}::clamp keeps a value inside"][-2]
    assert len(long) == MAX_DIFF_LINE and long.endswith("9…")


def test_hostile_text_of_a_js_diff_is_inert_in_the_summary(tmp_path: Path) -> None:
    found = hostile(tmp_path)
    report = report_document([(test_id, "unknown_test") for test_id in found])
    for row in report["rows"]:
        row.update(unknown="edited", replay_pass=5, outcomes=[True] * 5)
    report["registry"] = {
        "used": True,
        "path": "known-tests.txt",
        "change_lists": list(found),
        "edited": [
            {"test_id": test_id, "changes": ["its body"], "findings": [], "diff": list(diff)}
            for test_id, diff in found.items()
        ],
    }
    summary = render_summary(report_of(report))
    rendered = render_like_github(summary)
    assert "img" not in rendered.tags
    assert "@org" not in "".join(rendered.plain_text)
    assert "````diff" in summary  # a fence longer than the diff's own backticks
