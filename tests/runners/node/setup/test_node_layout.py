"""What `waiver init` finds in a JavaScript project from its files alone: the runner that
package.json names, the property suite by folder, by name or by its fast-check import, the
fixture folders and the data beside the tests; and every problem at once, numbered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.init_support import init
from helpers.support import write_tree
from waiver.cli import main
from waiver.errors import UsageError
from waiver.runners.node.setup.node_layout import (
    PNPM_INSTALL,
    YARN_BERRY_INSTALL,
    YARN_INSTALL,
    choose_runner,
    detect_runner,
    find_node_layout,
    install_step,
)

CALC_TEST = "const { add } = require('../src/calc');\n\ntest('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n"
FAST_CHECK_TEST = (
    "import fc from 'fast-check';\nimport { add } from '../src/calc';\n\n"
    "test('commutes', () => {\n  fc.assert(fc.property(fc.integer(), fc.integer(), "
    "(a, b) => add(a, b) === add(b, a)));\n});\n"
)


def package(**keys: object) -> str:
    return json.dumps({"name": "calc", "private": True, **keys})


@pytest.mark.parametrize(
    ("files", "runner"),
    [
        # The test script wins over the dependencies, a configuration file over them too.
        ({"package.json": package(scripts={"test": "vitest run"}, devDependencies={"jest": "29"})}, "vitest"),
        ({"package.json": package(scripts={"test": "node_modules/.bin/mocha --exit"})}, "mocha"),
        ({"package.json": package(devDependencies={"mocha": "10"}), "jest.config.ts": "export default {};\n"}, "jest"),
        ({"package.json": package(jest={"testEnvironment": "node"})}, "jest"),
        ({"package.json": package(devDependencies={"mocha": "10", "chai": "4"})}, "mocha"),
        ({"package.json": package(dependencies={"lodash": "4"})}, None),
    ],
)  # fmt: skip
def test_the_runner_is_the_one_package_json_names(
    tmp_path: Path, files: dict[str, str], runner: str | None
) -> None:
    root = write_tree(tmp_path, files)
    assert detect_runner(str(root), json.loads(files["package.json"])) == runner


def test_two_runners_in_one_place_ask_for_the_flag(tmp_path: Path) -> None:
    files = {"package.json": package(scripts={"test": "jest && mocha"})}
    root = write_tree(tmp_path, files)
    with pytest.raises(UsageError) as raised:
        detect_runner(str(root), json.loads(files["package.json"]))
    assert str(raised.value) == (
        "the `test` script of package.json names jest and mocha: name the runner the gate "
        "replays with --runner"
    )


def test_a_python_test_suite_keeps_pytest_beside_a_package_json(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {
        "package.json": package(devDependencies={"jest": "29"}),
        "tests/test_lib.py": "def test_x():\n    pass\n",
    })  # fmt: skip
    assert choose_runner(str(root), None) == "pytest"
    assert choose_runner(str(root), "jest") == "jest"


def test_the_property_suite_by_folder_then_by_name_then_by_fast_check(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "by-name", {
        "test/calc.test.js": CALC_TEST,
        "test/add.property.test.js": CALC_TEST,
        "test/commutes.test.js": FAST_CHECK_TEST,
    })  # fmt: skip
    found = find_node_layout(str(root), "jest")
    assert (found.property_folders, found.property_files) == ((), ("test/add.property.test.js",))
    root = write_tree(tmp_path / "by-import", {
        "src/__tests__/calc.test.js": CALC_TEST,
        "src/__tests__/commutes.test.ts": FAST_CHECK_TEST,
    })  # fmt: skip
    found = find_node_layout(str(root), "vitest")
    assert (found.property_folders, found.property_files) == (
        (),
        ("src/__tests__/commutes.test.ts",),
    )
    root = write_tree(tmp_path / "by-folder", {
        "test/calc.test.js": CALC_TEST,
        "test/properties/commutes.test.js": FAST_CHECK_TEST,
        "test/add.property.test.js": CALC_TEST,
    })  # fmt: skip
    found = find_node_layout(str(root), "mocha")
    assert (found.property_folders, found.property_files) == (("test/properties",), ())


def test_fixture_folders_and_data_beside_the_tests(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {
        "package-lock.json": "{}",
        "test/calc.test.js": CALC_TEST,
        "test/cases.json": "[]",
        "test/tsconfig.json": "{}",
        "test/README.md": "notes",
        "test/.eslintrc.json": "{}",
        "test/__snapshots__/calc.test.js.snap": "exports[`adds 1`] = `3`;",
        "fixtures/big.csv": "1,2\n",
        "properties/commutes.test.js": FAST_CHECK_TEST,
        "properties/fixtures/seeds.json": "[]",
        "node_modules/fixtures/x.json": "{}",
    })  # fmt: skip
    found = find_node_layout(str(root), "jest")
    assert found.fixtures.fixture_folders == ("fixtures", "test/__snapshots__")
    assert found.fixtures.data_files == ("test/cases.json",)
    assert found.fixtures.fixtures_root == "."
    assert found.fixtures.fixture_globs == ("fixtures/*", "test/__snapshots__/*", "test/cases.json")
    assert found.lockfile == "package-lock.json"


def test_every_problem_at_once_numbered_on_lines_of_their_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No pin, no property suite, an install git does not ignore (no clone here): one exit
    2 names all three, and writes nothing."""
    root = write_tree(tmp_path, {
        "package.json": package(scripts={"test": "jest"}),
        "test/calc.test.js": CALC_TEST,
        "node_modules/jest/package.json": "{}",
    })  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        assert main(["init"]) == 2
    assert capsys.readouterr().err == (
        "waiver: error: 3 problems, so nothing was written:\n"
        "  1. give --waiver-repository OWNER/NAME and --waiver-ref FULL_SHA: the waiver the "
        "workflow runs, pinned by commit (known by itself only when pip installed waiver from "
        "GitHub with git)\n"
        "  2. no property suite found, so nothing was written: a gate whose property step "
        "cannot fail protects nothing. Write one first: a folder properties/ of test files "
        "that check invariants of your code (with fast-check's fc.assert, say), each of which "
        "fails when the invariant breaks, or test files named *.property.test.js; or name an "
        "existing folder with --property-suite DIR\n"
        "  3. node_modules/ is not a folder git ignores (no .gitignore line for it, or not in "
        "a git clone), so every installed file would be locked as test harness: run init in "
        "the git clone, with `node_modules/` in .gitignore\n"
    )
    assert sorted(path.name for path in root.iterdir()) == ["node_modules", "package.json", "test"]


def test_a_package_json_that_names_no_runner_asks_for_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_tree(tmp_path, {"package.json": package(), "test/calc.test.js": CALC_TEST})
    assert init(root) == 2
    assert capsys.readouterr().err == (
        "waiver: error: package.json names no test runner (jest, vitest or mocha in its `test` "
        "script, a configuration file or its dependencies), and there is no pytest suite: "
        "name the runner with --runner\n"
    )


def test_a_config_that_computes_what_it_loads_asks_for_harness_globs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The lock and the run are both tried: the configuration the gate cannot resolve and
    the runner that is not installed are named in one exit 2; `--harness` settles the
    first."""
    root = write_tree(tmp_path, {
        "package.json": package(scripts={"test": "jest"}),
        "jest.config.js": "const name = process.env.SETUP;\nmodule.exports = require(name);\n",
        "test/calc.test.js": CALC_TEST,
        "properties/commutes.test.js": FAST_CHECK_TEST,
    })  # fmt: skip
    assert init(root) == 2
    assert capsys.readouterr().err == (
        "waiver: error: 2 problems, so nothing was written:\n"
        "  1. jest.config.js: loads a module whose name it computes (line 2), so the gate "
        "cannot tell which files it loads: name this file and those files with `harness:` "
        "globs in the policy file\n"
        "  2. node_modules/.bin/jest is missing, and init runs the suite once with it: install "
        "the project's packages first (npm install)\n"
        "The written commands were not run: init runs them once these are settled.\n"
    )
    assert init(root, "--harness", "jest.config.js") == 2
    assert capsys.readouterr().err == (
        "waiver: error: node_modules/.bin/jest is missing, and init runs the suite once with "
        "it: install the project's packages first (npm install)\n"
        "The written commands were not run: init runs them once these are settled.\n"
    )


@pytest.mark.parametrize(
    ("files", "step"),
    [
        ({}, "npm install"),
        ({"package-lock.json": "{}"}, "npm ci"),
        ({"npm-shrinkwrap.json": "{}", "yarn.lock": ""}, "npm ci"),  # npm's first
        ({"pnpm-lock.yaml": "lockfileVersion: '9.0'\n"}, PNPM_INSTALL),
        ({"yarn.lock": "# yarn lockfile v1\n"}, YARN_INSTALL),
        ({"yarn.lock": "__metadata:\n", ".yarnrc.yml": "nodeLinker: node-modules\n"},
         YARN_BERRY_INSTALL),
        ({"bun.lockb": ""}, None),
    ],
    ids=["none", "npm", "npm beside yarn", "pnpm", "yarn 1", "yarn 2+", "bun"],
)  # fmt: skip
def test_the_install_step_is_the_package_manager_s_frozen_install(
    tmp_path: Path, files: dict[str, str], step: str | None
) -> None:
    assert install_step(str(write_tree(tmp_path, {"package.json": package(), **files}))) == step


@pytest.mark.parametrize(
    ("lockfile", "problem"),
    [
        (
            "pnpm-lock.yaml",
            "node_modules/.bin/jest is missing, and init runs the suite once with it: install "
            f"the project's packages first ({PNPM_INSTALL})",
        ),
        (
            "bun.lockb",
            "bun.lock or bun.lockb: init writes the install step of npm, pnpm and yarn, and "
            "this project locks its packages with bun; give the install step with "
            "--setup-command",
        ),
    ],
)
def test_a_project_of_another_package_manager_is_named_with_its_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lockfile: str, problem: str
) -> None:
    root = write_tree(tmp_path, {
        "package.json": package(scripts={"test": "jest"}), lockfile: "",
        "test/calc.test.js": CALC_TEST, "properties/commutes.test.js": FAST_CHECK_TEST,
    })  # fmt: skip
    assert init(root) == 2
    assert problem in capsys.readouterr().err
