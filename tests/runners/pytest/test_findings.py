"""The named kinds of edit of a test, from its two syntax trees: each kind named where it
is, and no finding for a rename or a reformatting."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from helpers.commit_support import committed_change
from waiver.read.definitions.edit_kinds import EditFinding
from waiver.read.trusted.protected import Committed
from waiver.runners.pytest.edited import edited_tests
from waiver.runners.pytest.findings import around, edit_findings, name_edits
from waiver.runners.pytest.scope import read_scope

BEFORE = """\
@pytest.mark.parametrize("n", [1, 2, 3])
def test_it(n, tmp_path):
    got = compute(n)
    assert got == n * 2
    assert len(str(got)) == 1
    assert ratio(n) == pytest.approx(0.5, rel=1e-3)
"""


def edits(before: str, after: str) -> list[tuple[str, str]]:
    old, new = (ast.parse(textwrap.dedent(text)).body[0] for text in (before, after))
    assert isinstance(old, ast.FunctionDef) and isinstance(new, ast.FunctionDef)
    return [(f.kind, f.detail) for f in name_edits(old, new)]


def kinds(before: str, after: str) -> list[str]:
    return [kind for kind, _ in edits(before, after)]


@pytest.mark.parametrize(
    ("old", "new", "detail"),
    [
        ("assert got == n * 2", "assert got is not None", "`==` became `is not None`"),
        ("assert got == n * 2", "assert got in (n * 2, 0)", "`==` became `in`"),
        ("assert got == n * 2", "assert got >= n * 2", "`==` became `>=`"),
        ("assert got == n * 2", "assert got", "`==` became `truthy`"),
        ("rel=1e-3", "rel=0.5", "`approx` tolerance rel 0.001 became 0.5"),
    ],
)
def test_a_loosened_comparison_is_named(old: str, new: str, detail: str) -> None:
    assert edits(BEFORE, BEFORE.replace(old, new)) == [("comparison_loosened", detail)]


def test_a_tighter_tolerance_is_no_finding() -> None:
    assert edits(BEFORE, BEFORE.replace("rel=1e-3", "rel=1e-9")) == []


def test_an_expected_value_changed_is_named() -> None:
    assert edits(BEFORE, BEFORE.replace("== n * 2", "== n * 3")) == [
        ("expected_value_changed", "`assert got == n * 2` became `assert got == n * 3`")
    ]


def test_a_removed_assertion_is_named() -> None:
    after = BEFORE.replace("    assert len(str(got)) == 1\n", "")
    assert edits(BEFORE, after) == [("assertion_removed", "3 assertions became 2")]


@pytest.mark.parametrize(
    ("decorator", "detail"),
    [
        ("@pytest.mark.skip\n", "`@pytest.mark.skip`"),
        ("@pytest.mark.skip(reason='later')\n", "`@pytest.mark.skip`"),
        ("@pytest.mark.xfail(strict=False)\n", "`@pytest.mark.xfail`"),
        ("@pytest.mark.timeout(1)\n", "`@pytest.mark.timeout`"),
        ("@pytest.mark.skipif(True, reason='x')\n", "`@pytest.mark.skipif`"),
    ],
)
def test_an_added_mark_is_named(decorator: str, detail: str) -> None:
    assert edits(BEFORE, decorator + BEFORE) == [("mark_added", detail)]


def test_an_unrelated_added_mark_is_no_finding() -> None:
    assert edits(BEFORE, "@pytest.mark.slow\n" + BEFORE) == []


def test_a_skip_call_in_the_body_is_named() -> None:
    after = BEFORE.replace(
        "    got = compute(n)\n", "    pytest.skip('flaky')\n    got = compute(n)\n"
    )
    assert edits(BEFORE, after) == [("mark_added", "`pytest.skip() in its body`")]


def test_removed_parametrize_cases_are_named() -> None:
    assert edits(BEFORE, BEFORE.replace("[1, 2, 3]", "[1]")) == [
        ("parametrize_cases_removed", "3 cases became 1")
    ]


def test_an_added_case_is_no_finding() -> None:
    assert edits(BEFORE, BEFORE.replace("[1, 2, 3]", "[1, 2, 3, 4]")) == []


def test_an_early_return_is_named() -> None:
    after = BEFORE.replace(
        "    got = compute(n)\n", "    got = compute(n)\n    if n > 1:\n        return\n"
    )
    assert kinds(BEFORE, after) == ["early_return"]


def test_a_return_in_a_nested_function_is_not_the_tests() -> None:
    after = BEFORE.replace(
        "    got = compute(n)\n", "    def helper():\n        return 1\n    got = compute(n)\n"
    )
    assert edits(BEFORE, after) == []


def test_an_assertion_wrapped_in_try_except_is_named() -> None:
    after = BEFORE.replace(
        "    assert got == n * 2\n",
        "    try:\n        assert got == n * 2\n    except AssertionError:\n        pass\n",
    )
    assert kinds(BEFORE, after) == ["assertion_in_try"]


def test_an_assertion_under_suppress_is_named() -> None:
    after = BEFORE.replace(
        "    assert got == n * 2\n",
        "    with contextlib.suppress(AssertionError):\n        assert got == n * 2\n",
    )
    assert kinds(BEFORE, after) == ["assertion_in_try"]


@pytest.mark.parametrize(
    ("line", "detail"),
    [
        ("    monkeypatch.setattr(app, 'compute', lambda n: n * 2)\n", "`monkeypatch.setattr("),
        ("    mock.patch('app.compute').start()\n", "`mock.patch('app.compute')"),
        ("    compute = MagicMock(return_value=2)\n", "`MagicMock(return_value=2)`"),
    ],
)
def test_mocking_in_the_test_is_named(line: str, detail: str) -> None:
    found = edits(BEFORE, BEFORE.replace("    got = compute(n)\n", line + "    got = compute(n)\n"))
    assert [kind for kind, _ in found] == ["mocked"]
    assert found[0][1].startswith(detail)


def test_a_patch_decorator_is_named() -> None:
    found = edits(BEFORE, "@patch('app.compute', return_value=2)\n" + BEFORE)
    assert found == [("mocked", "`patch('app.compute', return_value=2)`")]


def test_a_renamed_local_is_no_finding() -> None:
    assert edits(BEFORE, BEFORE.replace("got", "result")) == []


def test_a_reformatted_test_is_no_finding() -> None:
    reformatted = """\
@pytest.mark.parametrize('n', [
    1,
    2,
    3,
])
def test_it(n, tmp_path):
    got = compute(
        n
    )  # the value
    assert (got ==
            n * 2)
    assert len(str(got)) == 1
    assert ratio(n) == pytest.approx(0.5, rel=0.001)
"""
    assert edits(BEFORE, reformatted) == []


def test_an_edit_of_no_named_kind_is_no_finding() -> None:
    after = BEFORE.replace("    got = compute(n)\n", "    got = compute(n + 0)\n")
    assert edits(BEFORE, after) == []


def test_unittest_assertions_are_compared_too() -> None:
    before = "def test_it(self):\n    self.assertEqual(compute(1), 2)\n"
    after = "def test_it(self):\n    self.assertIsNotNone(compute(1))\n"
    assert edits(before, after) == [("comparison_loosened", "`==` became `is not None`")]


BASE = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": """\
import pytest

from calc import add


def test_add():
    assert add(2, 3) == 5


@pytest.mark.parametrize("a", [1, 2])
def test_cases(a):
    assert add(a, 0) == a


def test_plain():
    assert add(0, 0) == 0


LISTED = [1, 2, 3]


@pytest.mark.parametrize("a", LISTED)
def test_listed(a):
    assert add(a, 0) == a


class TestGroup:
    def test_in_class(self):
        assert add(1, 1) == 2
""",
}


def committed(
    tmp_path: Path, change: dict[str, str], base: dict[str, str] | None = None
) -> Committed:
    return committed_change(tmp_path, base or BASE, change)


def test_findings_of_the_tests_a_commit_edits(tmp_path: Path) -> None:
    module = BASE["tests/test_calc.py"]
    changed = (
        module.replace("assert add(2, 3) == 5", "assert add(2, 3) is not None")
        .replace("LISTED = [1, 2, 3]", "LISTED = [1]")
        .replace("class TestGroup:", "@pytest.mark.xfail\nclass TestGroup:")
        .replace("@pytest.mark.parametrize", "@pytest.mark.skip\n@pytest.mark.parametrize", 1)
        .replace(
            "def test_plain():\n    assert add(0, 0) == 0",
            "def test_plain():\n    assert add(0, 0) == 0  # zero",
        )
    )
    change = committed(tmp_path, {"tests/test_calc.py": changed})
    ids = [
        "tests/test_calc.py::test_add",
        "tests/test_calc.py::test_cases[1]",
        "tests/test_calc.py::test_listed[1]",
        "tests/test_calc.py::TestGroup::test_in_class",
        "tests/test_calc.py::test_plain",
    ]
    edited = edited_tests(change, ids)
    assert sorted(edited) == sorted(ids[:4])  # a comment is no edit at all
    assert edit_findings(change, edited) == {
        ids[0]: (EditFinding("comparison_loosened", "`==` became `is not None`"),),
        ids[1]: (EditFinding("mark_added", "`@pytest.mark.skip`"),),
        # The cases live in a module-level list, the mark on the class.
        ids[2]: (EditFinding("parametrize_cases_removed", "3 cases became 1"),),
        ids[3]: (EditFinding("mark_added", "`@pytest.mark.xfail`"),),
    }


def test_a_module_pytestmark_that_skips_is_named() -> None:
    function = ast.parse(BEFORE).body[0]
    assert isinstance(function, ast.FunctionDef)
    skips = read_scope(ast.parse("pytestmark = [pytest.mark.skip]\n"), "tests/test_x.py")
    plain = read_scope(ast.parse("pytestmark = [pytest.mark.slow]\n"), "tests/test_x.py")
    assert name_edits(function, function, around(plain, []), around(skips, [])) == (
        EditFinding("mark_added", "`@pytest.mark.skip`"),
    )


def test_a_test_edited_through_a_helper_module_is_just_edited(tmp_path: Path) -> None:
    base = {
        "tests/helpers.py": "def same(got, want):\n    assert got == want\n",
        "tests/test_h.py": "from tests.helpers import same\n\n\ndef test_it():\n    same(1, 1)\n",
    }
    change = committed(tmp_path, {"tests/helpers.py": "def same(got, want):\n    pass\n"}, base)
    edited = edited_tests(change, ["tests/test_h.py::test_it"])
    assert list(edited) == ["tests/test_h.py::test_it"]
    assert edit_findings(change, edited) == {"tests/test_h.py::test_it": ()}
