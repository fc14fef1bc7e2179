"""The trusted test tree: which paths the base's configuration makes test code or test data,
for pytest and the JavaScript runners, decided from the base's files alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.support import write_tree
from waiver.errors import InputError
from waiver.read.harness.test_tree import TestTree
from waiver.read.trusted.trees import DiskTree
from waiver.runners import NODE_RUNNERS, RUNNERS


def tree_of(tmp_path: Path, runner: str, files: dict[str, str | bytes]) -> TestTree:
    return RUNNERS[runner].test_tree(DiskTree(str(write_tree(tmp_path / "base", files))))


PYTEST_BASE: dict[str, str | bytes] = {
    "calc/__init__.py": "",
    "calc/core.py": "",
    "calc/testing/__init__.py": "",  # code the package ships, beside its own tests
    "calc/testing/tests/test_testing.py": "",
    "calc/test_colocated.py": "",
    "tests/conftest.py": "",
    "tests/unit/test_core.py": "",
    "tests/helpers.py": "",
    "tests/data/expected.json": "",
    "tests/__snapshots__/test_core.ambr": "",
    "scripts/check_release.py": "",
}


@pytest.mark.parametrize(
    ("path", "held"),
    [
        ("tests/unit/test_core.py", True),
        ("tests/unit/test_new.py", True),  # a test the change adds where pytest collects it
        ("tests/helpers.py", True),
        ("tests/new_helper.py", True),
        ("tests/data/expected.json", True),
        ("tests/conftest.py", True),
        ("calc/test_colocated.py", True),
        ("calc/test_added.py", True),  # colocated, by the base's python_files
        ("calc/core.py", False),  # code beside a colocated test
        ("calc/testing/__init__.py", False),  # code, though its folder is named as tests
        ("calc/testing/tests/test_testing.py", True),
        ("calc/testing/tests/helpers.py", True),
        ("calc/__snapshots__/x.ambr", True),
        ("scripts/check_release.py", False),
        ("test/test_new_folder.py", True),  # collected, though no base folder holds tests
        ("test/helper.py", False),  # a folder the base holds no test in is code
    ],
)
def test_pytest_s_test_tree_is_what_its_configuration_collects_and_the_folders_that_hold_it(
    tmp_path: Path, path: str, held: bool
) -> None:
    assert tree_of(tmp_path, "pytest", PYTEST_BASE).holds(path) is held


def test_pytest_s_testpaths_and_python_files_decide_what_is_collected(tmp_path: Path) -> None:
    tree = tree_of(
        tmp_path,
        "pytest",
        {
            "pytest.ini": "[pytest]\ntestpaths = checks src\npython_files = check_*.py\n",
            "checks/tests/check_core.py": "",
            "src/calc.py": "",
            "other/check_stray.py": "",
        },
    )
    assert tree.holds("checks/tests/check_core.py")
    assert tree.holds("checks/tests/helpers.py")
    # A configured test path is no test folder: `src` holds the code under test.
    assert not tree.holds("src/calc.py")
    assert not tree.holds("checks/test_default_name.py")
    assert not tree.holds("other/check_stray.py")  # outside testpaths


def test_a_test_named_file_where_the_base_collects_none_is_said(tmp_path: Path) -> None:
    tree = tree_of(
        tmp_path, "pytest", {"pytest.ini": "[pytest]\ntestpaths = tests\n", "tests/test_a.py": ""}
    )
    assert tree.uncollected("tools/test_release.py")
    assert not tree.uncollected("tests/test_b.py")
    assert not tree.uncollected("tools/release.py")


JS_BASE: dict[str, str | bytes] = {
    "package.json": '{"name": "calc"}\n',
    "src/calc.js": "",
    "src/calc.test.js": "",
    "src/__tests__/more.js": "",
    "src/__mocks__/fs.js": "",
    "test/helpers/setup.js": "",
    "test/calc.spec.ts": "",
    "test/fixtures/expected.json": "",
    "lib/util.js": "",
}


@pytest.mark.parametrize("runner", list(NODE_RUNNERS))
@pytest.mark.parametrize(
    ("path", "held"),
    [
        ("src/calc.test.js", True),
        ("src/added.test.ts", True),
        ("src/calc.js", False),
        ("lib/util.js", False),
        ("test/calc.spec.ts", True),
        ("test/helpers/setup.js", True),
        ("test/fixtures/expected.json", True),
        ("src/__snapshots__/calc.test.js.snap", True),
        ("node_modules/chai/index.js", False),
    ],
)
def test_a_javascript_runner_s_test_tree_holds_its_spec_files_and_their_folders(
    tmp_path: Path, runner: str, path: str, held: bool
) -> None:
    assert tree_of(tmp_path, runner, JS_BASE).holds(path) is held


@pytest.mark.parametrize(("runner", "held"), [("jest", True), ("vitest", True), ("mocha", False)])
def test_mocks_are_test_data_where_the_runner_loads_them_without_configuration(
    tmp_path: Path, runner: str, held: bool
) -> None:
    assert tree_of(tmp_path, runner, JS_BASE).holds("src/__mocks__/fs.js") is held


def test_jest_s_configured_patterns_add_to_its_defaults(tmp_path: Path) -> None:
    tree = tree_of(
        tmp_path,
        "jest",
        {
            "package.json": '{"name": "calc"}\n',
            "jest.config.js": "module.exports = {\n"
            "  testMatch: ['<rootDir>/checks/**/*.check.js'],\n"
            "  testRegex: '/verify/.*\\\\.js$',\n"
            "  coverageThreshold: {global: {lines: 90}},\n"
            "};\n",
        },
    )
    assert tree.holds("checks/deep/core.check.js")
    assert tree.holds("app/verify/core.js")
    assert tree.holds("src/calc.test.js")  # the defaults still count
    assert not tree.holds("checks/core.js")


def test_vitest_reads_include_inside_test_alone(tmp_path: Path) -> None:
    tree = tree_of(
        tmp_path,
        "vitest",
        {
            "vitest.config.ts": "export default {\n"
            "  test: {include: ['checks/**/*.ts'], coverage: {include: ['src/**']}},\n"
            "};\n",
        },
    )
    assert tree.holds("checks/core.ts")
    assert not tree.holds("src/calc.ts")  # coverage's include names the code


def test_mocha_s_spec_from_its_configuration_names_files_and_folders(tmp_path: Path) -> None:
    tree = tree_of(
        tmp_path,
        "mocha",
        {
            ".mocharc.yml": "spec:\n  - spec-files\n  - 'extra/**/*.check.js'\n",
            "spec-files/core.js": "",
            "extra/a/b.check.js": "",
            "src/calc.js": "",
        },
    )
    assert tree.holds("spec-files/core.js")
    assert tree.holds("spec-files/deep/new.js")
    assert tree.holds("extra/a/b.check.js")
    assert tree.holds("test/calc.js")  # mocha's default spec
    assert not tree.holds("test/deeper/calc.js")  # not recursive, and no base test there
    assert not tree.holds("src/calc.js")


def test_a_test_pattern_that_cannot_be_read_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="names a test pattern it cannot read"):
        tree_of(
            tmp_path,
            "jest",
            {"package.json": '{"name": "calc", "jest": {"testRegex": "(unclosed"}}\n'},
        )
