"""Testcases of one replay that read as one id under a runner whose ids name their file
(jest, vitest, mocha): the gate merges them as attempts of one test, and says so in
waiver.json and the summary, naming the file they came from or that the report named
none in the repository. Real gate runs on reports written as the reporters write them;
pytest's repeated testcases (its rerun plugins' attempts) are not named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers.support import REPO, check_golden, run_gate, write_tree
from waiver.cli import main

GOLDEN = REPO / "tests" / "golden" / "summary" / "collapsed.md"
PROPERTIES = """\
<testsuite name="Mocha Tests" tests="1">
<testcase classname="add" name="commutes" file="{root}/properties/add.spec.js"/>
</testsuite>
"""
# mocha's `xunit`: two tests of one describe path and title in one file, and two
# root-level tests of one title in two files, which stay two ids.
XUNIT = """\
<testsuite name="Mocha Tests" tests="5">
<testcase classname="add" name="adds" file="{root}/test/calc.spec.js"/>
<testcase classname="add" name="adds" file="{root}/test/calc.spec.js"/>
<testcase classname="" name="loads" file="{root}/test/calc.spec.js"/>
<testcase classname="" name="loads" file="{root}/test/other.spec.js"/>
</testsuite>
"""
# mocha-junit-reporter: its root suite carries no file, so the two root-level tests of
# one title in two files are one id.
JUNIT = """\
<testsuites name="Mocha Tests">
<testsuite name="Root Suite" tests="2">
<testcase name="loads" classname="loads"/><testcase name="loads" classname="loads"/>
</testsuite>
</testsuites>
"""
IDS = (
    "loads::loads",
    "properties/add.spec.js::add commutes",
    "test/calc.spec.js::add adds",
    "test/calc.spec.js::loads",
    "test/other.spec.js::loads",
)


def workspace(root: Path, runner: str, reports: dict[str, str]) -> Path:
    """A project's lock, registry and two replays, each of the `reports` by name."""
    write_tree(
        root,
        {
            "waiver.yml": f"runner: {runner}\nregistry: known-tests.txt\nmin_replays: 2\n",
            "fixtures/cases.json": "[]\n",
            "properties/add.spec.js": "it('commutes', () => {});\n",
            "test/calc.spec.js": "it('loads', () => {});\n",
            "test/other.spec.js": "it('loads', () => {});\n",
            "known-tests.txt": "\n".join(IDS) + "\n",
            "properties.xml": PROPERTIES.format(root=root),
            **{
                f"reports/run-{n}/{name}.xml": text.format(root=root)
                for n in (1, 2)
                for name, text in reports.items()
            },
        },
    )
    lock = ["lock", "--root", str(root), "--fixtures", str(root / "fixtures")]
    lock += ["--property-suite", str(root / "properties"), "--out", str(root / "fixture.lock")]
    assert main([*lock, "--config", str(root / "waiver.yml")]) == 0
    return root


def gate_twice(root: Path, summary: bool = False) -> tuple[int, dict[str, Any]]:
    """The gate on the project's two replays, under its policy file."""
    return run_gate(root, "--config", str(root / "waiver.yml"), "--replays", "2", summary=summary)


def test_a_mocha_gate_names_each_collapsed_id_with_its_file(tmp_path: Path) -> None:
    root = workspace(tmp_path / "calc", "mocha", {"xunit": XUNIT, "junit": JUNIT})
    code, report = gate_twice(root, summary=True)
    assert code == 0
    assert report["replays"]["collapsed"] == [
        {"test_id": "loads::loads", "testcases": 2, "file": None},
        {"test_id": "test/calc.spec.js::add adds", "testcases": 2, "file": "test/calc.spec.js"},
    ]
    # Each collapsed id is one row, its repeats counted as its attempts.
    retries = {row["test_id"]: row["retries"] for row in report["rows"]}
    assert retries["loads::loads"] == retries["test/calc.spec.js::add adds"] == 2
    assert retries["test/calc.spec.js::loads"] == retries["test/other.spec.js::loads"] == 0
    check_golden(GOLDEN, (root / "summary.md").read_text())


def test_pytest_repeats_are_its_attempts_and_not_named(tmp_path: Path) -> None:
    _, report = gate_twice(workspace(tmp_path / "calc", "pytest", {"xunit": XUNIT, "junit": JUNIT}))
    assert "collapsed" not in report["replays"]


@pytest.mark.parametrize(
    ("runner", "case", "test_id"),
    [
        (
            "jest",
            '<testcase classname="test/calc.spec.js" name="add adds" file="test/calc.spec.js"/>',
            "test/calc.spec.js::add adds",
        ),
        (
            "vitest",
            '<testcase classname="test/calc.spec.js" name="add &gt; adds"/>',
            "test/calc.spec.js::add > adds",
        ),
    ],
)
def test_jest_and_vitest_name_their_collapsed_ids_too(
    tmp_path: Path, runner: str, case: str, test_id: str
) -> None:
    report_text = f"<testsuites><testsuite name='add'>{case}{case}</testsuite></testsuites>"
    _, report = gate_twice(workspace(tmp_path / "calc", runner, {"report": report_text}))
    assert report["replays"]["collapsed"] == [
        {"test_id": test_id, "testcases": 2, "file": "test/calc.spec.js"}
    ]
