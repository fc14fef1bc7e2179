"""The tests a test file declares, read from its text alone (`Runner.declared`), from which
the plan of a change's tests takes the new tests its registry does not list: each id
exactly as the runner's report names it, and none where the run decides the id."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.support import write_tree
from waiver.read.trusted.trees import DiskTree
from waiver.runners import runner_named

PYTHON = "tests/test_calc.py"
PYTHON_TESTS = """\
import pytest


def test_one():
    pass


async def test_two():
    pass


def helper():
    pass


@pytest.mark.parametrize("x", [1, 2])
def test_many(x):
    pass


class TestGroup:
    def test_a(self):
        pass

    def helper(self):
        pass


class TestWithInit:
    def __init__(self):
        pass

    def test_b(self):
        pass


@pytest.mark.parametrize("y", [1])
class TestParametrized:
    def test_c(self, y):
        pass


class TestMarked:
    pytestmark = [pytest.mark.parametrize("z", [1])]

    def test_d(self, z):
        pass


class Helper:
    def test_e(self):
        pass
"""
SCRIPT = "test/calc.test.ts"
SCRIPT_TESTS = """\
describe('clamp', () => {
  it('keeps a value inside', () => {});
  it(`computed ${x}`, () => {});
  test.each([[1, 2]])('adds %i and %i', () => {});
  test.each(cases)('from a table %i', () => {});
  it('', () => {});
  describe('nested', () => {
    it('deep', () => {});
  });
});
it('top', () => {});
it('top', () => {});
describe(name, () => {
  it('under a computed title', () => {});
});
describe('', () => {
  it('under an empty title', () => {});
});
"""


def declared(tmp_path: Path, runner: str, path: str, text: str) -> list[str]:
    write_tree(tmp_path, {path: text})
    return runner_named(runner).declared(DiskTree(str(tmp_path)), path)


def test_pytest_s_tests_by_its_default_names_and_not_a_parametrized_one(tmp_path: Path) -> None:
    found = declared(tmp_path, "pytest", PYTHON, PYTHON_TESTS)
    assert found == [f"{PYTHON}::test_one", f"{PYTHON}::test_two", f"{PYTHON}::TestGroup::test_a"]


@pytest.mark.parametrize(
    "text",
    [
        "import pytest\npytestmark = pytest.mark.parametrize('x', [1])\n\ndef test_x(x):\n    pass\n",
        "def test_x(:\n",
    ],
    ids=["its module parametrizes every test", "it does not parse"],
)
def test_a_python_module_whose_ids_its_text_does_not_spell_declares_none(
    tmp_path: Path, text: str
) -> None:
    assert declared(tmp_path, "pytest", PYTHON, text) == []


@pytest.mark.parametrize(("runner", "separator"), [("jest", " "), ("vitest", " > ")])
def test_a_script_s_tests_whose_titles_are_literals(
    tmp_path: Path, runner: str, separator: str
) -> None:
    found = declared(tmp_path, runner, SCRIPT, SCRIPT_TESTS)
    inside = ["keeps a value inside", "adds 1 and 2", "(empty title)", f"nested{separator}deep"]
    titles = [*(f"clamp{separator}{title}" for title in inside), "top"]
    assert found == [f"{SCRIPT}::{title}" for title in titles]


def test_a_file_that_is_not_a_script_declares_none_to_a_javascript_runner(tmp_path: Path) -> None:
    assert declared(tmp_path, "mocha", PYTHON, PYTHON_TESTS) == []
