"""Test ids of jest-junit, mocha's `xunit` and mocha-junit-reporter reports:
`<file>::<describe path> <title>`, the file placed in the repository, so that two tests with
one title in two files are two ids; the gate's rule for every other report is unchanged."""

from __future__ import annotations

from pathlib import Path

from waiver.read.junit.producer import guess_producer
from waiver.read.junit.replay_reports import Limits, Tally, read_replay
from waiver.read.junit.testid import TestIdRule
from waiver.runners.jest import JEST
from waiver.runners.mocha import MOCHA
from waiver.runners.node import repository_file
from waiver.runners.pytest import PYTEST
from waiver.runners.vitest import VITEST

# What jest-junit writes with the settings of docs/junit.md.
JEST_REPORT = """\
<testsuites name="jest tests">
  <testsuite name="clamp" tests="3">
    <testcase classname="test/calc.test.js" name="clamp keeps a value inside" file="test/calc.test.js"/>
    <testcase classname="test/calc.test.js" name=" top level" file="test/calc.test.js"/>
  </testsuite>
  <testsuite name="clamp" tests="1">
    <testcase classname="test/other.test.js" name="clamp keeps a value inside" file="test/other.test.js"/>
  </testsuite>
</testsuites>
"""
# What mocha-junit-reporter writes with testCaseSwitchClassnameAndName: the file, absolute,
# on the suites only, and none on the root suite.
MOCHA_REPORT = """\
<testsuites name="Mocha Tests">
  <testsuite name="Root Suite" tests="1"><testcase name="top" classname="top"/></testsuite>
  <testsuite name="clamp" tests="0" file="{root}/test/calc.spec.js">
    <testsuite name="inside" tests="1" file="{root}/test/calc.spec.js">
      <testcase name="keeps" classname="clamp inside keeps"/>
    </testsuite>
  </testsuite>
  <testsuite name="clamp" tests="1" file="/home/runner/work/calc/calc/test/other.spec.js">
    <testcase name="clamp inside keeps" classname="keeps"/>
  </testsuite>
</testsuites>
"""
# What mocha's `xunit` reporter writes: one suite, and on every testcase the describe path
# (none at the root), the title and the file, absolute.
MOCHA_XUNIT_REPORT = """\
<testsuite name="Mocha Tests" tests="6">
<testcase classname="" name="top" file="{root}/test/calc.spec.js"/>
<testcase classname="" name="top" file="{root}/test/other.spec.js"/>
<testcase classname="clamp inside" name="keeps" file="{root}/test/calc.spec.js"/>
<testcase classname="x" name="fix x" file="/home/runner/work/calc/calc/test/other.spec.js"/>
<testcase classname="x" name="fix x" file="/elsewhere/test/gone.spec.js"/>
<testcase classname="" name="&#x22;before all&#x22; hook for &#x22;top&#x22;" file="undefined">
<failure>boom</failure></testcase>
</testsuite>
"""


def ids(rule: TestIdRule, report: Path) -> list[str]:
    tally = Tally()
    read_replay([str(report)], rule, tally, Limits())
    return sorted(tally.ids)


def test_jest_ids_carry_the_file_and_no_stray_space(tmp_path: Path) -> None:
    report = tmp_path / "run-1.xml"
    report.write_text(JEST_REPORT)
    assert ids(JEST.test_ids(str(tmp_path)), report) == [
        "test/calc.test.js::clamp keeps a value inside",
        "test/calc.test.js::top level",
        "test/other.test.js::clamp keeps a value inside",
    ]
    # Read as any other report, the same title in two files would still be two ids here,
    # but the title outside a describe keeps jest-junit's leading space.
    assert "test/calc.test.js:: top level" in ids(PYTEST.test_ids(str(tmp_path)), report)


def test_mocha_ids_take_the_suites_file_placed_in_the_repository(tmp_path: Path) -> None:
    (tmp_path / "test").mkdir()
    (tmp_path / "test/calc.spec.js").write_text("\n")
    (tmp_path / "test/other.spec.js").write_text("\n")
    report = tmp_path / "run-1.xml"
    report.write_text(MOCHA_REPORT.format(root=tmp_path))
    assert ids(MOCHA.test_ids(str(tmp_path)), report) == [
        "test/calc.spec.js::clamp inside keeps",
        # Written in another checkout, and the other way round: the same id.
        "test/other.spec.js::clamp inside keeps",
        "top::top",
    ]
    # Without the runner's reading, the two tests of two files collapse into one id.
    assert ids(TestIdRule(str(tmp_path)), report) == [
        "clamp inside keeps::keeps",
        "keeps::clamp inside keeps",
        "top::top",
    ]


def test_mocha_xunit_ids_carry_each_testcases_own_file(tmp_path: Path) -> None:
    (tmp_path / "test").mkdir()
    (tmp_path / "test/calc.spec.js").write_text("\n")
    (tmp_path / "test/other.spec.js").write_text("\n")
    report = tmp_path / "run-1.xml"
    report.write_text(MOCHA_XUNIT_REPORT.format(root=tmp_path))
    assert ids(MOCHA.test_ids(str(tmp_path)), report) == [
        # A failed root-level hook: the reporter writes `undefined` as its file.
        'Mocha Tests::"before all" hook for "top"',
        # Inside a describe: the same id as mocha-junit-reporter's.
        "test/calc.spec.js::clamp inside keeps",
        # Outside any describe: one id per file.
        "test/calc.spec.js::top",
        "test/other.spec.js::top",
        # A title that ends with its describe's name is not taken for a full title.
        "test/other.spec.js::x fix x",
        # A file that is not in the repository: read as any other report's.
        "x::fix x",
    ]


def test_vitest_ids_are_read_by_the_common_rule(tmp_path: Path) -> None:
    report = tmp_path / "run-1.xml"
    report.write_text(
        '<testsuites><testsuite name="test/a.test.ts">'
        '<testcase classname="test/a.test.ts" name="sum &gt; adds"/></testsuite></testsuites>'
    )
    assert ids(VITEST.test_ids(str(tmp_path)), report) == ["test/a.test.ts::sum > adds"]


def test_a_report_file_is_placed_in_the_repository_or_nowhere(tmp_path: Path) -> None:
    (tmp_path / "pkg/test").mkdir(parents=True)
    (tmp_path / "pkg/test/a.spec.js").write_text("\n")
    root = str(tmp_path)
    assert repository_file(root, "pkg/test/a.spec.js") == "pkg/test/a.spec.js"
    assert repository_file(root, f"{tmp_path}/pkg/test/a.spec.js") == "pkg/test/a.spec.js"
    assert repository_file(root, "/ci/work/repo/pkg/test/a.spec.js") == "pkg/test/a.spec.js"
    assert repository_file(root, "C:\\ci\\repo\\pkg\\test\\a.spec.js") == "pkg/test/a.spec.js"
    assert repository_file(root, "/ci/work/repo/pkg/test/gone.spec.js") == ""
    assert repository_file(root, "../outside.js") == ""
    assert repository_file(root, "/etc/../pkg/test/a.spec.js") == "pkg/test/a.spec.js"
    assert repository_file(root, "") == ""


def test_each_runner_maps_an_id_to_its_file() -> None:
    assert JEST.test_file("test/calc.test.js::clamp keeps") == "test/calc.test.js"
    assert MOCHA.test_file("top") is None
    assert PYTEST.test_file("tests/test_x.py::TestY::test_z[1]") == "tests/test_x.py"
    assert PYTEST.test_file("com.acme.FooTest::bar") is None


def test_the_two_mocha_reporters_are_told_apart(tmp_path: Path) -> None:
    xunit, junit = tmp_path / "xunit.xml", tmp_path / "junit.xml"
    xunit.write_text(MOCHA_XUNIT_REPORT.format(root=tmp_path))
    junit.write_text(MOCHA_REPORT.format(root=tmp_path))
    assert (guess_producer(str(xunit)), guess_producer(str(junit))) == (
        "mocha xunit",
        "mocha-junit-reporter",
    )


def test_a_test_whose_own_title_is_empty_is_named_so_by_every_runner(tmp_path: Path) -> None:
    """An empty title would end an id in a space or in `::`, which reads as no title and
    which an editor trims from a registry line: it is named."""
    jest = tmp_path / "jest.xml"
    jest.write_text(
        '<testsuites><testsuite name="x">'
        '<testcase classname="t.test.js" name="clamp " file="t.test.js"/>'
        '<testcase classname="t.test.js" name=" " file="t.test.js"/>'
        '<testcase classname="t.test.js" name=" clamp" file="t.test.js"/>'
        "</testsuite></testsuites>"
    )
    assert ids(JEST.test_ids(str(tmp_path)), jest) == [
        "t.test.js::(empty title)",
        "t.test.js::clamp",
        "t.test.js::clamp (empty title)",
    ]
    vitest = tmp_path / "vitest.xml"
    vitest.write_text(
        '<testsuites><testsuite name="t.test.ts">'
        '<testcase classname="t.test.ts" name="clamp &gt; "/>'
        '<testcase classname="t.test.ts" name=""/></testsuite></testsuites>'
    )
    assert ids(VITEST.test_ids(str(tmp_path)), vitest) == [
        "t.test.ts::(empty title)",
        "t.test.ts::clamp > (empty title)",
    ]
    mocha = tmp_path / "mocha.xml"
    (tmp_path / "t.spec.js").write_text("")
    mocha.write_text(
        '<testsuite name="Mocha Tests">'
        f'<testcase classname="clamp" name="" file="{tmp_path}/t.spec.js"/>'
        f'<testcase classname="" name="" file="{tmp_path}/t.spec.js"/></testsuite>'
    )
    assert ids(MOCHA.test_ids(str(tmp_path)), mocha) == [
        "t.spec.js::(empty title)",
        "t.spec.js::clamp (empty title)",
    ]
    # The name filter matches the titles without the mark.
    assert VITEST.title("t.test.ts::clamp > (empty title)") == "clamp"
