"""A jest CLI library's first day, of commander.js's shape: the library at the root
(`index.js` over `lib/`), a setup file that requires it for a custom matcher, a test that
reads `process.argv`, fixture executables with a symlink among them, a test script that
runs jest and then a type check, and no jest-junit among its dependencies.

`waiver init` with only the waiver pin sets it up in one run: the library is not locked,
the symlink is named and its folder's other files are locked one by one, jest-junit comes
from the install step, and no word of the gate's reaches `process.argv` but the ones jest
needs. Then changes are committed, replayed with the written commands and gated.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers.init_support import (
    gate_written,
    runner_part,
    workflow_inputs,
)
from helpers.library_support import (
    commit_files,
    copy_change,
    initialised,
    installed_template,
    locked_paths,
    start_library,
)
from helpers.node_support import registry
from helpers.support import classes
from waiver.runners.node.setup.node_commands import REPORTER_INSTALL

pytestmark = pytest.mark.slow

PACKAGE = {
    "name": "clip",
    "version": "1.0.0",
    "private": True,
    "main": "index.js",
    "engines": {"node": ">=18"},
    "scripts": {"test": "jest --ci && npm run check:types", "check:types": "tsc -p tsconfig.json"},
    "devDependencies": {"jest": "29.7.0"},
}
COMMAND = """\
class Command {
  constructor() {
    this.options = {};
  }

  parse(argv = process.argv.slice(2)) {
    for (const word of argv) {
      if (!word.startsWith('--')) continue;
      const [name, value] = word.slice(2).split('=');
      this.options[name] = value === undefined ? true : value;
    }
    return this;
  }
}

module.exports = { Command };
"""
CONFIG = """\
module.exports = {
  testEnvironment: 'node',
  setupFilesAfterEnv: ['./tests/setup.js'],
  collectCoverageFrom: ['lib/**/*.js'],
  roots: ['<rootDir>'],
};
"""
SETUP = """\
const { Command } = require('../');

expect.extend({
  toParseAs(words, expected) {
    const found = new Command().parse(words).options;
    const pass = this.equals(found, expected);
    return { pass, message: () => `${words} parsed as ${JSON.stringify(found)}` };
  },
});
"""
COMMAND_TEST = """\
const fs = require('fs');
const path = require('path');
const { Command } = require('../');

describe('parse', () => {
  test('reads a flag', () => {
    expect(['--force']).toParseAs({ force: true });
  });

  test('reads a value', () => {
    expect(new Command().parse(['--name=x']).options.name).toBe('x');
  });

  test('reads its own process arguments', () => {
    // jest's options reach process.argv in a run in band: --ci must not be among them.
    expect(new Command().parse().options.ci).toBeUndefined();
  });
});

describe('fixtures', () => {
  test('the executable is there', () => {
    expect(fs.readFileSync(path.join(__dirname, 'fixtures', 'pm'), 'utf8')).toContain('node');
  });
});
"""
PROPERTY = """\
const { Command } = require('../');

test('a parsed flag is true', () => {
  for (let i = 0; i < 50; i += 1) {
    const name = `flag${i}`;
    expect(new Command().parse([`--${name}`]).options[name]).toBe(true);
  }
});
"""
FILES = {
    "index.js": "module.exports = require('./lib/command');\n",
    "lib/command.js": COMMAND,
    "jest.config.js": CONFIG,
    "tsconfig.json": '{"compilerOptions": {"allowJs": true, "noEmit": true}, "include": ["lib"]}\n',
    "tests/setup.js": SETUP,
    "tests/command.test.js": COMMAND_TEST,
    "tests/fixtures/pm": "#!/usr/bin/env node\nconsole.log('pm');\n",
    "tests/fixtures/pm-install": "#!/usr/bin/env node\nconsole.log('install');\n",
    "properties/flags.test.js": PROPERTY,
}
VALUE = "tests/command.test.js::parse reads a value"


@pytest.fixture(scope="module")
def first_day(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The library after `waiver init` with the pin alone, committed as the base: its root
    and what init printed."""
    cache = tmp_path_factory.getbasetemp().parent / "libraries"
    template = installed_template(cache, "clip", PACKAGE, "npm")
    root = start_library(template, tmp_path_factory.mktemp("clip") / "clip", FILES)
    os.symlink("pm", root / "tests" / "fixtures" / "pmlink")
    return root, initialised(root, tmp_path_factory.mktemp("site"))


@pytest.fixture
def change(first_day: tuple[Path, str], tmp_path: Path) -> tuple[Path, str]:
    return copy_change(first_day[0], tmp_path)


def test_init_sets_the_library_up_in_one_run(first_day: tuple[Path, str]) -> None:
    root, printed = first_day
    locked = locked_paths(root)
    # The fixtures one by one beside their link; jest's configuration and its setup file;
    # never the library the setup file requires.
    assert locked == [
        "jest.config.js",
        "properties/flags.test.js",
        "tests/fixtures/pm",
        "tests/fixtures/pm-install",
        "tests/setup.js",
    ]
    assert "tests/fixtures/pmlink: a symlink, which the lock cannot hold" in printed
    inputs = workflow_inputs(root)
    assert inputs["setup-command"] == f"npm ci && {REPORTER_INSTALL}"
    assert "--ci" not in inputs["test-command"] and " CI=true " in inputs["test-command"]
    assert "left out of the test script: `npm run check:types` (not jest)" in printed
    assert "jest-junit is no dependency of package.json" in printed
    assert registry(root) == [
        "properties/flags.test.js::a parsed flag is true",
        "tests/command.test.js::fixtures the executable is there",
        "tests/command.test.js::parse reads a flag",
        VALUE,
        "tests/command.test.js::parse reads its own process arguments",
    ]


def test_an_honest_refactor_is_clean(change: tuple[Path, str]) -> None:
    root, base = change
    commit_files(root, {"lib/command.js": COMMAND.replace(
        "      const [name, value] = word.slice(2).split('=');\n",
        "      const parts = word.slice(2).split('=');\n      const [name, value] = parts;\n",
    )})  # fmt: skip
    code, report = gate_written(root, base, runner_part)
    assert (code, report["verdict"]) == (0, "clean"), report


def test_a_real_bug_is_a_stable_failure(change: tuple[Path, str]) -> None:
    root, base = change
    commit_files(root, {"lib/command.js": COMMAND.replace(": value;", ": value.toUpperCase();")})
    code, report = gate_written(root, base, runner_part)
    assert code == 1
    assert classes(report)[VALUE] == "stable_assertion_fail"
    assert report["fixtures"]["drift"] == []


def test_a_loosened_test_and_a_new_one_wait_for_review(change: tuple[Path, str]) -> None:
    root, base = change
    new = "tests/command.test.js::parse reads two flags"
    commit_files(root, {"tests/command.test.js": COMMAND_TEST.replace(
        "expect(new Command().parse(['--name=x']).options.name).toBe('x');",
        "expect(new Command().parse(['--name=x']).options.name).toBeDefined();",
    ).replace(
        "describe('parse', () => {\n",
        "describe('parse', () => {\n  test('reads two flags', () => {\n"
        "    expect(['--a', '--b']).toParseAs({ a: true, b: true });\n  });\n\n",
    )})  # fmt: skip
    code, report = gate_written(root, base, runner_part)
    assert code == 1
    assert [edit["test_id"] for edit in report["registry"]["edited"]] == [VALUE]
    unknown = {
        row["test_id"]: row["unknown"] for row in report["rows"] if row["class"] == "unknown_test"
    }
    assert unknown == {VALUE: "edited", new: "new"}
