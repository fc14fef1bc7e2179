"""The jest, mocha and vitest projects the runner tests build: one calculator in each
runner's file names, matcher syntax and test text, with what the scenarios over all three
read of each (the ids, the assertion and its loosened form, a flaky test)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from helpers.node_support import Project, link_install, package_json, replace_file, write_files

CALC_JS = """\
function add(a, b) {
  return a + b;
}

function clamp(x, lo, hi) {
  return Math.min(Math.max(x, lo), hi);
}

module.exports = { add, clamp };
"""
CASES = "[[1, 2, 3], [2, 3, 5]]\n"


@dataclass(frozen=True)
class JsProject:
    """One runner's project and what differs between the runners in the scenarios."""

    runner: str
    files: Mapping[str, str]
    # The runner's command: `before` the folder it runs, `after` it.
    before: tuple[str, ...]
    after: tuple[str, ...]
    code: str
    test_file: str
    property_file: str
    # The base's registry as `waiver init` writes it: the property first, then the tests.
    registry: tuple[str, ...]
    inside: str
    above: str
    # The same describe and title as `inside`, in another file (none in vitest's project).
    other_inside: str | None
    # The assertion of `above`, and the same assertion loosened until the bug passes it.
    assertion: str
    loosened: str
    # A new test that passes half the time: its file, its text and its id.
    flaky: tuple[str, str, str]

    def start(self, work: Path, node_modules: Path) -> tuple[Project, str]:
        """The project written to `work` with the shared install, committed as the base:
        the project and the base's commit."""
        work.mkdir()
        write_files(work, self.files)
        link_install(node_modules, work)
        project = Project(
            work,
            self.runner,
            [*self.before, "properties", *self.after],
            [*self.before, "test", *self.after],
        )
        return project, project.commit_base()

    def break_clamp(self, work: Path) -> None:
        """A real bug: clamp no longer cuts a value above the range."""
        code = work / self.code
        replace_file(
            code, code.read_text().replace("Math.min(Math.max(x, lo), hi)", "Math.max(x, lo)")
        )


JEST_CALC_TEST = """\
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
JEST_OTHER_TEST = """\
const { clamp } = require('../src/calc');

describe('clamp', () => {
  it('keeps a value inside', () => {
    expect(clamp(1, 0, 2)).toBe(1);
  });
});
"""
JEST_SETUP = """\
expect.extend({
  toBeEven(received) {
    return { pass: received % 2 === 0, message: () => `${received} is odd` };
  },
});
"""
JEST_PROPERTY = """\
const { add } = require('../src/calc');

test('add commutes', () => {
  for (let i = 0; i < 200; i += 1) {
    const a = Math.floor(Math.random() * 1000) - 500;
    const b = Math.floor(Math.random() * 1000) - 500;
    expect(add(a, b)).toBe(add(b, a));
  }
});
"""
JEST_CONFIG = """\
module.exports = {
  testEnvironment: 'node',
  setupFilesAfterEnv: ['<rootDir>/test/setup.js'],
};
"""
JEST_OPPOSITES = "test/calc.test.js::add is zero for opposites"
JEST = JsProject(
    runner="jest",
    files={
        "package.json": package_json(),
        "jest.config.js": JEST_CONFIG,
        "src/calc.js": CALC_JS,
        "test/calc.test.js": JEST_CALC_TEST,
        "test/other.test.js": JEST_OTHER_TEST,
        "test/setup.js": JEST_SETUP,
        "properties/add.test.js": JEST_PROPERTY,
        "fixtures/cases.json": CASES,
    },
    before=(
        "env",
        "JEST_JUNIT_OUTPUT_FILE={junit}",
        "JEST_JUNIT_CLASSNAME={filepath}",
        "JEST_JUNIT_TITLE={classname} {title}",
        "JEST_JUNIT_ADD_FILE_ATTRIBUTE=true",
        "node_modules/.bin/jest",
        "--ci",
    ),
    # After the folder: jest reads every word after `--reporters` as a reporter.
    after=("--reporters=default", "--reporters=jest-junit"),
    code="src/calc.js",
    test_file="test/calc.test.js",
    property_file="properties/add.test.js",
    registry=(
        "properties/add.test.js::add commutes",
        "test/calc.test.js::add adds 1 and 2",
        "test/calc.test.js::add adds 2 and 3",
        JEST_OPPOSITES,
        "test/calc.test.js::clamp cuts a value above",
        "test/calc.test.js::clamp keeps a value inside",
        "test/other.test.js::clamp keeps a value inside",
    ),
    inside="test/calc.test.js::clamp keeps a value inside",
    above="test/calc.test.js::clamp cuts a value above",
    other_inside="test/other.test.js::clamp keeps a value inside",
    assertion="expect(clamp(15, 0, 10)).toBe(10);",
    loosened="expect(clamp(15, 0, 10)).toBeDefined();",
    flaky=(
        "test/flaky.test.js",
        "test('sometimes', () => { expect(Math.random()).toBeLessThan(0.5); });\n",
        "test/flaky.test.js::sometimes",
    ),
)

MOCHA_CALC_TEST = """\
const { expect } = require('chai');
const { add, clamp } = require('../src/calc');
const cases = require('../fixtures/cases.json');

it('loads', () => {
  expect(add).to.be.a('function');
});

describe('add', () => {
  cases.forEach(([a, b, sum]) => {
    it(`adds ${a} and ${b}`, () => {
      expect(add(a, b)).to.equal(sum);
    });
  });
});

describe('clamp', () => {
  it('keeps a value inside', () => {
    expect(clamp(5, 0, 10)).to.equal(5);
  });

  it('cuts a value above', () => {
    expect(clamp(15, 0, 10)).to.equal(10);
  });
});
"""
MOCHA_OTHER_TEST = """\
const { expect } = require('chai');
const { clamp } = require('../src/calc');

it('loads', () => {
  expect(clamp).to.be.a('function');
});

describe('clamp', () => {
  it('keeps a value inside', () => {
    expect(clamp(1, 0, 2)).to.equal(1);
  });
});
"""
MOCHA_PROPERTY = """\
const { expect } = require('chai');
const { add } = require('../src/calc');

describe('add', () => {
  it('commutes', () => {
    for (let i = 0; i < 200; i += 1) {
      const a = Math.floor(Math.random() * 1000) - 500;
      const b = Math.floor(Math.random() * 1000) - 500;
      expect(add(a, b)).to.equal(add(b, a));
    }
  });
});
"""
MOCHA_FLAKY = """\
const { expect } = require('chai');

describe('luck', () => {
  it('sometimes', () => {
    expect(Math.random()).to.be.below(0.5);
  });
});
"""
MOCHA = JsProject(
    runner="mocha",
    files={
        "package.json": package_json(),
        "src/calc.js": CALC_JS,
        "test/calc.spec.js": MOCHA_CALC_TEST,
        "test/other.spec.js": MOCHA_OTHER_TEST,
        "properties/add.spec.js": MOCHA_PROPERTY,
        "fixtures/cases.json": CASES,
    },
    before=(
        "node_modules/.bin/mocha",
        "--reporter",
        "xunit",
        "--reporter-option",
        "output={junit}",
    ),
    after=(),
    code="src/calc.js",
    test_file="test/calc.spec.js",
    property_file="properties/add.spec.js",
    registry=(
        "properties/add.spec.js::add commutes",
        "test/calc.spec.js::add adds 1 and 2",
        "test/calc.spec.js::add adds 2 and 3",
        "test/calc.spec.js::clamp cuts a value above",
        "test/calc.spec.js::clamp keeps a value inside",
        # A test outside any describe, with one title in two files.
        "test/calc.spec.js::loads",
        "test/other.spec.js::clamp keeps a value inside",
        "test/other.spec.js::loads",
    ),
    inside="test/calc.spec.js::clamp keeps a value inside",
    above="test/calc.spec.js::clamp cuts a value above",
    other_inside="test/other.spec.js::clamp keeps a value inside",
    assertion="expect(clamp(15, 0, 10)).to.equal(10);",
    loosened="expect(clamp(15, 0, 10)).to.exist;",
    flaky=("test/flaky.spec.js", MOCHA_FLAKY, "test/flaky.spec.js::luck sometimes"),
)

VITEST_CALC = """\
export function clamp(x: number, lo: number, hi: number): number {
  return Math.min(Math.max(x, lo), hi);
}

export function add(a: number, b: number): number {
  return a + b;
}
"""
VITEST_CALC_TEST = """\
import { describe, expect, it } from 'vitest';
import { clamp } from '../src/calc';
import cases from '../fixtures/cases.json';

describe('clamp', () => {
  it('keeps a value inside', () => {
    expect(clamp(5, 0, 10)).toBe(5);
  });

  it('cuts a value above', () => {
    expect(clamp(15, 0, 10)).toBe(10);
  });

  it.each(cases)('cuts %i to %i', (x: number, y: number) => {
    expect(clamp(x, 0, 10)).toBe(y);
  });
});
"""
VITEST_PROPERTY = """\
import { expect, it } from 'vitest';
import { add } from '../src/calc';

it('add commutes', () => {
  for (let i = 0; i < 200; i += 1) {
    const a = Math.floor(Math.random() * 1000) - 500;
    const b = Math.floor(Math.random() * 1000) - 500;
    expect(add(a, b)).toBe(add(b, a));
  }
});
"""
VITEST_FLAKY = """\
import { expect, it } from 'vitest';

it('sometimes', () => {
  expect(Math.random()).toBeLessThan(0.5);
});
"""
VITEST = JsProject(
    runner="vitest",
    files={
        "package.json": package_json(type="module"),
        "src/calc.ts": VITEST_CALC,
        "test/calc.test.ts": VITEST_CALC_TEST,
        "properties/add.test.ts": VITEST_PROPERTY,
        "fixtures/cases.json": "[[-5, 0], [20, 10]]\n",
    },
    before=(
        "node_modules/.bin/vitest",
        "run",
        "--reporter=default",
        "--reporter=junit",
        "--outputFile.junit={junit}",
    ),
    after=(),
    code="src/calc.ts",
    test_file="test/calc.test.ts",
    property_file="properties/add.test.ts",
    registry=(
        "properties/add.test.ts::add commutes",
        "test/calc.test.ts::clamp > cuts -5 to 0",
        "test/calc.test.ts::clamp > cuts 20 to 10",
        "test/calc.test.ts::clamp > cuts a value above",
        "test/calc.test.ts::clamp > keeps a value inside",
    ),
    inside="test/calc.test.ts::clamp > keeps a value inside",
    above="test/calc.test.ts::clamp > cuts a value above",
    other_inside=None,
    assertion="expect(clamp(15, 0, 10)).toBe(10);",
    loosened="expect(clamp(15, 0, 10)).toBeTruthy();",
    flaky=("test/flaky.test.ts", VITEST_FLAKY, "test/flaky.test.ts::sometimes"),
)

PROJECTS = {project.runner: project for project in (JEST, MOCHA, VITEST)}
