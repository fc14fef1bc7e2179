"""The harness of jest, vitest and mocha, resolved from files alone: configuration files by
every name, what they name with literal strings, the runner's keys of package.json, mock
folders and tracked installs; a computed module name is refused until a glob names it."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pytest

from waiver.decide.policy import Policy
from waiver.errors import InputError
from waiver.read.harness.named import harness_pairs, property_modules, suite_modules
from waiver.read.lock.lock_file import parse_lock, table_digest_of
from waiver.read.trusted.trees import DiskTree
from waiver.runners import LOCK_TABLES, policy_harness, runner_named
from waiver.runners.jest import JEST
from waiver.runners.mocha import MOCHA
from waiver.runners.vitest import VITEST


def tree(root: Path, files: dict[str, str]) -> DiskTree:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return DiskTree(str(root))


def paths(pairs: Iterable[tuple[str, str | None]]) -> set[str]:
    return {path for path, table in pairs if table is None}


def test_jest_config_files_by_every_name_in_any_folder(tmp_path: Path) -> None:
    files = {
        "jest.config.js": "module.exports = {};\n",
        "packages/ui/jest.config.ts": "export default {};\n",
        "babel.config.cjs": "module.exports = {};\n",
        ".babelrc": "{}\n",
        "packages/ui/tsconfig.build.json": '{"compilerOptions": {"types": ["jest"]}}\n',
        "src/app.js": "module.exports = 1;\n",
        "test/app.test.js": "test('x', () => {});\n",
    }
    pairs = JEST.files(tree(tmp_path, files))
    assert paths(pairs) == {
        "jest.config.js",
        "packages/ui/jest.config.ts",
        "babel.config.cjs",
        ".babelrc",
    }
    # Of a TypeScript configuration, what decides where modules load from, table by table.
    assert ("packages/ui/tsconfig.build.json", "compilerOptions.types") in pairs


def test_each_runner_has_its_own_configuration_names(tmp_path: Path) -> None:
    files = {
        ".mocharc.yml": "spec: test\n",
        "vitest.config.mts": "export default {};\n",
        "vite.config.js": "export default {};\n",
        "jest.config.json": "{}\n",
    }
    disk = tree(tmp_path, files)
    assert paths(MOCHA.files(disk)) == {".mocharc.yml"}
    assert paths(VITEST.files(disk)) == {"vitest.config.mts", "vite.config.js"}
    assert paths(JEST.files(disk)) == {"jest.config.json"}


def test_what_a_config_names_literally_is_harness_and_what_that_loads(tmp_path: Path) -> None:
    config = """\
const path = require('path');
module.exports = {
  preset: 'ts-jest',
  setupFilesAfterEnv: ['<rootDir>/test/setup'],
  globalSetup: path.join(__dirname, 'scripts/global-setup.js'),
  moduleNameMapper: { '^@/(.*)$': '<rootDir>/src/$1', '\\\\.css$': './test/style-stub.js' },
  transform: { '^.+\\\\.js$': './tools/transform.cjs' },
  roots: ['<rootDir>/src', '<rootDir>/test'],
};
"""
    files = {
        "jest.config.js": config,
        "test/setup.js": "require('./matchers');\nrequire('chai');\n",
        "test/matchers.js": "module.exports = {};\n",
        "test/style-stub.js": "module.exports = {};\n",
        "scripts/global-setup.js": "module.exports = async () => {};\n",
        "tools/transform.cjs": "module.exports = { process: (s) => ({ code: s }) };\n",
        "src/index.js": "module.exports = 1;\n",
        "test/app.test.js": "test('x', () => {});\n",
    }
    found = paths(JEST.files(tree(tmp_path, files)))
    assert found == {
        "jest.config.js",
        "test/setup.js",
        "test/matchers.js",
        "test/style-stub.js",
        "scripts/global-setup.js",
        "tools/transform.cjs",
    }
    # `roots` names where the tests are looked for, not a module jest loads.
    assert "src/index.js" not in found


def test_a_mocharc_names_its_require_hooks(tmp_path: Path) -> None:
    files = {
        ".mocharc.yml": "require:\n  - test/hooks.js\n  - ts-node/register\nspec: test/**/*.spec.js\n",
        "test/hooks.js": "require('./more');\n",
        "test/more.js": "\n",
        "test/a.spec.js": "it('x', () => {});\n",
    }
    assert paths(MOCHA.files(tree(tmp_path, files))) == {
        ".mocharc.yml",
        "test/hooks.js",
        "test/more.js",
    }


def test_the_runner_keys_of_package_json_are_locked_each_on_its_own(tmp_path: Path) -> None:
    package = {
        "name": "calc",
        "dependencies": {"left-pad": "1.0.0"},
        "jest": {"setupFiles": ["./jest.setup.js"]},
        "jest-junit": {"outputName": "junit.xml"},
    }
    files = {"package.json": json.dumps(package), "jest.setup.js": "\n"}
    pairs = JEST.files(tree(tmp_path, files))
    assert set(pairs) == {
        ("package.json", "jest"),
        ("package.json", "jest-junit"),
        ("jest.setup.js", None),
    }
    assert ("package.json", "mocha") not in pairs
    digest = table_digest_of(json.dumps(package).encode(), "package.json", "jest", LOCK_TABLES)
    bumped = {**package, "dependencies": {"left-pad": "1.3.0"}}
    assert (
        table_digest_of(json.dumps(bumped).encode(), "package.json", "jest", LOCK_TABLES) == digest
    )
    edited = {**package, "jest": {"setupFiles": []}}
    assert (
        table_digest_of(json.dumps(edited).encode(), "package.json", "jest", LOCK_TABLES) != digest
    )


def test_mock_folders_and_tracked_installs_are_harness(tmp_path: Path) -> None:
    files = {
        "__mocks__/fs.js": "module.exports = {};\n",
        "src/__mocks__/api.js": "module.exports = {};\n",
        "node_modules/expect/build/index.js": "module.exports = {};\n",
        ".pnp.cjs": "\n",
    }
    disk = tree(tmp_path, files)
    assert paths(JEST.files(disk)) == set(files)
    # mocha has no mock folders of its own.
    assert paths(MOCHA.files(disk)) == {"node_modules/expect/build/index.js", ".pnp.cjs"}


def test_a_computed_module_name_is_refused_until_a_glob_names_the_file(tmp_path: Path) -> None:
    files = {"jest.config.js": "const name = process.env.SETUP;\nrequire(name);\n"}
    disk = tree(tmp_path, files)
    with pytest.raises(InputError) as refused:
        JEST.files(disk)
    assert refused.value.source == "jest.config.js"
    assert "line 2" in refused.value.problem
    assert "harness" in refused.value.problem
    harness = JEST.harness(("jest.config.js", "setup/*.js"), frozenset())
    assert ("jest.config.js", None) in harness_pairs(disk, harness)
    elsewhere = JEST.harness(("package.json",), frozenset())
    with pytest.raises(InputError):
        harness_pairs(disk, elsewhere)


def test_a_symlinked_config_is_refused(tmp_path: Path) -> None:
    (tmp_path / "real.js").write_text("module.exports = {};\n")
    (tmp_path / "jest.config.js").symlink_to(tmp_path / "real.js")
    with pytest.raises(InputError, match="symlink"):
        JEST.files(DiskTree(str(tmp_path)))


def test_a_package_json_that_is_not_json_is_an_input_error(tmp_path: Path) -> None:
    disk = tree(tmp_path, {"package.json": "{'jest': {}}\n"})
    with pytest.raises(InputError, match="not valid JSON"):
        JEST.files(disk)


def test_pytest_adds_nothing_and_keeps_its_own_harness(tmp_path: Path) -> None:
    files = {"conftest.py": "\n", "jest.config.js": "module.exports = {};\n"}
    disk = tree(tmp_path, files)
    pytest_runner = runner_named("pytest")
    assert pytest_runner.files(disk) == {}
    assert list(harness_pairs(disk, pytest_runner.harness((), frozenset()))) == [
        ("conftest.py", None)
    ]
    # A JavaScript runner's harness holds pytest's too.
    assert paths(harness_pairs(disk, JEST.harness((), frozenset()))) == {
        "conftest.py",
        "jest.config.js",
    }


def test_a_property_suite_locks_its_javascript_and_typescript_modules(tmp_path: Path) -> None:
    files = {
        "properties/add.test.js": "\n",
        "properties/arb/ints.ts": "\n",
        "properties/data.json": "{}\n",
        "properties/node_modules/fast-check/index.js": "\n",
        "properties/test_props.py": "\n",
    }
    tree(tmp_path, files)
    modules = suite_modules(str(tmp_path), str(tmp_path / "properties"))
    assert modules == [
        "properties/add.test.js",
        "properties/arb/ints.ts",
        "properties/test_props.py",
    ]
    ids = ["properties/add.test.js::add commutes", "properties/test_props.py::test_x", "add::x"]
    assert property_modules(ids) == {"properties/add.test.js", "properties/test_props.py"}


def test_the_package_managers_node_options_name_their_hooks(tmp_path: Path) -> None:
    files = {".npmrc": 'node-options="--require ./hooks/quiet.js"\n', "hooks/quiet.js": "\n"}
    assert paths(MOCHA.files(tree(tmp_path, files))) == {".npmrc", "hooks/quiet.js"}


def test_the_package_scripts_the_policy_names_are_locked_with_their_pre_and_post(
    tmp_path: Path,
) -> None:
    package = {"name": "calc", "scripts": {"test": "vitest run", "build": "tsc"}}
    tree(tmp_path, {"package.json": json.dumps(package)})
    policy = Policy(runner="vitest", package_scripts=("test",))
    pairs = harness_pairs(DiskTree(str(tmp_path)), policy_harness(policy, frozenset()))
    tables = [table for path, table in pairs if path == "package.json"]
    assert tables == ["scripts.pretest", "scripts.test", "scripts.posttest"]
    assert ("package.json", None) not in pairs  # the file itself is not locked whole

    def digest(scripts: dict[str, str], table: str) -> str | None:
        document = json.dumps({**package, "scripts": scripts}).encode()
        return table_digest_of(document, "package.json", table, LOCK_TABLES)

    test = digest(package["scripts"], "scripts.test")
    assert test is not None
    assert digest({**package["scripts"], "build": "tsc -b"}, "scripts.test") == test
    assert digest({**package["scripts"], "test": "vitest run; strip"}, "scripts.test") != test
    # A pretest the base did not have is absent there, and present once the change adds it.
    assert digest(package["scripts"], "scripts.pretest") is None
    assert digest({**package["scripts"], "pretest": "strip"}, "scripts.pretest") is not None


def test_a_lock_line_of_a_package_script_reads_back() -> None:
    line = f"# [scripts.test:unit] {'a' * 64}  package.json\n"
    assert parse_lock(line.encode(), "fixture.lock", LOCK_TABLES)[0].table == "scripts.test:unit"
    with pytest.raises(InputError, match="must be a table line"):
        parse_lock(
            f"# [tool.other] {'a' * 64}  package.json\n".encode(), "fixture.lock", LOCK_TABLES
        )


SETUP_NAMING = {
    "jest": ("jest.config.js", "module.exports = { setupFilesAfterEnv: ['./test/setup.js'] };\n"),
    "vitest": (
        "vitest.config.ts",
        "export default { test: { setupFiles: ['./test/setup.js'], coverage: { include: ['src'] } } };\n",
    ),
    "mocha": (".mocharc.yml", "require:\n  - test/setup.js\nspec: test/**/*.spec.js\n"),
}


@pytest.mark.parametrize("runner", sorted(SETUP_NAMING))
def test_a_setup_file_s_import_of_the_library_and_tsconfig_s_include_name_no_harness(
    tmp_path: Path, runner: str
) -> None:
    """The library's source is code under test: a setup file that imports it (for a custom
    matcher) and a tsconfig whose `include` names it leave it out of the harness; the
    setup file's helper in the test folder, and what of tsconfig decides where modules
    load from, are in it, each with why."""
    config, text = SETUP_NAMING[runner]
    files = {
        config: text,
        "test/setup.js": "const { clamp } = require('../src');\nconst { near } = require('./helpers');\n",
        "test/helpers.js": "exports.near = () => true;\n",
        "src/index.js": "module.exports = require('./calc');\n",
        "src/calc.js": "exports.clamp = (x) => x;\n",
        "tsconfig.json": '{\n  // the build\n  "compilerOptions": {"strict": true, "paths": {"@/*": ["./src/*"]}},\n'
        '  "include": ["src"],\n}\n',
    }
    found = runner_named(runner).files(tree(tmp_path, files))
    assert {path for path, _ in found} == {
        config,
        "test/setup.js",
        "test/helpers.js",
        "tsconfig.json",
    }
    assert ("tsconfig.json", None) not in found
    assert found[("tsconfig.json", "compilerOptions.paths")].text == "TypeScript's configuration"
    where = {"jest": "setupFilesAfterEnv", "vitest": "test.setupFiles", "mocha": "require"}[runner]
    assert found[("test/setup.js", None)].text == f"named by {config} {where}"
    assert found[("test/helpers.js", None)].text == "loaded by test/setup.js"
    # A tsconfig's include, or a compiler option of the build, is no drift.
    widened = (
        files["tsconfig.json"]
        .replace('["src"]', '["src", "scripts"]')
        .replace('"strict": true', '"strict": false')
    )
    digest = table_digest_of(
        files["tsconfig.json"].encode(), "tsconfig.json", "compilerOptions.paths", LOCK_TABLES
    )
    assert (
        table_digest_of(widened.encode(), "tsconfig.json", "compilerOptions.paths", LOCK_TABLES)
        == digest
    )


def test_a_configuration_s_own_imports_beside_it_are_harness_its_library_s_are_not(
    tmp_path: Path,
) -> None:
    files = {
        "vitest.config.ts": "import shared from './vitest.shared';\n"
        "import plugin from './src/plugin';\nimport pkg from './package.json';\n"
        "export default { ...shared, plugins: [plugin()], define: { v: pkg.version } };\n",
        "vitest.shared.ts": "import { near } from './test/near';\nexport default {};\n",
        "test/near.ts": "export const near = 1;\n",
        "src/plugin.ts": "export default () => ({});\n",
        "package.json": '{"name": "lib", "version": "1.0.0"}\n',
    }
    found = VITEST.files(tree(tmp_path, files))
    assert paths(found) == {"vitest.config.ts", "vitest.shared.ts", "test/near.ts"}
    assert found[("vitest.shared.ts", None)].text == "loaded by vitest.config.ts"
