"""vitest's own way round the gate, on the TypeScript project of
tests/helpers/js_projects.py replayed by real vitest: a new vite.config.ts whose plugin
strips the assertions is drift. The scenarios every runner shares are in
test_js_project_scenarios.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.js_projects import VITEST
from helpers.node_support import Project, drifted, replace_file
from helpers.support import classes

pytestmark = pytest.mark.slow

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


@pytest.fixture
def project(tmp_path: Path, node_modules: Path) -> tuple[Project, str]:
    return VITEST.start(tmp_path / "calc", node_modules)


def test_a_new_vite_config_that_strips_the_assertions_is_drift(
    project: tuple[Project, str],
) -> None:
    vitest, base = project

    def strip(work: Path) -> None:
        VITEST.break_clamp(work)
        replace_file(work / "vite.config.ts", STRIP_EXPECT)

    vitest.commit_change(strip)
    gated, report = vitest.replay_and_gate(base, tests_from=False)
    assert {row["replay_pass"] for row in report["rows"]} == {3}  # the plugin is live
    assert gated == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert "vite.config.ts" in drifted(report)
