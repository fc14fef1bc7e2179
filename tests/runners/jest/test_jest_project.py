"""jest's own ways round the gate, on the jest project of tests/helpers/js_projects.py
replayed by real jest with jest-junit: a babel config that strips the assertions, an
`expect` under node_modules whose matchers never throw, and code under test that imports
the runner's `expect` all block, naming what changed. The scenarios every runner shares are
in test_js_project_scenarios.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.js_projects import JEST
from helpers.node_support import Project, drifted, replace_file
from helpers.support import classes

pytestmark = pytest.mark.slow

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
    return JEST.start(tmp_path / "calc", node_modules)


def test_a_new_babel_config_that_strips_the_assertions_is_drift(
    project: tuple[Project, str],
) -> None:
    jest, base = project

    def strip(work: Path) -> None:
        JEST.break_clamp(work)
        replace_file(work / "babel.config.js", STRIP_EXPECT)

    jest.commit_change(strip)
    # With the change's own harness its replays pass: the config is live.
    gated, report = jest.replay_and_gate(base, tests_from=False)
    assert report["rows"] and {row["replay_pass"] for row in report["rows"]} == {3}
    assert gated == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert "babel.config.js" in drifted(report)


def test_a_tracked_file_under_node_modules_is_drift(project: tuple[Project, str]) -> None:
    jest, base = project
    installed = jest.work / "node_modules/expect"

    def lenient(work: Path) -> None:
        JEST.break_clamp(work)
        (work / "node_modules/expect-real").mkdir()
        (installed / "build").rename(work / "node_modules/expect-real/build")
        replace_file(installed / "build/index.js", LENIENT_EXPECT)

    jest.commit_change(lenient, "node_modules/expect/build/index.js")
    gated, report = jest.replay_and_gate(base, tests_from=False)
    assert {row["replay_pass"] for row in report["rows"]} == {3}  # the matchers never throw
    assert gated == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert "node_modules/expect/build/index.js" in drifted(report)


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
