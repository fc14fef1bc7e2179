"""Why rows are what they are, in words that the summary and the terminal share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from waiver.model import BLOCKING_CLASSES, TestClass, UnknownReason
from waiver.write.report_types import CommittedChange, Drift, Report, Row


def expected_replays(report: Report) -> int:
    """The replay outcomes a test should have had: every replay run, and at least min_replays."""
    replays = report["replays"]
    return max(report["min_replays"], replays["count"] if replays is not None else 0)


def row_blocks(row: Row) -> bool:
    """Whether a row blocks admission: a closed class or an unknown test that no approval
    admitted, or an unstable row under a strict pattern."""
    if "admitted_by" in row:
        return False
    test_class = TestClass(row["class"])
    return test_class in BLOCKING_CLASSES or (
        test_class is TestClass.UNSTABLE_ASSERTION and row["strict"]
    )


def unknown_note(row: Row, expected: int) -> str:
    """Which question an unknown_test row asks: `new`, `vanished` or `short: k of N replays`."""
    reason = row.get("unknown")
    if reason is None:
        return ""
    if reason == UnknownReason.SHORT:
        return f"short: {row['replay_total']} of {expected} replays"
    return reason


def class_label(row: Row, expected: int) -> str:
    """The row's class, with the reason of an unknown_test row: `unknown_test (new)`."""
    note = unknown_note(row, expected)
    return f"{row['class']} ({note})" if note else row["class"]


def locked_name(path: str, table: str | None) -> str:
    """A locked file's path, with the table when one table of it is locked."""
    return f"{path} [{table}]" if table else path


def drift_name(drift: Drift | CommittedChange) -> str:
    """A drifted or committed file of the report, named as `locked_name` names it."""
    return locked_name(drift["path"], drift.get("table"))


@dataclass(frozen=True)
class RunCause:
    """One cause of the whole run that made every row the same class."""

    test_class: TestClass
    headline: str  # plain words, no untrusted text
    details: Sequence[tuple[str, str]]  # (untrusted name, what happened to it)


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def run_cause(report: Report) -> RunCause | None:
    """The run-level cause (failed properties, drifted fixtures, lost replays) behind every
    row, when every row has the class that cause gives; None when rows differ."""
    counts = report["counts"]
    total = sum(counts.values())
    if total == 0:
        return None
    properties, fixtures, replays = report["properties"], report["fixtures"], report["replays"]
    if counts[TestClass.PROPERTY_VIOLATION] == total and properties and properties["failed"]:
        failed = properties["failed"]
        return RunCause(
            TestClass.PROPERTY_VIOLATION,
            f"{_plural(len(failed), 'property case', 'property cases')} failed, so no test "
            "result can be trusted",
            [(name, "failed") for name in failed],
        )
    if counts[TestClass.FIXTURE_DRIFT] == total and fixtures and fixtures["drift"]:
        drift = fixtures["drift"]
        harness = sum(item["part"] == "harness" for item in drift)
        what = (
            _plural(len(drift), "fixture differs", "fixtures differ") + " from the lock"
            if not harness
            else _plural(len(drift), "locked file differs", "locked files differ")
            + f" from the lock, {harness} of the test harness"
        )
        return RunCause(
            TestClass.FIXTURE_DRIFT,
            what,
            [(drift_name(item), item["kind"]) for item in drift],
        )
    if counts[TestClass.UNKNOWN_TEST] == total and replays and replays["errors"]:
        errors = replays["errors"]
        return RunCause(
            TestClass.UNKNOWN_TEST,
            f"{_plural(len(errors), 'replay is', 'replays are')} missing or unreadable, so "
            "every test has too few replay outcomes",
            [(error["source"], error["problem"]) for error in errors],
        )
    return None
