"""mocha's own way round the gate, on the mocha project of tests/helpers/js_projects.py
replayed by real mocha with chai and its `xunit` reporter: a new `.mocharc.yml` whose
`require` hook swallows chai's failures blocks, naming what changed, and is taken out
before the base's harness replays; a report of mocha-junit-reporter reads as the registry
written from `xunit`'s; two tests of one title in one file are named, with their file. The scenarios every runner shares are in
test_js_project_scenarios.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from helpers.js_projects import MOCHA
from helpers.node_support import Project, drifted, registry, replace_file
from helpers.support import classes
from waiver.read.junit.replay_reports import Limits, read_single
from waiver.runners.mocha import MOCHA as MOCHA_RUNNER
from waiver.write.report.report_types import report_of
from waiver.write.summary.summary import render_summary

pytestmark = pytest.mark.slow

# A hook mocha loads from the new configuration file before any test: chai's assertions
# no longer throw.
SWALLOW = """\
const chai = require('chai');
chai.Assertion.prototype.assert = function assert() {};
"""


def swallow(work: Path) -> None:
    MOCHA.break_clamp(work)
    replace_file(work / "hooks/quiet.js", SWALLOW)
    replace_file(work / ".mocharc.yml", "require:\n  - hooks/quiet.js\n")


@pytest.fixture
def project(tmp_path: Path, node_modules: Path) -> tuple[Project, str]:
    return MOCHA.start(tmp_path / "calc", node_modules)


def test_a_new_mocharc_whose_hook_swallows_failures_is_drift(
    project: tuple[Project, str],
) -> None:
    mocha, base = project
    mocha.commit_change(swallow)
    # With the change's own harness its replays pass: the hook is live.
    gated, report = mocha.replay_and_gate(base, tests_from=False)
    assert {row["replay_pass"] for row in report["rows"]} == {3}
    assert gated == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert {".mocharc.yml", "hooks/quiet.js"} <= drifted(report)


def test_a_new_mocharc_is_taken_out_before_the_base_harness_replays(
    project: tuple[Project, str],
) -> None:
    mocha, base = project
    mocha.commit_change(swallow)
    gated, report = mocha.replay_and_gate(base, tests_from=True)
    # The layout took it out for the replays, and put the change's tree back after them.
    assert (mocha.work / ".mocharc.yml").exists()
    assert gated == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert ".mocharc.yml" in drifted(report)
    row = next(row for row in report["rows"] if row["test_id"] == MOCHA.above)
    assert row["replay_pass"] == 0  # without the hook the bug shows


def test_a_mocha_junit_reporter_report_reads_as_the_registry_written_from_xunit(
    project: tuple[Project, str],
) -> None:
    """The registry, written from `xunit`'s report, names the tests inside a describe as
    mocha-junit-reporter's report does; its root suite carries no file, so the two
    root-level tests of one title are one id there."""
    mocha, _ = project
    report = mocha.work / "mocha-junit-reporter.xml"
    subprocess.run(
        ["node_modules/.bin/mocha", "--reporter", "mocha-junit-reporter",
         "--reporter-options", "testCaseSwitchClassnameAndName=true", "test"],
        cwd=mocha.work, env={**os.environ, "MOCHA_FILE": str(report)},
        capture_output=True, check=True,
    )  # fmt: skip
    ids = read_single(str(report), MOCHA_RUNNER.test_ids(str(mocha.work)), Limits()).ids
    described = [i for i in registry(mocha.work) if i.startswith("test/") and "::loads" not in i]
    assert sorted(ids) == sorted([*described, "loads::loads"])


def test_two_tests_of_one_title_in_one_file_are_named_with_their_file(
    project: tuple[Project, str],
) -> None:
    mocha, base = project

    def twice(work: Path) -> None:
        test = work / MOCHA.test_file
        replace_file(test, test.read_text() + "\nit('loads', () => {});\n")

    mocha.commit_change(twice)
    # The change's own tree: the base's, which the verdict replays run, has one of them.
    _, report = mocha.replay_and_gate(base, tests_from=False)
    assert report["replays"]["collapsed"] == [
        {"test_id": "test/calc.spec.js::loads", "testcases": 2, "file": "test/calc.spec.js"}
    ]
    summary = render_summary(report_of(report))
    assert "| `test/calc.spec.js::loads` | 2 | `test/calc.spec.js` |" in summary
