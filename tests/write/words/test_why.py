"""The gate says why: the unknown_test reason, the terminal's blocking rows, and a summary
that leads with the one cause behind every row. Real gate runs on the replayed example."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers.support import (
    EMPTY,
    EMPTY_FAILURE,
    KNOWN,
    ROUND_TRIP,
    ROUND_TRIP_FAILURE,
    case_json,
    gate_args,
    load_report,
    run_gate,
)
from waiver.cli import main

APPROVAL = "an approval of the head commit by a writer who wrote none of it admits it"
WARNING = (
    "warning: the lock, registry and freeze store were read from the working tree, which "
    "the change itself can edit; pass --trusted-ref with the base commit to read them from it\n"
)


def _duplicate_case(report: Path, name: str) -> None:
    """A second occurrence of a test case in one replay: a retry inside the replay."""
    text = report.read_text()
    case = re.search(rf'<testcase [^>]*name="{name}".*?(/>|</testcase>)', text, re.DOTALL)
    assert case is not None
    report.write_text(text.replace(case.group(0), case.group(0) * 2, 1))


def test_unknown_rows_say_new_vanished_or_short(example: Path) -> None:
    registry = example / "known-tests.txt"
    registry.write_text(registry.read_text().replace(EMPTY, EMPTY + "_renamed"))
    code, report = run_gate(example, "--min-replays", "6")
    assert code == 1
    assert {row["test_id"]: row["unknown"] for row in report["rows"]} == {
        EMPTY: "new",
        EMPTY + "_renamed": "vanished",
        KNOWN: "short",
        ROUND_TRIP: "short",
    }


def test_rows_of_other_classes_have_no_unknown_reason(example: Path) -> None:
    _, report = run_gate(example)
    assert {row["unknown"] for row in report["rows"]} == {None}


def test_the_terminal_lists_the_blocking_rows_with_their_reasons(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = example / "known-tests.txt"
    registry.write_text(registry.read_text().replace(KNOWN, KNOWN + "_renamed"))
    (example / "reports" / "run-5.xml").unlink()
    assert main([*gate_args(example), "--replays", "5", "--min-replays", "4"]) == 1
    out = example / "waiver.json"
    assert capsys.readouterr().out == (
        f"waiver: blocked; report written to {out}\n"
        "every test (4) is unknown_test: 1 replay is missing or unreadable, so every test has "
        "too few replay outcomes\n"
        "  run-5: missing\n" + WARNING
    )


def test_the_terminal_puts_closed_classes_first(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = example / "known-tests.txt"
    registry.write_text(registry.read_text().replace(KNOWN, KNOWN + "_renamed"))
    assert main(gate_args(example)) == 1
    assert capsys.readouterr().out == (
        f"waiver: blocked; report written to {example / 'waiver.json'}\n"
        "blocking tests (3):\n"
        "  class                    replays passed  test id\n"
        f"  stable_assertion_fail    0/5 ✘✘✘✘✘       {EMPTY}\n"
        f"      {EMPTY_FAILURE}\n"
        f"  unknown_test (new)       5/5 ✔✔✔✔✔       {KNOWN}\n"
        # The registry read is the change's own: a new test must be added to it first.
        f"      add it to known-tests.txt in this change, then {APPROVAL}\n"
        f"  unknown_test (vanished)  0/0             {KNOWN}_renamed\n"
        f"      remove it from known-tests.txt in this change, then {APPROVAL}\n"
        # An unstable row that does not block is not a pass either, and is named too.
        "unstable, not a pass (1):\n"
        "  replays passed  test id\n"
        f"  2/5 ✘✔✘✔✘       {ROUND_TRIP}  freeze proposed\n"
        f"      {ROUND_TRIP_FAILURE}\n" + WARNING
    )


def test_the_terminal_caps_the_blocking_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.json"
    ids = [f"tests/test_many.py::test_{number:02}" for number in range(25)]
    cases.write_text("[" + ",".join(json.dumps(case_json(i, [False] * 5)) for i in ids) + "]")
    out = tmp_path / "waiver.json"
    assert main(["classify", "--cases", str(cases), "--out", str(out)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == [
        f"waiver: blocked; report written to {out}",
        "blocking tests (25):",
        "  class                  replays passed  test id",
        f"  stable_assertion_fail  0/5 ✘✘✘✘✘       {ids[0]}",
    ]
    assert lines[22:] == [
        f"  stable_assertion_fail  0/5 ✘✘✘✘✘       {ids[19]}",
        "  … and 5 more blocking tests in waiver.json",
    ]


def test_a_clean_terminal_says_only_the_verdict_and_the_warning(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = example / "known-tests.txt"
    registry.write_text(f"{KNOWN}\n")
    for report in (example / "reports").iterdir():
        text = report.read_text()
        for test_id in (EMPTY, ROUND_TRIP):
            name = test_id.split("::")[1]
            text = re.sub(
                rf'<testcase [^>]*name="{name}".*?(/>|</testcase>)', "", text, flags=re.DOTALL
            )
        report.write_text(text)
    assert main(gate_args(example)) == 0
    assert capsys.readouterr().out == (
        f"waiver: clean; report written to {example / 'waiver.json'}\n" + WARNING
    )


def test_a_review_terminal_names_the_tests_behind_the_verdict(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = example / "known-tests.txt"
    registry.write_text(f"{KNOWN}\n{ROUND_TRIP}\n")
    name = EMPTY.split("::")[1]
    for report in (example / "reports").iterdir():
        text = report.read_text()
        text = re.sub(
            rf'<testcase [^>]*name="{name}".*?(/>|</testcase>)', "", text, flags=re.DOTALL
        )
        report.write_text(text)
    assert main(gate_args(example)) == 0
    assert capsys.readouterr().out == (
        f"waiver: review; report written to {example / 'waiver.json'}\n"
        "not a pass (1):\n"
        "  class               replays passed  test id\n"
        f"  unstable_assertion  2/5 ✘✔✘✔✘       {ROUND_TRIP}  freeze proposed\n"
        f"      {ROUND_TRIP_FAILURE}\n" + WARNING
    )


def test_a_property_violation_leads_the_summary_and_collapses_the_rows(example: Path) -> None:
    properties = example / "properties.xml"
    text = properties.read_text()
    properties.write_text(
        text.replace("</testsuite>", '<testcase classname="tests.properties.test_p" '
                     'name="test_never"><failure message="no"/></testcase></testsuite>', 1)
    )  # fmt: skip
    summary = example / "summary.md"
    assert run_gate(example, "--summary", str(summary))[0] == 1
    lines = summary.read_text().splitlines()
    assert lines[2:12] == [
        "Blocked by 3 `property_violation`.",
        "",
        "**Every test (3) is `property_violation`: 1 property case failed, so no test result "
        "can be trusted.**",
        "",
        "### Failed properties",
        "",
        "| property | first failure |",
        "|---|---|",
        "| `tests.properties.test_p::test_never` | `no` |",
        "",
    ]
    assert "### Not a pass" not in summary.read_text()
    assert lines.count("### Failed properties") == 1
    assert "<details><summary>3 `property_violation`</summary>" in lines


def test_the_retries_column_shows_only_when_a_row_has_retries(example: Path) -> None:
    summary = example / "summary.md"
    run_gate(example, "--summary", str(summary))
    assert "in-replay retries" not in summary.read_text()
    _duplicate_case(example / "reports" / "run-1.xml", "test_round_trip")
    _, report = run_gate(example, "--summary", str(summary))
    assert [row["retries"] for row in report["rows"] if row["test_id"] == ROUND_TRIP] == [1]
    assert (
        "| class | test id | replays passed, in order | in-replay retries | freeze | first failure |"
        in summary.read_text().splitlines()
    )


def test_the_counts_table_lists_only_classes_present(example: Path) -> None:
    summary = example / "summary.md"
    run_gate(example, "--summary", str(summary))
    admissions = ("| reject", "| eligible", "| freeze proposal", "| human")
    lines = summary.read_text().splitlines()
    table = [line for line in lines if any(effect in line for effect in admissions)]
    assert table == [
        "| `stable_pass` | 1 | eligible for diff review |",
        "| `unstable_assertion` | 1 | freeze proposal only; not a pass |",
        "| `stable_assertion_fail` | 1 | reject (blocks) |",
    ]
    load_report(example / "waiver.json")
