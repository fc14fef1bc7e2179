"""The verdict comes from the base's tests (SPEC 3.11) under jest, vitest and mocha: the
projects of tests/helpers/js_projects.py, with a test that reads its expected value from a
JSON file beside it and (jest, vitest) one that matches a committed snapshot, replayed by
their real runners as a user runs them: the change's new and edited tests apart on its
tree, then the base's test tree against its code.

Each way the issue names to write around the tests and hide a real bug gives `blocked`:
a new mocha spec file that makes chai's assertions no-ops, a `@jest-environment` docblock
with an environment of the change's, a top-level `Object.assign(require('../src/calc'), …)`
in a test file, a JSON file read with `fs.readFileSync` beside the tests, a snapshot
regenerated to the bug."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers.js_projects import PROJECTS, JsProject
from helpers.node_support import Project, registry, replace_file, write_files

pytestmark = pytest.mark.slow

Started = tuple[JsProject, Project, str]
FIXED_CLAMP = "(x, lo, hi) => Math.min(Math.max(x, lo), hi)"
# A test reading its expected value from a JSON file beside it.
DATA_TEST = {
    "jest": (
        "test/data.test.js",
        "const fs = require('fs');\nconst path = require('path');\n"
        "const { clamp } = require('../src/calc');\n\n"
        "const expected = JSON.parse(fs.readFileSync(path.join(__dirname, 'expected.json')));\n\n"
        "test('clamps to the expected value', () => {\n"
        "  expect(clamp(15, 0, 10)).toBe(expected.high);\n});\n",
    ),
    "mocha": (
        "test/data.spec.js",
        "const fs = require('fs');\nconst path = require('path');\n"
        "const { expect } = require('chai');\nconst { clamp } = require('../src/calc');\n\n"
        "const expected = JSON.parse(fs.readFileSync(path.join(__dirname, 'expected.json')));\n\n"
        "it('clamps to the expected value', () => {\n"
        "  expect(clamp(15, 0, 10)).to.equal(expected.high);\n});\n",
    ),
    "vitest": (
        "test/data.test.ts",
        "import { readFileSync } from 'node:fs';\nimport { expect, it } from 'vitest';\n"
        "import { clamp } from '../src/calc';\n\n"
        "const expected = JSON.parse(readFileSync(new URL('./expected.json', import.meta.url), "
        "'utf8'));\n\n"
        "it('clamps to the expected value', () => {\n"
        "  expect(clamp(15, 0, 10)).toBe(expected.high);\n});\n",
    ),
}
DATA_ID = {
    runner: f"{path}::clamps to the expected value" for runner, (path, _) in DATA_TEST.items()
}
# A test matching a committed snapshot, and the snapshot as each runner writes it.
SNAPSHOT_TEST = {
    "jest": (
        "test/snap.test.js",
        "const { clamp } = require('../src/calc');\n\n"
        "test('clamp snapshot', () => {\n  expect(clamp(15, 0, 10)).toMatchSnapshot();\n});\n",
        "test/__snapshots__/snap.test.js.snap",
        "// Jest Snapshot v1, https://goo.gl/fbAQLP\n\nexports[`clamp snapshot 1`] = `{value}`;\n",
    ),
    "vitest": (
        "test/snap.test.ts",
        "import { expect, it } from 'vitest';\nimport { clamp } from '../src/calc';\n\n"
        "it('clamp snapshot', () => {\n  expect(clamp(15, 0, 10)).toMatchSnapshot();\n});\n",
        "test/__snapshots__/snap.test.ts.snap",
        "// Vitest Snapshot v1, https://vitest.dev/guide/snapshot.html\n\n"
        "exports[`clamp snapshot 1`] = `{value}`;\n",
    ),
}


def with_data(spec: JsProject) -> JsProject:
    """The runner's project with the data test and, where the runner has snapshots, the
    snapshot test and its snapshot of the right value."""
    path, text = DATA_TEST[spec.runner]
    extra = {path: text, "test/expected.json": '{"high": 10}\n'}
    if spec.runner in SNAPSHOT_TEST:
        test, text, snap, snapshot = SNAPSHOT_TEST[spec.runner]
        extra |= {test: text, snap: snapshot.replace("{value}", "10")}
    return dataclasses.replace(spec, files={**spec.files, **extra})


@pytest.fixture(params=sorted(PROJECTS))
def started(request: pytest.FixtureRequest, tmp_path: Path, node_modules: Path) -> Started:
    spec = with_data(PROJECTS[request.param])
    return (spec, *spec.start(tmp_path / "calc", node_modules))


def gate_after(started: Started, attack: Callable[[Path], None]) -> tuple[int, dict[str, str]]:
    """The bug and `attack` committed, replayed and gated: the exit code and each row's class."""
    spec, project, base = started

    def change(work: Path) -> None:
        spec.break_clamp(work)
        attack(work)

    project.commit_change(change)
    gated, report = project.replay_and_gate(base)
    return gated, {row["test_id"]: row["class"] for row in report["rows"]}


def test_the_bug_alone_fails_the_base_s_tests(started: Started) -> None:
    spec, _, _ = started
    gated, found = gate_after(started, lambda work: None)
    assert gated == 1
    assert found[spec.above] == found[DATA_ID[spec.runner]] == "stable_assertion_fail"


def test_a_json_file_beside_the_tests_rewritten_to_the_bug_is_the_base_s(started: Started) -> None:
    spec, _, _ = started
    gated, found = gate_after(
        started, lambda work: replace_file(work / "test/expected.json", '{"high": 15}\n')
    )
    assert gated == 1
    assert found[DATA_ID[spec.runner]] == "stable_assertion_fail"


@pytest.mark.parametrize("runner", ["jest", "vitest"])
def test_a_snapshot_regenerated_to_the_bug_is_the_base_s(
    runner: str, tmp_path: Path, node_modules: Path
) -> None:
    spec = with_data(PROJECTS[runner])
    project, base = spec.start(tmp_path / "calc", node_modules)
    test, _, snap, snapshot = SNAPSHOT_TEST[runner]
    gated, found = gate_after(
        (spec, project, base),
        lambda work: replace_file(work / snap, snapshot.replace("{value}", "15")),
    )
    assert gated == 1
    assert found[f"{test}::clamp snapshot"] == "stable_assertion_fail"


def test_a_new_mocha_spec_file_that_makes_chai_s_assertions_no_ops_runs_in_no_verdict(
    tmp_path: Path, node_modules: Path
) -> None:
    spec = with_data(PROJECTS["mocha"])
    started = (spec, *spec.start(tmp_path / "calc", node_modules))
    quiet = "const chai = require('chai');\n\nchai.Assertion.prototype.assert = function () {};\n"
    gated, found = gate_after(started, lambda work: write_files(work, {"test/aa.spec.js": quiet}))
    assert gated == 1
    assert found[spec.above] == "stable_assertion_fail"


def test_a_jest_environment_docblock_of_the_change_s_runs_in_no_verdict(
    tmp_path: Path, node_modules: Path
) -> None:
    spec = with_data(PROJECTS["jest"])
    started = (spec, *spec.start(tmp_path / "calc", node_modules))
    environment = (
        "const { TestEnvironment } = require('jest-environment-node');\n\n"
        "module.exports = class extends TestEnvironment {\n"
        "  async setup() {\n    await super.setup();\n"
        "    const max = this.global.Math.max;\n"
        "    this.global.Math.max = (x, lo) => Math.min(max(x, lo), 10);\n  }\n};\n"
    )

    def docblock(work: Path) -> None:
        test = work / spec.test_file
        replace_file(test, "/** @jest-environment ./test/env.js */\n" + test.read_text())
        write_files(work, {"test/env.js": environment})

    gated, found = gate_after(started, docblock)
    assert gated == 1
    assert found[spec.above] in ("stable_assertion_fail", "unknown_test")
    assert found[DATA_ID["jest"]] == "stable_assertion_fail"


@pytest.mark.parametrize("runner", ["jest", "mocha"])
def test_a_top_level_object_assign_of_the_code_in_a_test_file_runs_in_no_verdict(
    runner: str, tmp_path: Path, node_modules: Path
) -> None:
    spec = with_data(PROJECTS[runner])
    started = (spec, *spec.start(tmp_path / "calc", node_modules))
    patch = f"Object.assign(require('../src/calc'), {{ clamp: {FIXED_CLAMP} }});\n"

    def assign(work: Path) -> None:
        test = work / spec.test_file
        replace_file(test, patch + test.read_text())

    gated, found = gate_after(started, assign)
    assert gated == 1
    # The edited file's tests await review; the base's version of it, and every other
    # test of the base, ran against the bug.
    assert found[spec.above] == "unknown_test"
    assert found[DATA_ID[runner]] == "stable_assertion_fail"


def test_a_mocha_9_test_loosened_under_ids_that_name_no_file_runs_in_its_base_version(
    tmp_path: Path, mocha_9_modules: Path
) -> None:
    """mocha 9's reporter writes no file on a testcase, so no edit of a test can be mapped
    to its id: on the change's own tree the loosened test hides the bug, on the base's it
    cannot."""
    spec = PROJECTS["mocha"]
    project, base = spec.start(tmp_path / "calc", mocha_9_modules)
    above = "clamp::cuts a value above"
    assert above in registry(project.work)

    def loosen(work: Path) -> None:
        spec.break_clamp(work)
        test = work / spec.test_file
        replace_file(test, test.read_text().replace(spec.assertion, spec.loosened))

    project.commit_change(loosen)
    gated, report = project.replay_and_gate(base, tests_from=False)
    assert (gated, report["verdict"]) == (0, "clean")  # the hole, on the change's own tree
    gated, report = project.replay_and_gate(base)
    assert (gated, report["verdict"]) == (1, "blocked")
    row = next(row for row in report["rows"] if row["test_id"] == above)
    assert (row["class"], row["replay_pass"], row["replay_total"]) == (
        "stable_assertion_fail",
        0,
        3,
    )
