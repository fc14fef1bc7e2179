"""The diff of an edited test's definition: each changed part as Python reads it on both
commits, so comments and layout make no line, capped for a huge function."""

from __future__ import annotations

from pathlib import Path

from helpers.commit_support import committed_change
from waiver.runners.pytest.diff import MAX_DIFF_LINE, MAX_DIFF_LINES, definition_diffs
from waiver.runners.pytest.edited import edited_tests

MODULE = "tests/test_calc.py"
BASE = """\
import pytest

from calc import add
from tests.helpers import same


@pytest.mark.parametrize("a", [1, 2])
def test_cases(a):
    assert add(a, 0) == a


def test_add():
    got = add(2, 3)
    assert got == 5


def test_helper():
    same(add(1, 1), 2)
"""
HELPERS = "def same(got, want):\n    assert got == want\n"


def diffs(
    tmp_path: Path, change: dict[str, str], ids: list[str], module: str = BASE
) -> dict[str, tuple[str, ...]]:
    base = {"calc.py": "def add(a, b):\n    return a + b\n", MODULE: module,
            "tests/__init__.py": "", "tests/helpers.py": HELPERS}  # fmt: skip
    committed = committed_change(tmp_path, base, change)
    return definition_diffs(committed, edited_tests(committed, ids))


def test_a_loosened_assertion_shows_as_the_lines_python_reads_and_no_comment(
    tmp_path: Path,
) -> None:
    change = BASE.replace(
        "    assert got == 5\n",
        "    # close enough\n    assert (\n        got is not None\n    )  # later\n",
    )
    assert diffs(tmp_path, {MODULE: change}, [f"{MODULE}::test_add"]) == {
        f"{MODULE}::test_add": (
            "@@ its definition @@",
            "     got = add(2, 3)",
            "-    assert got == 5",
            "+    assert got is not None",
        )
    }


def test_new_parametrize_values_show_once_for_every_id_of_the_function(tmp_path: Path) -> None:
    change = BASE.replace('"a", [1, 2]', '"a", [1, 2, -1]')
    ids = [f"{MODULE}::test_cases[1]", f"{MODULE}::test_cases[2]"]
    lines = (
        "@@ its definition @@",
        "-@pytest.mark.parametrize('a', [1, 2])",
        "+@pytest.mark.parametrize('a', [1, 2, -1])",
        " def test_cases(a):",
    )
    assert diffs(tmp_path, {MODULE: change}, ids) == dict.fromkeys(ids, lines)


def test_a_helper_the_test_calls_shows_under_its_binding(tmp_path: Path) -> None:
    change = {"tests/helpers.py": HELPERS.replace("assert got == want", "pass")}
    assert diffs(tmp_path, change, [f"{MODULE}::test_helper"]) == {
        f"{MODULE}::test_helper": (
            "@@ `same` in tests/helpers.py @@",
            " def same(got, want):",
            "-    assert got == want",
            "+    pass",
        )
    }


def test_a_huge_function_is_cut_to_the_cap_and_says_how_many_lines_are_left(
    tmp_path: Path,
) -> None:
    body = "".join(f"    assert add({n}, 0) == {n}\n" for n in range(3000))
    huge = BASE + "\n\ndef test_huge():\n" + body
    change = huge.replace("== ", "!= ")
    assert len(change.splitlines()) * 2 > 4000  # past what is matched line by line
    [lines] = diffs(tmp_path, {MODULE: change}, [f"{MODULE}::test_huge"], huge).values()
    assert len(lines) == MAX_DIFF_LINES
    assert lines[:3] == (
        "@@ its definition @@",
        "-    assert add(0, 0) == 0",
        "-    assert add(1, 0) == 1",
    )
    assert lines[-1] == f"… {6001 - (MAX_DIFF_LINES - 1)} more lines"


def test_a_long_line_is_cut(tmp_path: Path) -> None:
    change = BASE.replace("assert got == 5", f"assert got == '{'9' * 5000}'")
    [lines] = diffs(tmp_path, {MODULE: change}, [f"{MODULE}::test_add"]).values()
    assert lines[-1] == "+    assert got == '" + "9" * (MAX_DIFF_LINE - 21) + "…"
    assert len(lines[-1]) == MAX_DIFF_LINE
