"""A red-green replay's report read back: a test whose file failed to load on the base
errored there, told by the case each runner writes for such a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from waiver.read.red_green_replays import read_replay
from waiver.runners import runner_named

REPORTS = {
    # pytest: a collection error is a case without a classname, named by the module.
    "pytest": (
        "tests/test_new.py::test_doubles",
        '<testsuite><testcase classname="" name="tests.test_new"><error message="ImportError"/>'
        "</testcase></testsuite>",
    ),
    # jest-junit, with JEST_JUNIT_REPORT_TEST_SUITE_ERRORS=true.
    "jest": (
        "test/double.test.js::doubles",
        '<testsuites><testsuite name="test/double.test.js"><testcase classname="Test suite '
        'failed to run" name="test/double.test.js" file="test/double.test.js"><error>Cannot '
        "find module</error></testcase></testsuite></testsuites>",
    ),
    # vitest: the file is the case's classname and its name.
    "vitest": (
        "test/double.test.ts::doubles",
        '<testsuites><testsuite name="test/double.test.ts"><testcase classname="test/double.test.ts"'
        ' name="test/double.test.ts"><failure message="Failed to load url"/></testcase>'
        "</testsuite></testsuites>",
    ),
}


@pytest.mark.parametrize("runner", sorted(REPORTS))
def test_a_file_that_failed_to_load_errors_its_tests(tmp_path: Path, runner: str) -> None:
    test_id, report = REPORTS[runner]
    path = tmp_path / "run-1.xml"
    path.write_text(report)
    named = runner_named(runner)
    seen = read_replay(str(path), [test_id], named.test_ids(str(tmp_path)), named.load_failure)
    assert (seen.outcomes, seen.errored) == ({}, {test_id})
    # Another file's failure to load is not this test's.
    other = f"other/{test_id}"
    seen = read_replay(str(path), [other], named.test_ids(str(tmp_path)), named.load_failure)
    assert (seen.outcomes, seen.errored) == ({}, set())


def test_mocha_writes_no_case_for_a_file_that_failed_to_load() -> None:
    assert runner_named("mocha").load_failure("test/double.test.js") is None
