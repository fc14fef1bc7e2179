"""A vitest project in TypeScript, built from scratch, replayed by real vitest and gated: a
new vite.config.ts whose plugin strips the assertions is drift, a loosened assertion beside
a bug is edited alone, an honest refactor is clean and a real bug is a stable failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.node_support import (
    Project,
    drifted,
    link_install,
    package_json,
    registry,
    replace_file,
    write_files,
)
from helpers.support import classes

pytestmark = pytest.mark.slow

VITEST = ["node_modules/.bin/vitest", "run", "--reporter=default", "--reporter=junit"]
OUTPUT = "--outputFile.junit={junit}"
CALC = """\
export function clamp(x: number, lo: number, hi: number): number {
  return Math.min(Math.max(x, lo), hi);
}

export function add(a: number, b: number): number {
  return a + b;
}
"""
CALC_TEST = """\
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
PROPERTY = """\
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
FILES = {
    "package.json": package_json(type="module"),
    "src/calc.ts": CALC,
    "test/calc.test.ts": CALC_TEST,
    "properties/add.test.ts": PROPERTY,
    "fixtures/cases.json": "[[-5, 0], [20, 10]]\n",
}
INSIDE = "test/calc.test.ts::clamp > keeps a value inside"
ABOVE = "test/calc.test.ts::clamp > cuts a value above"
# A vite plugin, which vitest applies to every test file with no configuration of vitest,
# taking each `expect(…)` line out.
STRIP_EXPECT = """\
export default {
  plugins: [
    {
      name: 'quiet',
      transform(code: string, id: string) {
        if (id.endsWith('.test.ts')) {
          return code.split('\\n').filter((line) => !line.trim().startsWith('expect(')).join('\\n');
        }
        return undefined;
      },
    },
  ],
};
"""


def break_clamp(work: Path) -> None:
    code = work / "src/calc.ts"
    replace_file(code, code.read_text().replace("Math.min(Math.max(x, lo), hi)", "Math.max(x, lo)"))


@pytest.fixture
def project(tmp_path: Path, node_modules: Path) -> tuple[Project, str]:
    work = tmp_path / "calc"
    work.mkdir()
    write_files(work, FILES)
    link_install(node_modules, work)
    vitest = Project(work, "vitest", [*VITEST, OUTPUT, "properties"], [*VITEST, OUTPUT, "test"])
    return vitest, vitest.commit_base()


def test_ids_name_the_file_and_the_describe_path(project: tuple[Project, str]) -> None:
    vitest, _ = project
    ids = registry(vitest.work)
    assert {INSIDE, ABOVE, "test/calc.test.ts::clamp > cuts -5 to 0"} <= set(ids)


def test_an_honest_refactor_is_clean(project: tuple[Project, str]) -> None:
    vitest, base = project

    def refactor(work: Path) -> None:
        code = work / "src/calc.ts"
        replace_file(
            code,
            code.read_text().replace(
                "return Math.min(Math.max(x, lo), hi);",
                "const low = Math.max(x, lo);\n  return Math.min(low, hi);",
            ),
        )

    vitest.commit_change(refactor)
    gated, report = vitest.replay_and_gate(base)
    assert (gated, report["verdict"]) == (0, "clean"), report["rows"]


def test_a_real_bug_is_a_stable_failure(project: tuple[Project, str]) -> None:
    vitest, base = project
    vitest.commit_change(break_clamp)
    gated, report = vitest.replay_and_gate(base)
    assert gated == 1
    assert classes(report)[ABOVE] == "stable_assertion_fail"
    assert classes(report)[INSIDE] == "stable_pass"


def test_a_new_vite_config_that_strips_the_assertions_is_drift(
    project: tuple[Project, str],
) -> None:
    vitest, base = project

    def strip(work: Path) -> None:
        break_clamp(work)
        replace_file(work / "vite.config.ts", STRIP_EXPECT)

    vitest.commit_change(strip)
    gated, report = vitest.replay_and_gate(base, harness_from=False)
    assert {row["replay_pass"] for row in report["rows"]} == {3}  # the plugin is live
    assert gated == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert "vite.config.ts" in drifted(report)


def test_a_loosened_assertion_beside_the_bug_is_edited_alone(project: tuple[Project, str]) -> None:
    vitest, base = project

    def loosen(work: Path) -> None:
        break_clamp(work)
        test = work / "test/calc.test.ts"
        replace_file(
            test,
            test.read_text().replace(
                "expect(clamp(15, 0, 10)).toBe(10);", "expect(clamp(15, 0, 10)).toBeTruthy();"
            ),
        )

    vitest.commit_change(loosen)
    gated, report = vitest.replay_and_gate(base)
    assert gated == 1
    row = next(row for row in report["rows"] if row["test_id"] == ABOVE)
    assert (row["class"], row["unknown"], row["replay_pass"]) == ("unknown_test", "edited", 3)
    assert classes(report)[INSIDE] == "stable_pass"
