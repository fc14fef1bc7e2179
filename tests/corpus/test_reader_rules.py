"""The reader's rules on small hand-made reports: encodings, outcomes, retries, test ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.junit_support import suite
from waiver.cli import main
from waiver.errors import InputError
from waiver.read.junit.replay_reports import Limits, Tally, read_replay, read_single
from waiver.read.junit.stream import FAIL, PASS, SKIP, read_junit
from waiver.read.junit.testid import TestIdRule

Case = tuple[str, str, str, int, int, str]


def read(document: bytes, chunk: int | None = None) -> list[Case]:
    """Everything the reader hands on for `document`, fed whole or `chunk` bytes at a time."""
    pieces = (
        [document]
        if chunk is None
        else [document[i : i + chunk] for i in range(0, len(document), chunk)]
    )
    cases: list[Case] = []
    read_junit(pieces, "report.xml", lambda *case: cases.append(case))
    return cases


# Encodings


@pytest.mark.parametrize(
    "encoding",
    ["windows-1252", "ISO-8859-2", "KOI8-R", "Shift_JIS", "GBK", "EUC-KR", "utf8", "latin1"],
)
@pytest.mark.parametrize("chunk", [None, 1, 7])
def test_a_declared_encoding_python_knows_is_read(encoding: str, chunk: int | None) -> None:
    name = {
        "windows-1252": "café €",
        "ISO-8859-2": "łódź",
        "KOI8-R": "тест",
        "Shift_JIS": "日本語",
        "GBK": "中文",
        "EUC-KR": "한국어",
        "utf8": "naïve ☃",
        "latin1": "naïve",
    }[encoding]
    testcase = f'<testcase classname="c" name="{name}"/>'
    document = f'<?xml version="1.0" encoding="{encoding}"?>{suite(testcase)}'
    assert read(document.encode(encoding), chunk) == [("s", "c", name, PASS, 0, "")]


@pytest.mark.parametrize(
    "document",
    [
        "\ufeff" + '<?xml version="1.0" encoding="Shift_JIS"?>' + suite('<testcase name="ü"/>'),
        '<?xml version="1.0" encoding="Shift_JIS"?>' + suite('<testcase name="ü"/>'),
    ],
    ids=["bom", "no-bom"],
)
@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf_16_is_read_whatever_it_declares(document: str, encoding: str) -> None:
    assert read(document.encode(encoding)) == [("s", "", "ü", PASS, 0, "")]


def test_a_utf_8_byte_order_mark_wins_over_the_declaration() -> None:
    document = '<?xml version="1.0" encoding="bogus"?>' + suite('<testcase name="ü"/>')
    assert read(b"\xef\xbb\xbf" + document.encode()) == [("s", "", "ü", PASS, 0, "")]


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        (
            b'<?xml version="1.0" encoding="bogus"?><testsuites/>',
            "the declared encoding 'bogus' is not one waiver can read",
        ),
        (
            b'<?xml version="1.0" encoding="base64"?><testsuites/>',
            "the declared encoding 'base64' is not one waiver can read",
        ),
        (
            b'<?xml version="1.0" encoding="Shift_JIS"?><testsuites name="\x81"/>',
            "not valid shift_jis: illegal multibyte sequence",
        ),
        (
            b'<?xml version="1.0" encoding="UTF-8"?><testsuites name="\xff"/>',
            "not well-formed XML: not well-formed (invalid token) (line 1, column 56)",
        ),
    ],
    ids=["unknown", "not-a-text-encoding", "bad-shift-jis", "bad-utf-8"],
)
def test_an_unreadable_encoding_is_an_input_error(
    document: bytes, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(InputError) as raised:
        read(document)
    assert raised.value.problem == problem
    report = tmp_path / "report.xml"
    report.write_bytes(document)
    assert main(["inspect", str(report)]) == 2
    assert capsys.readouterr().err == f"waiver: error: {report}: {problem}\n"


# Outcomes


@pytest.mark.parametrize(
    ("testcase", "outcome"),
    [
        ('<testcase name="t"/>', PASS),
        ('<testcase name="t"><system-out>failure</system-out></testcase>', PASS),
        ('<testcase name="t"><skipped/></testcase>', SKIP),
        ('<testcase name="t"><failure/></testcase>', FAIL),
        ('<testcase name="t"><error/></testcase>', FAIL),
        ('<testcase name="t"><failure/><failure/><error/></testcase>', FAIL),
        ('<testcase name="t"><skipped/><failure/></testcase>', FAIL),
        ('<testcase name="t"><failure/><skipped/></testcase>', FAIL),
        ('<testcase name="t" status="notrun"/>', SKIP),
        ('<testcase name="t" status="disabled"/>', SKIP),
        ('<testcase name="t" status="Ignored"><skipped/></testcase>', SKIP),
        ('<testcase name="t" status="NotRunnable"/>', SKIP),
        ('<testcase name="t" status="run" result="completed"/>', PASS),
        ('<testcase name="t" status="run" result="skipped"/>', SKIP),
        ('<testcase name="t" status="notrun" result="suppressed"/>', SKIP),
        ('<testcase name="t" status="passed"/>', PASS),
        ('<testcase name="t" status="Success"/>', PASS),
        ('<testcase name="t" status="Failed"/>', FAIL),
        ('<testcase name="t" status="errored"/>', FAIL),
        ('<testcase name="t" status="disabled"><failure/></testcase>', FAIL),
        ('<testcase name="t" status="run" result="skipped"><failure/></testcase>', FAIL),
    ],
)
def test_the_outcome_of_a_testcase(testcase: str, outcome: int) -> None:
    assert read(suite(testcase).encode()) == [("s", "", "t", outcome, 0, "")]


@pytest.mark.parametrize(
    "children",
    [
        "<flakyFailure/><flakyError/>",
        "<failure/><rerunFailure/><rerunError/>",
        "<rerunFailure/><rerunError/><failure/>",
        "<flakyFailure/><failure/><flakyError/>",
    ],
)
def test_retry_elements_fail_the_case_in_any_order(children: str) -> None:
    assert read(suite(f'<testcase name="t">{children}</testcase>').encode()) == [
        ("s", "", "t", FAIL, 2, "")
    ]


def test_times_and_counts_in_attributes_do_not_matter() -> None:
    document = (
        '<testsuites tests="99"><testsuite name="s" tests="-1" time="2,503.1">'
        '<testcase name="a" time="-3"/><testcase name="b" time="1e400"/>'
        '<testcase name="c" time="&lt;&lt;computed&gt;&gt;"/></testsuite></testsuites>'
    )
    assert [name for _, _, name, _, _, _ in read(document.encode())] == ["a", "b", "c"]


def test_a_failure_written_in_a_suite_fails_the_suite_once() -> None:
    document = (
        '<testsuites><testsuite name="outer"><testsuite name="inner">'
        '<error message="class did not load"/><failure/></testsuite>'
        '<testcase classname="k" name="t"/></testsuite></testsuites>'
    )
    assert read(document.encode()) == [
        ("inner", "", "", FAIL, 0, "class did not load"),
        ("outer", "k", "t", PASS, 0, ""),
    ]


def test_the_innermost_suite_names_a_case_without_classname() -> None:
    document = (
        '<testsuites><testsuite name="a"><testsuite name="b"><testcase name="x"/></testsuite>'
        '<testcase name="y"/></testsuite><testcase name="z"/></testsuites>'
    )
    assert [(s, n) for s, _, n, _, _, _ in read(document.encode())] == [
        ("b", "x"),
        ("a", "y"),
        ("", "z"),
    ]


def test_a_bare_testcase_root_is_not_junit() -> None:
    with pytest.raises(InputError, match=r"the root element is <testcase>"):
        read(b'<testcase name="t"/>')


# Repeated occurrences within a replay


def tally_of(tmp_path: Path, *replays: list[str]) -> Tally:
    """Each replay is a list of report texts, read as the shard files of one replay."""
    tally = Tally()
    for number, shards in enumerate(replays, start=1):
        paths = []
        for index, text in enumerate(shards):
            path = tmp_path / f"run-{number}-shard-{index}.xml"
            path.write_text(text)
            paths.append(str(path))
        read_replay(paths, TestIdRule(None), tally, Limits())
    return tally


PASSED = '<testcase classname="k" name="t"/>'
FAILED = '<testcase classname="k" name="t"><failure/></testcase>'
SKIPPED = '<testcase classname="k" name="t"><skipped/></testcase>'
FLAKY = '<testcase classname="k" name="t"><flakyFailure/></testcase>'


@pytest.mark.parametrize(
    ("occurrences", "outcomes", "retries"),
    [
        ([PASSED], (True,), {}),
        ([PASSED, PASSED, PASSED], (True,), {0: 2}),
        ([FAILED, FAILED, PASSED], (False,), {0: 2}),
        ([PASSED, FAILED], (False,), {0: 1}),
        ([SKIPPED, PASSED], (True,), {0: 1}),
        ([SKIPPED, FAILED], (False,), {0: 1}),
        ([SKIPPED, SKIPPED], (), {0: 1}),
        ([FLAKY], (False,), {0: 1}),
        ([FLAKY, PASSED], (False,), {0: 2}),
    ],
    ids=[
        "once",
        "count-3",
        "two-failed-attempts-then-pass",
        "pass-then-fail",
        "skipped-attempt-then-pass",
        "skipped-attempt-then-fail",
        "only-skipped",
        "flaky-element",
        "flaky-element-and-repeat",
    ],
)
def test_every_occurrence_in_a_replay_must_pass(
    tmp_path: Path, occurrences: list[str], outcomes: tuple[bool, ...], retries: dict[int, int]
) -> None:
    tally = tally_of(tmp_path, [suite(*occurrences)])
    assert tally.ids == ["k::t"]
    assert tally.outcomes(0) == outcomes
    assert tally.retries == retries


def test_occurrences_in_different_shards_of_a_replay_merge(tmp_path: Path) -> None:
    tally = tally_of(tmp_path, [suite(PASSED), suite(FAILED)], [suite(PASSED), suite(PASSED)])
    assert tally.outcomes(0) == (False, True)
    assert tally.retries == {0: 2}


def test_a_replay_that_cannot_be_read_leaves_nothing_in_the_tally(tmp_path: Path) -> None:
    tally = tally_of(tmp_path, [suite(PASSED)])
    good, broken = tmp_path / "good.xml", tmp_path / "broken.xml"
    good.write_text(suite('<testcase classname="new" name="n"/>'))
    broken.write_text(suite(FAILED)[:-5])
    with pytest.raises(InputError):
        read_replay([str(good), str(broken)], TestIdRule(None), tally, Limits())
    assert (tally.ids, tally.index, len(tally.replays)) == (["k::t"], {"k::t": 0}, 1)
    assert (tally.testcases, tally.retries) == (1, {})


# Test ids


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    for module in ("tests/unit/test_x.py", "tests/my-dir/test_y.py", "test_top.py"):
        (tmp_path / module).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / module).write_text("")
    (tmp_path / "com" / "acme").mkdir(parents=True)
    return tmp_path


@pytest.mark.parametrize(
    ("suite_name", "classname", "name", "test_id"),
    [
        ("pytest", "tests.unit.test_x", "test_z", "tests/unit/test_x.py::test_z"),
        (
            "pytest",
            "tests.unit.test_x.TestY",
            "test_z[1-a]",
            "tests/unit/test_x.py::TestY::test_z[1-a]",
        ),
        (
            "pytest",
            "tests.unit.test_x.TestY",
            "test_z[1-a/b.c]",
            "tests/unit/test_x.py::TestY::test_z[1-a/b.c]",
        ),
        (
            "pytest",
            "tests.unit.test_x.TestY.TestInner",
            "test_z",
            "tests/unit/test_x.py::TestY::TestInner::test_z",
        ),
        ("pytest", "tests.my-dir.test_y", "test_z", "tests/my-dir/test_y.py::test_z"),
        ("pytest", "test_top", "test_z", "test_top.py::test_z"),
        ("pytest", "tests.unit.test_gone", "test_z", "tests.unit.test_gone::test_z"),
        ("s", "com.acme.FooTest", "bar", "com.acme.FooTest::bar"),
        ("s", "com.acme.FooTest$Inner", "bar", "com.acme.FooTest$Inner::bar"),
        ("s", "package/pass", "TestPass/sub_test", "package/pass::TestPass/sub_test"),
        ("s", "../test_top", "x", "../test_top::x"),
        ("s", "tests..unit", "x", "tests..unit::x"),
        ("widget.test.js", "", "Mount iframe", "widget.test.js::Mount iframe"),
        ("", "", "lonely", "lonely"),
        ("s", "k", "", "k::"),
    ],
)
def test_the_id_rule(repo: Path, suite_name: str, classname: str, name: str, test_id: str) -> None:
    assert TestIdRule(str(repo))(suite_name, classname, name) == test_id


def test_without_a_root_every_classname_is_kept() -> None:
    assert TestIdRule(None)("pytest", "tests.unit.test_x", "test_z") == "tests.unit.test_x::test_z"


def test_ids_are_the_same_for_the_registry_and_the_reports(repo: Path) -> None:
    reports = repo / "reports"
    reports.mkdir()
    document = suite(
        '<testcase classname="tests.unit.test_x.TestY" name="test_z[1]"/>', name="pytest"
    )
    (reports / "run-1.xml").write_text(document)
    registry = repo / "known-tests.txt"
    assert (
        main(["baseline", "--reports", str(reports), "--out", str(registry), "--root", str(repo)])
        == 0
    )
    assert registry.read_text() == "tests/unit/test_x.py::TestY::test_z[1]\n"
    assert read_single(str(reports / "run-1.xml"), TestIdRule(str(repo)), Limits()).ids == [
        "tests/unit/test_x.py::TestY::test_z[1]"
    ]


# waiver inspect


def test_inspect_names_a_missing_file_and_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.xml"
    assert main(["inspect", str(missing)]) == 2
    assert capsys.readouterr().err == f"waiver: error: {missing}: file not found\n"
    assert main(["inspect", str(tmp_path)]) == 2
    assert (
        capsys.readouterr().err
        == f"waiver: error: {tmp_path}: a folder; name the report files in it\n"
    )


def test_inspect_counts_ids_outcomes_and_retries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.xml"
    report.write_text(
        suite(PASSED, FAILED, '<testcase classname="k" name="skip"><skipped/></testcase>').replace(
            "<testsuites>", '<testsuites name="jest tests">'
        )
    )
    assert main(["inspect", str(report)]) == 0
    assert capsys.readouterr().out == (
        f"{report}: jest-junit; 2 test ids from 3 testcases: "
        "0 passed, 1 failed, 1 skipped; 1 retry\n"
    )
