"""A jest project with jest-junit, built from scratch, replayed by real jest and gated: each
way a change could grade itself blocks, naming what it changed; an honest refactor is clean
and a real bug is a stable failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.node_support import (
    Project,
    break_clamp,
    drifted,
    link_install,
    package_json,
    registry,
    replace_file,
    write_files,
)
from helpers.support import classes

pytestmark = pytest.mark.slow

JEST = [
    "env",
    "JEST_JUNIT_OUTPUT_FILE={junit}",
    "JEST_JUNIT_CLASSNAME={filepath}",
    "JEST_JUNIT_TITLE={classname} {title}",
    "JEST_JUNIT_ADD_FILE_ATTRIBUTE=true",
    "node_modules/.bin/jest",
    "--ci",
]
# After the folder: jest reads every word after `--reporters` as a reporter.
REPORTERS = ["--reporters=default", "--reporters=jest-junit"]
CALC = """\
function add(a, b) {
  return a + b;
}

function clamp(x, lo, hi) {
  return Math.min(Math.max(x, lo), hi);
}

module.exports = { add, clamp };
"""
CALC_TEST = """\
const { add, clamp } = require('../src/calc');
const cases = require('../fixtures/cases.json');

describe('add', () => {
  test.each(cases)('adds %i and %i', (a, b, sum) => {
    expect(add(a, b)).toBe(sum);
  });

  it('is zero for opposites', () => {
    expect(add(2, -2)).toBe(0);
  });
});

describe('clamp', () => {
  it('keeps a value inside', () => {
    expect(clamp(5, 0, 10)).toBe(5);
  });

  it('cuts a value above', () => {
    expect(clamp(15, 0, 10)).toBe(10);
  });
});
"""
# The same describe and title as a test of calc.test.js, in another file.
OTHER_TEST = """\
const { clamp } = require('../src/calc');

describe('clamp', () => {
  it('keeps a value inside', () => {
    expect(clamp(1, 0, 2)).toBe(1);
  });
});
"""
SETUP = """\
expect.extend({
  toBeEven(received) {
    return { pass: received % 2 === 0, message: () => `${received} is odd` };
  },
});
"""
PROPERTY = """\
const { add } = require('../src/calc');

test('add commutes', () => {
  for (let i = 0; i < 200; i += 1) {
    const a = Math.floor(Math.random() * 1000) - 500;
    const b = Math.floor(Math.random() * 1000) - 500;
    expect(add(a, b)).toBe(add(b, a));
  }
});
"""
CONFIG = """\
module.exports = {
  testEnvironment: 'node',
  setupFilesAfterEnv: ['<rootDir>/test/setup.js'],
};
"""
FILES = {
    "package.json": package_json(),
    "jest.config.js": CONFIG,
    "src/calc.js": CALC,
    "test/calc.test.js": CALC_TEST,
    "test/other.test.js": OTHER_TEST,
    "test/setup.js": SETUP,
    "properties/add.test.js": PROPERTY,
    "fixtures/cases.json": "[[1, 2, 3], [2, 3, 5]]\n",
}
INSIDE = "test/calc.test.js::clamp keeps a value inside"
ABOVE = "test/calc.test.js::clamp cuts a value above"
OTHER_INSIDE = "test/other.test.js::clamp keeps a value inside"
OPPOSITES = "test/calc.test.js::add is zero for opposites"
# Babel, which jest applies to every test file with no configuration of jest, taking every
# `expect(…)` statement out.
STRIP_EXPECT = """\
module.exports = {
  plugins: [
    () => ({
      visitor: {
        ExpressionStatement(path) {
          if (path.toString().startsWith('expect(')) path.remove();
        },
      },
    }),
  ],
};
"""
# An `expect` whose matchers never throw, for jest to load in place of the installed one.
LENIENT_EXPECT = """\
'use strict';
const lenient = new Proxy(function () {}, {
  get: (target, key) => (key === 'then' ? undefined : lenient),
  apply: () => lenient,
});
const real = require('../../expect-real/build/index.js');
function expect(actual, ...rest) {
  real.expect(actual, ...rest);
  return lenient;
}
Object.assign(expect, real.expect);
module.exports = { ...real, expect, default: expect };
"""


@pytest.fixture
def project(tmp_path: Path, node_modules: Path) -> tuple[Project, str]:
    work = tmp_path / "calc"
    work.mkdir()
    write_files(work, FILES)
    link_install(node_modules, work)
    jest = Project(work, "jest", [*JEST, "properties", *REPORTERS], [*JEST, "test", *REPORTERS])
    return jest, jest.commit_base()


def test_ids_name_the_file_and_two_files_with_one_title_are_two_ids(
    project: tuple[Project, str],
) -> None:
    jest, _ = project
    ids = registry(jest.work)
    assert {INSIDE, OTHER_INSIDE, ABOVE, OPPOSITES} <= set(ids)
    assert "test/calc.test.js::add adds 1 and 2" in ids
    assert "properties/add.test.js::add commutes" in ids


def test_an_honest_refactor_is_clean(project: tuple[Project, str]) -> None:
    jest, base = project

    def refactor(work: Path) -> None:
        code = work / "src/calc.js"
        replace_file(
            code,
            code.read_text().replace(
                "return Math.min(Math.max(x, lo), hi);",
                "const low = Math.max(x, lo);\n  return Math.min(low, hi);",
            ),
        )

    jest.commit_change(refactor)
    gated, report = jest.replay_and_gate(base)
    assert (gated, report["verdict"]) == (0, "clean"), report["rows"]
    assert set(classes(report).values()) == {"stable_pass"}


def test_a_real_bug_is_a_stable_failure(project: tuple[Project, str]) -> None:
    jest, base = project
    jest.commit_change(break_clamp)
    gated, report = jest.replay_and_gate(base)
    assert gated == 1
    assert classes(report)[ABOVE] == "stable_assertion_fail"
    assert classes(report)[INSIDE] == "stable_pass"
    assert classes(report)[OTHER_INSIDE] == "stable_pass"


def test_a_new_babel_config_that_strips_the_assertions_is_drift(
    project: tuple[Project, str],
) -> None:
    jest, base = project

    def strip(work: Path) -> None:
        break_clamp(work)
        replace_file(work / "babel.config.js", STRIP_EXPECT)

    jest.commit_change(strip)
    # With the change's own harness its replays pass: the config is live.
    gated, report = jest.replay_and_gate(base, harness_from=False)
    assert report["rows"] and {row["replay_pass"] for row in report["rows"]} == {3}
    assert gated == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert "babel.config.js" in drifted(report)


def test_a_tracked_file_under_node_modules_is_drift(project: tuple[Project, str]) -> None:
    jest, base = project
    installed = jest.work / "node_modules/expect"

    def lenient(work: Path) -> None:
        break_clamp(work)
        (work / "node_modules/expect-real").mkdir()
        (installed / "build").rename(work / "node_modules/expect-real/build")
        replace_file(installed / "build/index.js", LENIENT_EXPECT)

    jest.commit_change(lenient, "node_modules/expect/build/index.js")
    gated, report = jest.replay_and_gate(base, harness_from=False)
    assert {row["replay_pass"] for row in report["rows"]} == {3}  # the matchers never throw
    assert gated == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert "node_modules/expect/build/index.js" in drifted(report)


def test_a_loosened_assertion_beside_the_bug_is_edited(project: tuple[Project, str]) -> None:
    jest, base = project

    def loosen(work: Path) -> None:
        break_clamp(work)
        test = work / "test/calc.test.js"
        replace_file(
            test,
            test.read_text().replace(
                "expect(clamp(15, 0, 10)).toBe(10);", "expect(clamp(15, 0, 10)).toBeDefined();"
            ),
        )

    jest.commit_change(loosen)
    gated, report = jest.replay_and_gate(base)
    assert gated == 1
    row = next(row for row in report["rows"] if row["test_id"] == ABOVE)
    assert (row["class"], row["unknown"], row["replay_pass"]) == ("unknown_test", "edited", 3)
    # No named kind of edit: those are read from Python syntax trees alone.
    assert report["registry"]["edited"] == [
        {"test_id": ABOVE, "changes": ["its body"], "findings": []}
    ]
    # Its untouched neighbour in the same file is judged by its replays.
    assert classes(report)[INSIDE] == "stable_pass"
    # The same title in another file is another test, judged by its own replays.
    assert classes(report)[OTHER_INSIDE] == "stable_pass"


def test_an_edited_fixture_is_drift(project: tuple[Project, str]) -> None:
    jest, base = project
    jest.commit_change(lambda work: replace_file(work / "fixtures/cases.json", "[[1, 1, 2]]\n"))
    gated, report = jest.replay_and_gate(base)
    assert gated == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert "fixtures/cases.json" in drifted(report)


def test_a_new_flaky_test_is_unknown(project: tuple[Project, str]) -> None:
    jest, base = project
    flaky = "test/flaky.test.js"

    def add_flaky(work: Path) -> None:
        replace_file(
            work / flaky, "test('sometimes', () => { expect(Math.random()).toBeLessThan(0.5); });\n"
        )

    jest.commit_change(add_flaky)
    gated, report = jest.replay_and_gate(base)
    assert gated == 1
    assert classes(report)[f"{flaky}::sometimes"] == "unknown_test"
    assert classes(report)[INSIDE] == "stable_pass"


def test_an_edited_property_module_is_drift(project: tuple[Project, str]) -> None:
    jest, base = project
    assert "properties/add.test.js" in (jest.work / "fixture.lock").read_text()

    def weaken(work: Path) -> None:
        prop = work / "properties/add.test.js"
        replace_file(prop, prop.read_text().replace("i < 200", "i < 0"))

    jest.commit_change(weaken)
    gated, report = jest.replay_and_gate(base)
    assert gated == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert "properties/add.test.js" in drifted(report)


def test_code_under_test_that_reaches_into_the_runner_blocks(project: tuple[Project, str]) -> None:
    jest, base = project

    def reach(work: Path) -> None:
        code = work / "src/calc.js"
        hook = "const { expect } = require('expect');\n\n"
        replace_file(code, hook + code.read_text())

    jest.commit_change(reach)
    gated, report = jest.replay_and_gate(base)
    assert (gated, report["verdict"]) == (1, "blocked")
    assert report["fixtures"]["runner_reach"] == [
        {"path": "src/calc.js", "line": 1, "what": "imports expect"}
    ]
