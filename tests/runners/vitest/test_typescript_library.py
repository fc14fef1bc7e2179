"""A TypeScript library's first day: vitest with `--typecheck` in its test script, installed by
pnpm, a `tsconfig.json` whose `include` names `src`, a setup file that imports the library
for a custom matcher and a helper from the test folder, one import list shared by the tests,
and `test.each` tables of objects.

`waiver init` with only the waiver pin sets it up in one run: the library's source is not
locked, the lock's summary says why each file it holds is there, the commands start the
project's own vitest with its `--typecheck`, and the Node is the one `engines` allows. Then
changes are committed, replayed with the written commands and gated against the base.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
from waiver.cli import main

pytestmark = pytest.mark.slow

PACKAGE = {
    "name": "ranger",
    "version": "1.0.0",
    "private": True,
    "type": "module",
    "packageManager": "pnpm@9.15.0",
    "engines": {"node": ">=18"},
    "scripts": {"test": "vitest run --typecheck", "build": "tsc -p tsconfig.json"},
    "devDependencies": {"fast-check": "3.23.2", "typescript": "5.6.3", "vitest": "3.2.4"},
}
TSCONFIG = """\
{
  // The library's own build: its sources, not the tests.
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "strict": true,
    "noEmit": true,
  },
  "include": ["src"],
}
"""
VITEST_CONFIG = """\
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    setupFiles: ['./test/setup.ts'],
    coverage: { include: ['src'] },
  },
});
"""
INDEX = "export { add, clamp } from './range';\nexport { slug } from './text';\n"
RANGE = """\
export function add(a: number, b: number): number {
  return a + b;
}

export function clamp(x: number, lo: number, hi: number): number {
  return Math.min(Math.max(x, lo), hi);
}
"""
TEXT = """\
export function slug(s: string): string {
  return s.trim().toLowerCase().replace(/\\s+/g, '-');
}
"""
SETUP = """\
import { expect } from 'vitest';
import { clamp } from '../src';
import { within } from './helpers';

expect.extend({
  toStayWithin(received: number, lo: number, hi: number) {
    const pass = within(clamp(received, lo, hi), received);
    return { pass, message: () => `${received} is outside ${lo}..${hi}` };
  },
});
"""
HELPERS = "export function within(a: number, b: number): boolean {\n  return a === b;\n}\n"
RANGE_TEST = """\
import { describe, expect, it, test } from 'vitest';
import { add, clamp } from '../src';

describe('clamp', () => {
  it('keeps a value inside', () => {
    expect(clamp(5, 0, 10)).toBe(5);
  });

  it('cuts a value above', () => {
    expect(clamp(15, 0, 10)).toBe(10);
  });

  test.each([
    { x: -5, want: 0 },
    { x: 20, want: 10 },
  ])('cuts $x to $want', ({ x, want }) => {
    expect(clamp(x, 0, 10)).toBe(want);
  });
});

describe('add', () => {
  it.each([[1, 2, 3], [2, 3, 5]])('adds %i and %i', (a, b, sum) => {
    expect(add(a, b)).toBe(sum);
  });
});
"""
TEXT_TEST = """\
import { describe, expect, it } from 'vitest';
import { slug } from '../src';

describe('slug', () => {
  it('joins words with dashes', () => {
    expect(slug(' A B ')).toBe('a-b');
  });
});
"""
PROPERTY = """\
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { add } from '../src';

it('add commutes', () => {
  fc.assert(fc.property(fc.integer(), fc.integer(), (a, b) => add(a, b) === add(b, a)));
});
"""
FILES = {
    "tsconfig.json": TSCONFIG,
    "vitest.config.ts": VITEST_CONFIG,
    "src/index.ts": INDEX,
    "src/range.ts": RANGE,
    "src/text.ts": TEXT,
    "test/setup.ts": SETUP,
    "test/helpers.ts": HELPERS,
    "test/range.test.ts": RANGE_TEST,
    "test/text.test.ts": TEXT_TEST,
    "properties/add.test.ts": PROPERTY,
}
CUTS = "test/range.test.ts::clamp > cuts a value above"
REGISTRY = [
    "properties/add.test.ts::add commutes",
    "test/range.test.ts::add > adds 1 and 2",
    "test/range.test.ts::add > adds 2 and 3",
    "test/range.test.ts::clamp > cuts -5 to +0",
    "test/range.test.ts::clamp > cuts 20 to 10",
    CUTS,
    "test/range.test.ts::clamp > keeps a value inside",
    "test/text.test.ts::slug > joins words with dashes",
]


@pytest.fixture(scope="module")
def first_day(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, str]:
    """The library after `waiver init` with the pin alone, committed as the base: its root
    and what init printed."""
    cache = tmp_path_factory.getbasetemp().parent / "libraries"
    template = installed_template(cache, "ranger", PACKAGE, "pnpm")
    root = start_library(template, tmp_path_factory.mktemp("ranger") / "ranger", FILES)
    return root, initialised(root, tmp_path_factory.mktemp("site"))


@pytest.fixture
def change(first_day: tuple[Path, str], tmp_path: Path) -> tuple[Path, str]:
    return copy_change(first_day[0], tmp_path)


def test_init_locks_the_tests_side_alone_and_says_why(first_day: tuple[Path, str]) -> None:
    root, printed = first_day
    locked = locked_paths(root)
    assert locked == [
        "properties/add.test.ts",
        "test/helpers.ts",
        "test/setup.ts",
        "vitest.config.ts",
    ]
    assert "  locked: test/helpers.ts: loaded by test/setup.ts\n" in printed
    assert "  locked: test/setup.ts: named by vitest.config.ts test.setupFiles\n" in printed
    assert registry(root) == REGISTRY


def test_init_writes_the_commands_the_project_runs(first_day: tuple[Path, str]) -> None:
    root, printed = first_day
    inputs = workflow_inputs(root)
    assert inputs["setup-command"] == "corepack enable && pnpm install --frozen-lockfile"
    assert inputs["test-command"].startswith("node_modules/.bin/vitest run --typecheck ")
    assert inputs["property-command"].startswith("node_modules/.bin/vitest run --typecheck ")
    assert inputs["red-green-command"].startswith("node_modules/.bin/vitest run --typecheck ")
    assert "  kept from the test script `vitest run --typecheck`: --typecheck\n" in printed
    # engines allows the Node init ran with, whose major version the workflow sets up.
    assert inputs["node-version"].isdigit()


def test_an_honest_refactor_of_the_library_is_clean(change: tuple[Path, str]) -> None:
    root, base = change
    commit_files(root, {
        "src/range.ts": RANGE.replace(
            "return Math.min(Math.max(x, lo), hi);", "const low = Math.max(x, lo);\n  return Math.min(low, hi);"
        ),
        "src/index.ts": "export * from './range';\nexport { slug } from './text';\n",
    })  # fmt: skip
    code, report = gate_written(root, base, runner_part)
    assert (code, report["verdict"]) == (0, "clean"), report
    assert set(classes(report).values()) == {"stable_pass"}


def test_a_real_bug_is_a_stable_failure(change: tuple[Path, str]) -> None:
    root, base = change
    commit_files(
        root, {"src/range.ts": RANGE.replace("Math.min(Math.max(x, lo), hi)", "Math.max(x, lo)")}
    )
    code, report = gate_written(root, base, runner_part)
    assert code == 1
    assert classes(report)[CUTS] == "stable_assertion_fail"
    assert report["fixtures"]["drift"] == []


def test_a_loosened_test_is_edited_and_its_neighbours_are_not(change: tuple[Path, str]) -> None:
    root, base = change
    commit_files(root, {
        "test/range.test.ts": RANGE_TEST.replace(
            "expect(clamp(15, 0, 10)).toBe(10);", "expect(clamp(15, 0, 10)).toBeGreaterThan(0);"
        ),
    })  # fmt: skip
    code, report = gate_written(root, base, runner_part)
    assert code == 1
    assert [edit["test_id"] for edit in report["registry"]["edited"]] == [CUTS]
    [row] = [row for row in report["rows"] if row["test_id"] == CUTS]
    assert (row["class"], row["unknown"]) == ("unknown_test", "edited")


# A new function of the library and a new test of it, which the registry does not list.
LOW = "test/range.test.ts::clamp > keeps the low end"
NEW_LOW = {
    "src/range.ts": RANGE + "\nexport function low(x: number): number {\n  return x;\n}\n",
    "src/index.ts": "export { add, clamp, low } from './range';\nexport { slug } from './text';\n",
    # The shared import list grows by a name, and the file is reformatted: double
    # quotes and no semicolons, as a formatter would write it.
    "test/range.test.ts": RANGE_TEST.replace(
        "import { add, clamp } from '../src';", "import { add, clamp, low } from '../src';"
    ).replace(
        "describe('clamp', () => {\n",
        "describe('clamp', () => {\n  it('keeps the low end', () => {\n"
        "    expect(clamp(low(0), 0, 10)).toBe(0);\n  });\n\n",
    ).replace("'", '"').replace(";\n", "\n"),
}  # fmt: skip


def test_a_new_test_and_the_import_it_needs_edit_no_other_test(change: tuple[Path, str]) -> None:
    root, base = change
    new = LOW
    commit_files(root, NEW_LOW)
    code, report = gate_written(root, base, runner_part)
    assert code == 1
    assert report["registry"]["edited"] == []
    [row] = [row for row in report["rows"] if row["test_id"] == new]
    assert (row["class"], row["unknown"]) == ("unknown_test", "new")
    assert {row["class"] for row in report["rows"] if row["test_id"] != new} == {"stable_pass"}


def test_an_edit_of_the_setup_file_is_harness_drift(change: tuple[Path, str]) -> None:
    root, base = change
    commit_files(
        root, {"test/setup.ts": SETUP.replace("within(clamp(received, lo, hi), received)", "true")}
    )
    code, report = gate_written(root, base, runner_part)
    assert code == 1
    assert [entry["path"] for entry in report["fixtures"]["drift"]] == ["test/setup.ts"]


# A new test that passes on the base's code too: it exercises nothing the change did.
LOWERS = "test/text.test.ts::slug > lowers a word"
NEW_LOWERS = {
    "test/text.test.ts": TEXT_TEST.replace(
        "  it('joins", "  it('lowers a word', () => {\n    expect(slug('AB')).toBe('ab');\n  });\n\n  it('joins"
    ),
}  # fmt: skip


def red_green_here(root: Path, base: str, *given: str) -> dict[str, Any]:
    """`waiver red-green` of the tests `given` (`--test ID`, `--tests FILE`), 2 replays,
    run in the library's work tree with the command init wrote: its red-green.json."""
    inputs = workflow_inputs(root)
    out = root.parent / "red-green"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        assert main(["red-green", "--base", base, "-n", "2", "--out", str(out),
                     "--config", inputs["config"], *given,
                     "--", "sh", "-c", inputs["red-green-command"]]) == 0  # fmt: skip
    document: dict[str, Any] = json.loads((out / "red-green.json").read_text())
    return document


def test_red_green_on_a_developers_machine_runs_the_installed_vitest(
    change: tuple[Path, str],
) -> None:
    """The scratch folder of the base's files gets the work tree's pnpm install, so the new
    test of the new function is red on the base and the other green, neither not run."""
    root, base = change
    commit_files(root, {**NEW_LOW, **NEW_LOWERS})
    document = red_green_here(root, base, "--test", LOW, "--test", LOWERS)
    found = {row["test_id"]: (row["result"], row["base_total"]) for row in document["rows"]}
    assert found == {LOW: ("red", 2), LOWERS: ("green", 2)}
    assert document["linked"] == ["node_modules"]


def test_a_new_test_the_registry_does_not_list_gets_red_green_replays_all_the_same(
    change: tuple[Path, str],
) -> None:
    """The plan takes the change's new tests from its test files: two new tests, neither
    added to known-tests.txt, are replayed on the base, and each row has its outcome while
    it still says to add the test to the registry."""
    root, base = change
    commit_files(root, {**NEW_LOW, **NEW_LOWERS})
    plan = root.parent / "plan"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        config = workflow_inputs(root)["config"]
        assert main(["change-tests-plan", "--trusted-ref", base, "--out", str(plan),
                     "--config", config]) == 0  # fmt: skip
    assert (plan / "candidates.txt").read_text().splitlines() == [LOW, LOWERS]
    red_green_here(root, base, "--tests", str(plan / "candidates.txt"))
    evidence = str(root.parent / "red-green")
    code, report = gate_written(root, base, runner_part, "--red-green", evidence)
    assert code == 1
    rows = {row["test_id"]: row for row in report["rows"]}
    found = {t: (rows[t]["unknown"], rows[t]["red_green"]["outcome"]) for t in (LOW, LOWERS)}
    assert found == {LOW: ("new", "red_green"), LOWERS: ("new", "green_green")}
    assert "add it to `known-tests.txt` in this change" in (root / "summary.md").read_text()
