"""A repository built from scratch for red-green evidence: a base with a bug, and a change
that fixes it and adds tests, one that fails without the fix, one that passes anyway, and
one that imports what only the change defines. Its conftest, which the change rewrites to
report every test as passed, is harness: the base's runs there."""

from __future__ import annotations

import sys
from pathlib import Path

from helpers.change_support import fix_slugify
from helpers.support import git, write_tree

PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
BASE = {
    "calc.py": "def add(a, b):\n    return a - b if a > 5 else a + b\n",
    "conftest.py": "",
    "tests/__init__.py": "",
    "tests/test_calc.py": """\
from calc import add


def test_add_small():
    assert add(1, 2) == 3
""",
}
FORGING_CONFTEST = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
"""
CHANGE = {
    "calc.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n",
    "conftest.py": FORGING_CONFTEST,
    "tests/test_calc.py": """\
from calc import add


def test_add_small():
    assert add(1, 2) == 3


def test_add_big():
    assert add(7, 1) == 8


def test_add_zero():
    assert add(0, 0) == 0
""",
    "tests/test_mul.py": """\
from calc import mul


def test_mul():
    assert mul(2, 3) == 6
""",
}
RED = "tests/test_calc.py::test_add_big"
GREEN = "tests/test_calc.py::test_add_zero"
ERRORED = "tests/test_mul.py::test_mul"
KNOWN = "tests/test_calc.py::test_add_small"


def commit(work: Path, files: dict[str, str], message: str) -> str:
    write_tree(work, dict(files))
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", message)
    return git(work, "rev-parse", "HEAD")


def base_and_change(work: Path, change: dict[str, str] | None = None) -> str:
    """The base committed, then the change on top (checked out); the base's commit id."""
    work.mkdir(parents=True, exist_ok=True)
    git(work, "init", "--quiet")
    base = commit(work, BASE, "base")
    commit(work, CHANGE if change is None else change, "change")
    return base


# --- the bundled example, for the reusable workflow's red-green job ----------------------

# What a team that gates bug-fix changes writes into the base's policy file.
RED_GREEN_POLICY = "review_requires: [red_green]\n"
# A test of the fix: the base's slugify gives "" for text without letters or digits.
FIX_TEST = "tests/assertions/test_untitled.py::test_punctuation_only"
FIX_TEST_TEXT = """\
from slugify import slugify


def test_punctuation_only() -> None:
    assert slugify("?!") == "untitled"
"""
# A test that passes on the base too: it proves nothing about the fix.
BYSTANDER_TEST = "tests/assertions/test_spaces.py::test_double_space"
BYSTANDER_TEST_TEXT = """\
from slugify import slugify


def test_double_space() -> None:
    assert slugify("a  b") == "a-b"
"""


def fix_and_add(work: Path, test_id: str, text: str) -> None:
    """The example's fix, and one new test that the change's registry lists."""
    fix_slugify(work)
    (work / test_id.partition("::")[0]).write_text(text)
    registry = work / "known-tests.txt"
    registry.write_text(registry.read_text() + test_id + "\n")


def fix_with_a_red_green_test(work: Path) -> None:
    fix_and_add(work, FIX_TEST, FIX_TEST_TEXT)


def fix_with_a_green_green_test(work: Path) -> None:
    fix_and_add(work, BYSTANDER_TEST, BYSTANDER_TEST_TEXT)
