"""The reader against 368 JUnit files written by real tools (`data/`, see its README.md).

One case per MANIFEST.tsv row: every well-formed JUnit file is read whole, as often as it
has `<testcase>` elements, with the same ids when read as two replays, and with the same
per-case outcomes as junitparser's xunit2 model; every file that is not well-formed, not
JUnit, or carries a DTD gives exit 2 from `waiver inspect`, naming the file.

The golden files in `golden/` were written by the reader once (`WAIVER_REGENERATE=1`) and
then each one was reviewed by hand against its XML: every id against its testcase's
classname, name and enclosing suite; every outcome against the testcase's children and
its status/result attributes; every retry count against the flaky/rerun elements and
the repeated testcases; the producer against the file's origin in the MANIFEST; every
failing id's message against its first failure's `message` attribute, or its text where
the producer writes none.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import ParseError

import pytest
from junitparser import Error, Failure, JUnitXmlError, Skipped, TestCase, xunit2

from helpers.support import gate_args, load_report
from waiver.cli import main
from waiver.read.junit.producer import guess_producer
from waiver.read.junit.replay_reports import Limits, Tally, read_replay, read_single
from waiver.read.junit.stream import FAIL, PASS, SKIP, SKIP_RESULT, STATUS_OUTCOMES, read_junit
from waiver.read.junit.testid import TestIdRule
from waiver.read.untrusted.files import open_regular, read_chunks

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent / "data"
GOLDEN = Path(__file__).resolve().parent / "golden"
REGENERATE = os.environ.get("WAIVER_REGENERATE") == "1"


@dataclass(frozen=True)
class Row:
    path: str  # under junit/
    producer: str
    testcases: str  # a number; `N~` for files that are not well-formed
    well_formed: bool
    intent: str

    @property
    def file(self) -> str:
        return str(CORPUS / "junit" / self.path)

    @property
    def refused(self) -> bool:
        """Not well-formed, not JUnit, or a DTD/entity payload: the reader must refuse it."""
        return not self.well_formed or self.intent.startswith(
            ("INTENTIONALLY NON-JUNIT", "HOSTILE: XXE")
        )


def read_manifest() -> list[Row]:
    with (CORPUS / "MANIFEST.tsv").open(encoding="utf-8", newline="") as stream:
        return [
            Row(
                path=record["path"],
                producer=record["producing_tool"],
                testcases=record["testcase_count"],
                well_formed=record["well_formed"] == "yes",
                intent=record["intent_flag"],
            )
            for record in csv.DictReader(stream, delimiter="\t")
        ]


ROWS = read_manifest()
READ = [row for row in ROWS if not row.refused]
REFUSED = [row for row in ROWS if row.refused]

# Failures written directly inside a <testsuite>, each read as one failed case of the suite.
SUITE_LEVEL_FAILURES = {
    "jenkinsci__junit-plugin/src/test/resources/hudson/tasks/junit/junit-report-6700.xml": 1,
    "jenkinsci__junit-plugin/src/test/resources/hudson/tasks/junit/junit-report-nested-testsuites.xml": 1,
}

# The problem `waiver inspect` names for each refused file.
PROBLEMS = {
    "EnricoMi__publish-unit-test-result-action/python/test/files/junit-xml/non-junit.xml": "not a JUnit report: the root element is <suites>",
    "EnricoMi__publish-unit-test-result-action/python/test/files/junit-xml/pytest/corrupt-xml.xml": "not well-formed XML: no element found (line 11, column 21)",
    "EnricoMi__publish-unit-test-result-action/python/test/files/xml/empty.xml": "not well-formed XML: no element found (line 1, column 0)",
    "EnricoMi__publish-unit-test-result-action/python/test/files/xml/non-xml.xml": "not well-formed XML: syntax error (line 1, column 0)",
    "allure-framework__allure2/plugins/junit-xml-plugin/src/test/resources/junitdata/invalid.xml": "not a JUnit report: the root element is <ns2:test-suite>",
    "jenkinsci__junit-plugin/src/test/resources/hudson/tasks/junit/testXxe-oob.xml": "not well-formed XML: syntax error (line 1, column 0)",
    "jenkinsci__junit-plugin/src/test/resources/hudson/tasks/junit/testXxe-xxe.xml": "a DOCTYPE is not allowed in a report",
    "mikepenz__action-junit-report/test_results/corrupt-junit/e2e-tests/corrupt/target/sf-reports/TEST-test.CorruptTest.xml": "not well-formed XML: unclosed CDATA section (line 18, column 25)",
    "mikepenz__action-junit-report/test_results/junit-web-test/expected.xml": "not well-formed XML: not well-formed (invalid token) (line 9, column 58)",
    "mikepenz__action-junit-report/test_results/junit-web-test/expectedRetries.xml": "not well-formed XML: not well-formed (invalid token) (line 9, column 58)",
}

# golden/<name>.json -> the corpus file it describes; 38 files from 27 producers (MANIFEST column).
GOLDEN_FILES = {
    "surefire-flaky": "apache__maven-surefire/surefire-report-parser/src/test/resources/fixture/testsuitexmlparser/TEST-org.acme.FlakyTest.xml",
    "surefire-rerun-always-fails": "jenkinsci__junit-plugin/src/test/resources/hudson/tasks/junit/gh-237/TEST-io.olamy.AlwaysFailTest.xml",
    "surefire-rerun-flaky": "jenkinsci__junit-plugin/src/test/resources/hudson/tasks/junit/gh-237/TEST-io.olamy.FlakyTest.xml",
    "failsafe-flaky-suite": "ScaCap__action-surefire-report/integration-tests/custom_reports/TEST-test.MyIntegrationTestSuite.xml",
    "surefire-umlaut-path": "apache__maven-surefire/surefire-report-parser/src/test/resources/junit-pathWithÜmlaut/TEST-umlautTest.BasicTest.xml",
    "gradle-retry-flaky": "gmazzo__publish-report-annotations@samples/TEST-org.test.sample.FlakyTestSuite.xml",
    "gradle-retry-always-fails": "gmazzo__publish-report-annotations@samples/TEST-org.test.sample.FlakyFailingTestSuite.xml",
    "gradle-parameters": "gmazzo__publish-report-annotations@samples/TEST-org.test.sample.AnotherTestSuite.xml",
    "go-junit-report-basic": "jstemmer__go-junit-report/testdata/001-report.xml",
    "go-junit-report-repeated-names": "jstemmer__go-junit-report/testdata/016-report.xml",
    "gotestsum-rerun-fails": "mikepenz__action-junit-report/test_results/junit-server-test/report.xml",
    "jest-junit-empty-classname": "EnricoMi__publish-unit-test-result-action/python/test/files/junit-xml/jest/jest-junit.xml",
    "jest-junit-suite-failed-to-run": "dorny__test-reporter/__tests__/fixtures/test-errors/jest/jest-test-results.xml",
    "mocha-cypress": "rwx-research__captain/test/fixtures/cypress.xml",
    "nextest-retries": "nextest-rs__nextest/fixtures/fixture-project-junit.xml",
    "nextest-stress": "nextest-rs__nextest/fixtures/stress-test-junit.xml",
    "quick-junit-basic": "nextest-rs__quick-junit/crates/quick-junit-tests/tests/fixtures/basic_report.xml",
    "phpunit": "dorny__test-reporter/__tests__/fixtures/phpunit/phpunit.xml",
    "pytest-fail": "EnricoMi__publish-unit-test-result-action/python/test/files/junit-xml/pytest/junit.fail.xml",
    "pytest-rerun-success-first": "mikepenz__action-junit-report/test_results/flaky_retries/flaky_success_first.xml",
    "bazel": "EnricoMi__publish-unit-test-result-action/python/test/files/junit-xml/bazel/suite-logs.xml",
    "googletest-disabled": "jenkinsci__xunit-plugin/src/test/resources/org/jenkinsci/plugins/xunit/XUnitPublisherTest/workspace/JENKINS-52253/googletest.xml",
    "googletest-result-attribute": "jenkinsci__xunit-plugin/src/test/resources/org/jenkinsci/plugins/xunit/types/googletest/testcase4/input.xml",
    "playwright": "onnx-cloud__ux3@5fc8a92/playwright-report/results.xml",
    "testng-skipped-attempt": "dorny__test-reporter/__tests__/fixtures/external/java/TEST-org.apache.pulsar.AddMissingPatchVersionTest.xml",
    "catch2": "mikepenz__action-junit-report/test_results/catch2/report.xml",
    "ant": "jenkinsci__junit-plugin/src/test/resources/hudson/tasks/junit/JENKINS-48583/TEST-com.sample.test.TestMessage2.xml",
    "ant-suite-level-error": "jenkinsci__junit-plugin/src/test/resources/hudson/tasks/junit/junit-report-6700.xml",
    "nested-suite-level-error": "jenkinsci__junit-plugin/src/test/resources/hudson/tasks/junit/junit-report-nested-testsuites.xml",
    "status-disabled-with-failure": "mikepenz__action-junit-report/test_results/issues/testFailedDisabled.xml",
    "status-notrun-bom": "allure-framework__allure2/plugins/junit-xml-plugin/src/test/resources/junitdata/TEST-status-attribute.xml",
    "multiple-results": "EnricoMi__publish-unit-test-result-action/python/test/files/junit-xml/junit.multiresult.xml",
    "no-attributes": "EnricoMi__publish-unit-test-result-action/python/test/files/junit-xml/no-attributes.xml",
    "marathon-flaky": "mikepenz__action-junit-report/test_results/junit_flaky_failure/marathon_junit_report.xml",
    "firebase-flaky": "gmazzo__publish-report-annotations@samples/TEST-firebase-testlab-test_results_merged.xml",
    "xmlrunner": "rwx-research__captain/test/fixtures/unittest.xml",
    "odd-times": "jenkinsci__junit-plugin/src/test/resources/hudson/tasks/junit/junit-report-testsuite-time-attrs.xml",
    "path-traversal": "allure-framework__allure2/plugins/junit-xml-plugin/src/test/resources/junitdata/path-traversal.xml",
}

OUTCOME_WORDS = {PASS: "pass", FAIL: "fail", SKIP: "skip"}
NOW = "2026-01-01T00:00:00+00:00"


def row_id(row: Row) -> str:
    return row.path


def read_cases(path: str) -> tuple[int, list[tuple[str, str, str, int, int, str]]]:
    """The testcase count read_junit returns, and everything it hands to the sink."""
    cases: list[tuple[str, str, str, int, int, str]] = []
    count = read_junit(
        read_chunks(open_regular(path, path), None, path),
        path,
        lambda *case: cases.append(case),
    )
    return count, cases


@pytest.mark.parametrize("row", READ, ids=row_id)
def test_a_well_formed_report_is_read_whole_and_stably(row: Row) -> None:
    count, cases = read_cases(row.file)
    assert count == int(row.testcases)
    assert len(cases) == count + SUITE_LEVEL_FAILURES.get(row.path, 0)
    assert {outcome for *_, outcome, _, _ in cases} <= {PASS, FAIL, SKIP}

    tally = Tally()
    rule = TestIdRule(str(REPO))
    read_replay([row.file], rule, tally, Limits())
    first_ids = list(tally.ids)
    read_replay([row.file], rule, tally, Limits())
    assert tally.ids == first_ids
    assert tally.replays[1] == tally.replays[0]
    assert tally.testcases == 2 * count


@pytest.mark.parametrize("row", REFUSED, ids=row_id)
def test_a_refused_file_exits_2_naming_the_file(
    row: Row, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", row.file]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"waiver: error: {row.file}: {PROBLEMS[row.path]}\n"


def test_every_refused_file_has_its_expected_problem() -> None:
    assert sorted(row.path for row in REFUSED) == sorted(PROBLEMS)


def junitparser_outcome(case: TestCase) -> int:
    """junitparser's model as one outcome: a final failure/error or any interim result fails."""
    assert isinstance(case, xunit2.TestCase)  # what xunit2.JUnitXml builds
    results = case.result
    if case.interim_result or any(isinstance(r, Failure | Error) for r in results):
        return FAIL
    if any(isinstance(r, Skipped) for r in results):
        return SKIP
    return PASS


def expected_outcome(case: TestCase) -> int:
    """junitparser's outcome, plus the status/result attributes the reader also honours."""
    outcome = junitparser_outcome(case)
    if outcome == PASS:
        status = case._elem.get("status")
        if status is not None:
            outcome = STATUS_OUTCOMES.get(status.lower(), PASS)
        if outcome == PASS and case._elem.get("result") in SKIP_RESULT:
            outcome = SKIP
    return outcome


@pytest.mark.parametrize("row", READ, ids=row_id)
def test_outcomes_agree_with_junitparser(row: Row) -> None:
    try:
        document = xunit2.JUnitXml.fromfile(row.file)
    except (ParseError, JUnitXmlError) as error:
        pytest.skip(f"junitparser cannot read it: {error}")
    theirs = Counter(
        (case.classname or "", case.name or "", expected_outcome(case))
        for suite in document
        for case in suite
    )
    _, cases = read_cases(row.file)
    ours = Counter((classname, name, outcome) for _, classname, name, outcome, _, _ in cases)
    suite_level = SUITE_LEVEL_FAILURES.get(row.path, 0)
    assert ours - theirs == (Counter({("", "", FAIL): suite_level}) if suite_level else Counter())
    assert theirs - ours == Counter()


def describe(path: str) -> dict[str, Any]:
    """A corpus file read as one replay: what the golden files record."""
    tally = read_single(path, TestIdRule(None), Limits())
    states = tally.replays[0]
    return {
        "file": str(Path(path).relative_to(CORPUS / "junit")),
        "producer": guess_producer(path),
        "testcases": tally.testcases,
        "ids": [
            {
                "id": test_id,
                "outcome": (
                    "fail"
                    if states[position] & FAIL
                    else "pass"
                    if states[position] & PASS
                    else "skip"
                ),
                "retries": tally.retries.get(position, 0),
                **({"message": tally.messages[position]} if position in tally.messages else {}),
            }
            for position, test_id in enumerate(tally.ids)
        ],
    }


def test_the_golden_files_cover_at_least_25_files_from_10_producers() -> None:
    producers = {row.producer for row in ROWS if row.path in GOLDEN_FILES.values()}
    assert len(GOLDEN_FILES) >= 25
    assert len(producers) >= 10
    assert sorted(path.stem for path in GOLDEN.glob("*.json")) == sorted(GOLDEN_FILES)


@pytest.mark.parametrize("name", sorted(GOLDEN_FILES))
def test_golden(name: str) -> None:
    actual = describe(str(CORPUS / "junit" / GOLDEN_FILES[name]))
    golden = GOLDEN / f"{name}.json"
    if REGENERATE:
        golden.write_text(json.dumps(actual, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert json.loads(golden.read_text(encoding="utf-8")) == actual


class OpenRecorder:
    """Every path opened while recording, seen through the interpreter's audit hook."""

    def __init__(self) -> None:
        self.paths: list[str] | None = None
        sys.addaudithook(self._hook)

    def _hook(self, event: str, args: tuple[object, ...]) -> None:
        if self.paths is not None and event == "open":
            self.paths.append(str(args[0]))


OPENS = OpenRecorder()


def test_a_traversing_classname_is_a_plain_id_and_opens_nothing(tmp_path: Path) -> None:
    report = CORPUS / "junit" / GOLDEN_FILES["path-traversal"]
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "secret-file").write_text("secret")
    (tmp_path / "secret-file.py").write_text("secret")
    OPENS.paths = []
    try:
        tally = read_single(str(report), TestIdRule(str(root)), Limits())
    finally:
        opened, OPENS.paths = OPENS.paths, None
    assert tally.ids == ["../secret-file::shouldGenerate"]
    assert [path for path in opened if not path.isdigit()] == [str(report)]


def test_pytest_classnames_become_node_ids_when_the_module_exists(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_lib.py").write_text("")
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "test_spark.py").write_text("")
    rule = TestIdRule(str(tmp_path))
    pytest_report = CORPUS / "junit/dorny__test-reporter/__tests__/fixtures/python-xunit-pytest.xml"
    assert read_single(str(pytest_report), rule, Limits()).ids == [
        "tests/test_lib.py::test_always_pass",
        "tests/test_lib.py::test_with_subtests",
        "tests/test_lib.py::test_parameterized[param1]",
        "tests/test_lib.py::test_parameterized[param2]",
        "tests/test_lib.py::test_always_skip",
        "tests/test_lib.py::test_always_fail",
        "tests/test_lib.py::test_expected_failure",
        "tests/test_lib.py::test_error",
        "tests/test_lib.py::test_with_record_property",
        "custom_classname::test_with_record_xml_attribute",
    ]
    with_class = CORPUS / "junit" / GOLDEN_FILES["pytest-fail"]
    assert read_single(str(with_class), rule, Limits()).ids == [
        "test/test_spark.py::SparkTests::test_check_shape_compatibility",
        "test/test_spark.py::SparkTests::test_get_available_devices",
        "test/test_spark.py::SparkTests::test_get_col_info",
        "test/test_spark.py::SparkTests::test_rsh_events",
        "test/test_spark.py::SparkTests::test_rsh_with_non_zero_exit_code",
    ]


def test_inspect_prints_one_line_per_file(capsys: pytest.CaptureFixture[str]) -> None:
    files = [
        str(CORPUS / "junit" / GOLDEN_FILES[name])
        for name in ("surefire-flaky", "gradle-retry-flaky", "ant-suite-level-error", "bazel")
    ]
    assert main(["inspect", *files]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{files[0]}: Maven Surefire; 2 test ids from 2 testcases: "
        "1 passed, 1 failed, 0 skipped; 4 retries",
        f"{files[1]}: Gradle; 1 test id from 3 testcases: 0 passed, 1 failed, 0 skipped; 2 retries",
        f"{files[2]}: Apache Ant or an Ant-style writer (sbt); 1 test id from 0 testcases: "
        "0 passed, 1 failed, 0 skipped; 0 retries",
        f"{files[3]}: Bazel; 1 test id from 1 testcase: 0 passed, 1 failed, 0 skipped; 0 retries",
    ]


def test_inspect_stops_at_the_first_unreadable_file(capsys: pytest.CaptureFixture[str]) -> None:
    good = str(CORPUS / "junit" / GOLDEN_FILES["bazel"])
    bad = REFUSED[0].file
    assert main(["inspect", good, bad, good]) == 2
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 1
    assert captured.err == f"waiver: error: {bad}: {PROBLEMS[REFUSED[0].path]}\n"


# The gate end to end: a fixture set, its lock, a green property report, and replays.

PROPERTIES = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest"><testcase classname="tests.properties.test_props"
 name="test_holds" time="0.1"/></testsuite></testsuites>
"""
SUREFIRE_FLAKY = GOLDEN_FILES["surefire-flaky"]
GRADLE_FLAKY = GOLDEN_FILES["gradle-retry-flaky"]


def clean_pass(classname: str, *names: str) -> str:
    """A replay in which every named test passed at the first attempt."""
    cases = "".join(
        f'<testcase name="{name}" classname="{classname}" time="0.01"/>' for name in names
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuite name="{classname}" tests="{len(names)}">{cases}</testsuite>\n'
    )


def gate_corpus_replays(tmp_path: Path, replays: list[str | Path]) -> tuple[int, dict[str, Any]]:
    """`waiver gate` over `replays` (corpus files or report text), as run-1 … run-N."""
    root = tmp_path / "repo"
    (root / "fixtures").mkdir(parents=True)
    (root / "fixtures" / "data.json").write_text('{"a": 1}\n')
    lock, out = root / "fixture.lock", root / "waiver.json"
    assert (
        main(
            ["lock", "--fixtures", str(root / "fixtures"), "--root", str(root), "--out", str(lock)]
        )
        == 0
    )
    (root / "properties.xml").write_text(PROPERTIES)
    (root / "waiver.yml").write_text("registry: none\n")  # these cases are about outcomes
    reports = root / "reports"
    reports.mkdir()
    for number, replay in enumerate(replays, start=1):
        target = reports / f"run-{number}.xml"
        if isinstance(replay, Path):
            shutil.copyfile(replay, target)
        else:
            target.write_text(replay)
    code = main(gate_args(root, "--config", str(root / "waiver.yml"), known_tests=False, now=NOW))
    return code, load_report(out)


def row_of(report: dict[str, Any], test_id: str) -> dict[str, Any]:
    rows: list[dict[str, Any]] = [row for row in report["rows"] if row["test_id"] == test_id]
    assert len(rows) == 1
    return rows[0]


def test_a_flaky_pass_in_every_replay_is_a_stable_failure(tmp_path: Path) -> None:
    flaky = CORPUS / "junit" / SUREFIRE_FLAKY
    code, report = gate_corpus_replays(tmp_path, [flaky] * 5)
    assert code == 1
    row = row_of(report, "org.acme.FlakyTest::testFlaky")
    assert (row["class"], row["replay_pass"], row["replay_total"]) == (
        "stable_assertion_fail",
        0,
        5,
    )
    assert row["retries"] == 20  # three flakyFailure and one flakyError in each replay
    assert row["freeze"] is None
    assert row_of(report, "org.acme.FlakyTest::testStable")["class"] == "stable_pass"


def test_a_flaky_pass_mixed_with_clean_passes_is_unstable(tmp_path: Path) -> None:
    flaky = CORPUS / "junit" / SUREFIRE_FLAKY
    clean = clean_pass("org.acme.FlakyTest", "testFlaky", "testStable")
    code, report = gate_corpus_replays(tmp_path, [flaky, clean, flaky, clean, flaky])
    row = row_of(report, "org.acme.FlakyTest::testFlaky")
    assert (row["class"], row["replay_pass"], row["replay_total"]) == ("unstable_assertion", 2, 5)
    assert row["retries"] == 12
    assert row["freeze"]["counts_as_pass"] is False
    assert row_of(report, "org.acme.FlakyTest::testStable")["class"] == "stable_pass"
    assert (code, report["verdict"]) == (0, "review")


def test_two_failed_gradle_attempts_then_a_pass_is_a_failed_replay(tmp_path: Path) -> None:
    report_file = CORPUS / "junit" / GRADLE_FLAKY
    tally = read_single(str(report_file), TestIdRule(None), Limits())
    assert tally.ids == ["org.test.sample.FlakyTestSuite::flakyTest()"]
    assert tally.outcomes(0) == (False,)
    assert tally.retries == {0: 2}

    clean = clean_pass("org.test.sample.FlakyTestSuite", "flakyTest()")
    code, report = gate_corpus_replays(tmp_path, [clean, clean, report_file, clean, clean])
    row = row_of(report, "org.test.sample.FlakyTestSuite::flakyTest()")
    assert (row["class"], row["replay_pass"], row["replay_total"]) == ("unstable_assertion", 4, 5)
    assert row["retries"] == 2
    assert (code, report["verdict"]) == (0, "review")
