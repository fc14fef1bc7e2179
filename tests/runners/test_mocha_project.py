"""A mocha project with chai and mocha-junit-reporter, built from scratch, replayed by real
mocha and gated: a new `.mocharc.yml` whose `require` hook swallows chai's failures and a
loosened assertion beside a bug both block, naming what changed; an honest refactor is
clean and a real bug is a stable failure."""

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

MOCHA = [
    "env",
    "MOCHA_FILE={junit}",
    "node_modules/.bin/mocha",
    "--reporter",
    "mocha-junit-reporter",
    "--reporter-options",
    "testCaseSwitchClassnameAndName=true",
]
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
const { expect } = require('chai');
const { add, clamp } = require('../src/calc');
const cases = require('../fixtures/cases.json');

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
OTHER_TEST = """\
const { expect } = require('chai');
const { clamp } = require('../src/calc');

describe('clamp', () => {
  it('keeps a value inside', () => {
    expect(clamp(1, 0, 2)).to.equal(1);
  });
});
"""
PROPERTY = """\
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
FILES = {
    "package.json": package_json(),
    "src/calc.js": CALC,
    "test/calc.spec.js": CALC_TEST,
    "test/other.spec.js": OTHER_TEST,
    "properties/add.spec.js": PROPERTY,
    "fixtures/cases.json": "[[1, 2, 3], [2, 3, 5]]\n",
}
INSIDE = "test/calc.spec.js::clamp keeps a value inside"
ABOVE = "test/calc.spec.js::clamp cuts a value above"
OTHER_INSIDE = "test/other.spec.js::clamp keeps a value inside"
# A hook mocha loads from the new configuration file before any test: chai's assertions
# no longer throw.
SWALLOW = """\
const chai = require('chai');
chai.Assertion.prototype.assert = function assert() {};
"""


@pytest.fixture
def project(tmp_path: Path, node_modules: Path) -> tuple[Project, str]:
    work = tmp_path / "calc"
    work.mkdir()
    write_files(work, FILES)
    link_install(node_modules, work)
    mocha = Project(work, "mocha", [*MOCHA, "properties"], [*MOCHA, "test"])
    return mocha, mocha.commit_base()


def test_ids_name_the_file_and_the_full_title(project: tuple[Project, str]) -> None:
    mocha, _ = project
    ids = registry(mocha.work)
    assert {INSIDE, ABOVE, OTHER_INSIDE, "test/calc.spec.js::add adds 1 and 2"} <= set(ids)
    assert "properties/add.spec.js::add commutes" in ids


def test_an_honest_refactor_is_clean(project: tuple[Project, str]) -> None:
    mocha, base = project

    def refactor(work: Path) -> None:
        code = work / "src/calc.js"
        replace_file(
            code,
            code.read_text().replace(
                "return Math.min(Math.max(x, lo), hi);",
                "const low = Math.max(x, lo);\n  return Math.min(low, hi);",
            ),
        )

    mocha.commit_change(refactor)
    gated, report = mocha.replay_and_gate(base)
    assert (gated, report["verdict"]) == (0, "clean"), report["rows"]


def test_a_real_bug_is_a_stable_failure(project: tuple[Project, str]) -> None:
    mocha, base = project
    mocha.commit_change(break_clamp)
    gated, report = mocha.replay_and_gate(base)
    assert gated == 1
    assert classes(report)[ABOVE] == "stable_assertion_fail"
    assert classes(report)[OTHER_INSIDE] == "stable_pass"


def test_a_new_mocharc_whose_hook_swallows_failures_is_drift(
    project: tuple[Project, str],
) -> None:
    mocha, base = project

    def swallow(work: Path) -> None:
        break_clamp(work)
        replace_file(work / "hooks/quiet.js", SWALLOW)
        replace_file(work / ".mocharc.yml", "require:\n  - hooks/quiet.js\n")

    mocha.commit_change(swallow)
    # With the change's own harness its replays pass: the hook is live.
    gated, report = mocha.replay_and_gate(base, harness_from=False)
    assert {row["replay_pass"] for row in report["rows"]} == {3}
    assert gated == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert {".mocharc.yml", "hooks/quiet.js"} <= drifted(report)


def test_a_new_mocharc_is_taken_out_before_the_base_harness_replays(
    project: tuple[Project, str],
) -> None:
    mocha, base = project

    def swallow(work: Path) -> None:
        break_clamp(work)
        replace_file(work / "hooks/quiet.js", SWALLOW)
        replace_file(work / ".mocharc.yml", "require:\n  - hooks/quiet.js\n")

    mocha.commit_change(swallow)
    gated, report = mocha.replay_and_gate(base, harness_from=True)
    assert not (mocha.work / ".mocharc.yml").exists()
    assert gated == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert ".mocharc.yml" in drifted(report)
    row = next(row for row in report["rows"] if row["test_id"] == ABOVE)
    assert row["replay_pass"] == 0  # without the hook the bug shows


def test_a_loosened_assertion_beside_the_bug_is_edited(project: tuple[Project, str]) -> None:
    mocha, base = project

    def loosen(work: Path) -> None:
        break_clamp(work)
        test = work / "test/calc.spec.js"
        replace_file(
            test,
            test.read_text().replace(
                "expect(clamp(15, 0, 10)).to.equal(10);", "expect(clamp(15, 0, 10)).to.exist;"
            ),
        )

    mocha.commit_change(loosen)
    gated, report = mocha.replay_and_gate(base)
    assert gated == 1
    row = next(row for row in report["rows"] if row["test_id"] == ABOVE)
    assert (row["class"], row["unknown"], row["replay_pass"]) == ("unknown_test", "edited", 3)
    # No named kind of edit: those are read from Python syntax trees alone.
    assert report["registry"]["edited"] == [
        {"test_id": ABOVE, "changes": ["its body"], "findings": []}
    ]
    # Its untouched neighbour in the same file is judged by its replays.
    assert classes(report)[INSIDE] == "stable_pass"
    assert classes(report)[OTHER_INSIDE] == "stable_pass"


def test_an_edited_fixture_is_drift(project: tuple[Project, str]) -> None:
    mocha, base = project
    mocha.commit_change(lambda work: replace_file(work / "fixtures/cases.json", "[[1, 1, 2]]\n"))
    gated, report = mocha.replay_and_gate(base)
    assert gated == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert "fixtures/cases.json" in drifted(report)


def test_a_new_flaky_test_is_unknown(project: tuple[Project, str]) -> None:
    mocha, base = project
    flaky = "test/flaky.spec.js"

    def add_flaky(work: Path) -> None:
        replace_file(
            work / flaky,
            "const { expect } = require('chai');\n\n"
            "describe('luck', () => {\n"
            "  it('sometimes', () => {\n    expect(Math.random()).to.be.below(0.5);\n  });\n"
            "});\n",
        )

    mocha.commit_change(add_flaky)
    gated, report = mocha.replay_and_gate(base)
    assert gated == 1
    assert classes(report)[f"{flaky}::luck sometimes"] == "unknown_test"
    assert classes(report)[INSIDE] == "stable_pass"
