"""Red-green replays of jest, mocha and vitest tests: the change's new tests run on the base's
code by the command `waiver init` writes, chosen by the runner's own name filter from the
file and the name pattern waiver gives it, and read back with the runner's ids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.js_projects import PROJECTS, JsProject
from helpers.node_support import Project, replace_file, write_files
from waiver.cli import main
from waiver.runners import runner_named

pytestmark = pytest.mark.slow

# Titles with what a regular expression would read otherwise: `(`, `&`, `[`, `?`.
SWAP = "swaps lo & hi [5]?"
INSIDE = "keeps 0 inside"
NEW_TESTS = {
    "jest": (
        "test/swap.test.js",
        "const { clamp } = require('../src/calc');\n\n"
        "describe('clamp (reversed)', () => {\n"
        f"  it('{SWAP}', () => {{ expect(clamp(5, 10, 0)).toBe(5); }});\n"
        f"  it('{INSIDE}', () => {{ expect(clamp(0, 0, 10)).toBe(0); }});\n"
        "});\n",
        " ",
    ),
    "mocha": (
        "test/swap.test.js",
        "const { expect } = require('chai');\nconst { clamp } = require('../src/calc');\n\n"
        "describe('clamp (reversed)', () => {\n"
        f"  it('{SWAP}', () => {{ expect(clamp(5, 10, 0)).to.equal(5); }});\n"
        f"  it('{INSIDE}', () => {{ expect(clamp(0, 0, 10)).to.equal(0); }});\n"
        "});\n",
        " ",
    ),
    "vitest": (
        "test/swap.test.ts",
        "import { describe, expect, it } from 'vitest';\nimport { clamp } from '../src/calc';\n\n"
        "describe('clamp (reversed)', () => {\n"
        f"  it('{SWAP}', () => {{ expect(clamp(5, 10, 0)).toBe(5); }});\n"
        f"  it('{INSIDE}', () => {{ expect(clamp(0, 0, 10)).toBe(0); }});\n"
        "});\n",
        " > ",
    ),
}


def red_green(project: Project, base: str, test_ids: list[str]) -> dict[str, Any]:
    """`waiver red-green` of `test_ids`, 2 replays, with the command init writes for the
    project's runner, run in the project's work tree as a developer runs it: its
    red-green.json. The scratch folder holds the base's tracked files alone; the work
    tree's install is linked in."""
    command = runner_named(project.runner).red_green_command()
    out = project.work.parent / "red-green"
    tests = [word for test_id in test_ids for word in ("--test", test_id)]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project.work)
        assert main(["red-green", "--base", base, "-n", "2", "--out", str(out),
                     "--config", "waiver.yml", *tests, "--", "sh", "-c", command]) == 0  # fmt: skip
    document: dict[str, Any] = json.loads((out / "red-green.json").read_text())
    return document


@pytest.mark.parametrize("runner", sorted(PROJECTS))
def test_a_new_test_of_the_fix_is_red_on_the_base_and_its_neighbour_green(
    tmp_path: Path, node_modules: Path, runner: str
) -> None:
    spec: JsProject = PROJECTS[runner]
    project, base = spec.start(tmp_path / "calc", node_modules)
    path, text, separator = NEW_TESTS[runner]

    def swap_a_reversed_range(work: Path) -> None:
        code = work / spec.code
        replace_file(code, code.read_text().replace(
            "Math.min(Math.max(x, lo), hi)",
            "Math.min(Math.max(x, Math.min(lo, hi)), Math.max(lo, hi))",
        ))  # fmt: skip
        write_files(work, {path: text})

    project.commit_change(swap_a_reversed_range)
    swap, inside = (f"{path}::clamp (reversed){separator}{title}" for title in (SWAP, INSIDE))
    document = red_green(project, base, [swap, inside])
    rows = document["rows"]
    found = {row["test_id"]: (row["result"], row["base_pass"], row["base_total"]) for row in rows}
    assert found == {swap: ("red", 0, 2), inside: ("green", 2, 2)}
    # The change's test file was laid over the base; its code under test was not.
    assert document["laid_over"] == [path]
    assert document["linked"] == ["node_modules"]


# A new module and its test: on the base the module is missing, so the test file fails to
# load. jest (asked to report it) and vitest write a failed case for the file, which makes
# the test red there; mocha stops before writing any report, so the test is not run.
DOUBLE = {
    "jest": ("src/double.js", "module.exports = (x) => 2 * x;\n", "test/double.test.js",
             "const double = require('../src/double');\n\n"
             "test('doubles', () => { expect(double(2)).toBe(4); });\n"),
    "mocha": ("src/double.js", "module.exports = (x) => 2 * x;\n", "test/double.test.js",
              "const { expect } = require('chai');\nconst double = require('../src/double');\n\n"
              "it('doubles', () => { expect(double(2)).to.equal(4); });\n"),
    "vitest": ("src/double.ts", "export default (x: number) => 2 * x;\n", "test/double.test.ts",
               "import { expect, it } from 'vitest';\nimport double from '../src/double';\n\n"
               "it('doubles', () => { expect(double(2)).toBe(4); });\n"),
}  # fmt: skip
UNLOADED = {"jest": ("red", 0, 2), "mocha": ("not_run", 0, 0), "vitest": ("red", 0, 2)}


@pytest.mark.parametrize("runner", sorted(PROJECTS))
def test_a_new_test_of_a_new_module_is_red_where_the_runner_reports_its_file_unloaded(
    tmp_path: Path, node_modules: Path, runner: str
) -> None:
    spec: JsProject = PROJECTS[runner]
    project, base = spec.start(tmp_path / "calc", node_modules)
    module, code, test_file, test = DOUBLE[runner]
    project.commit_change(lambda work: write_files(work, {module: code, test_file: test}))
    [row] = red_green(project, base, [f"{test_file}::doubles"])["rows"]
    assert (row["result"], row["base_pass"], row["base_total"]) == UNLOADED[runner]
