"""Why rows are what they are, in words that the summary and the terminal share."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from waiver.model import BLOCKING_CLASSES, TestClass, UnknownReason
from waiver.write.report.report_types import (
    CommittedChangeJson,
    DriftJson,
    EditedTestJson,
    ReportJson,
    RowJson,
)

# What is grouped into lines: the rows of a report, or its edited tests.
Keyed = TypeVar("Keyed", RowJson, EditedTestJson)


def expected_replays(report: ReportJson) -> int:
    """The replay outcomes a test should have had: every replay run, and at least min_replays."""
    replays = report["replays"]
    return max(report["min_replays"], replays["count"] if replays is not None else 0)


def row_blocks(row: RowJson) -> bool:
    """Whether a row blocks admission: a closed class or an unknown test that no approval
    admitted, or an unstable row under a strict pattern or that the policy blocks as not
    flipping on the base (`introduced_instability: block`)."""
    if "admitted_by" in row:
        return False
    test_class = row["class"]  # as the report spells it: a class is its own name
    if test_class != TestClass.UNSTABLE_ASSERTION:
        return test_class in BLOCKING_CLASSES
    base = row.get("base")
    return row["strict"] or (base is not None and base["blocks"])


def history_words(row: RowJson) -> str | None:
    """The default branch's history of the row's test, as a reviewer would say it ("flipped
    in 7 of the last 30 runs on main, flagged"); None when the row has none."""
    history = row.get("history")
    if history is None:
        return None
    runs, flipped, failed = history["runs"], history["flipped"], history["failed"]
    if not runs:
        return "not run on main in the history's window"
    said = [
        f"{verb} in {count}" for verb, count in (("flipped", flipped), ("failed", failed)) if count
    ]
    words = " and ".join(said) or "passed each"
    text = f"{words} of the last {runs} run{'' if runs == 1 else 's'} on main"
    return text + (", flagged" if history["flagged"] else "")


def unknown_note(row: RowJson, expected: int) -> str:
    """Which question an unknown_test row asks: `new`, `vanished` or `short: k of N replays`."""
    reason = row.get("unknown")
    if reason is None:
        return ""
    if reason == UnknownReason.SHORT:
        return f"short: {row['replay_total']} of {expected} replays"
    return reason


def class_label(row: RowJson, expected: int) -> str:
    """The row's class, with the reason of an unknown_test row: `unknown_test (new)`."""
    note = unknown_note(row, expected)
    return f"{row['class']} ({note})" if note else row["class"]


def locked_name(path: str, table: str | None) -> str:
    """A locked file's path, with the table when one table of it is locked."""
    return f"{path} [{table}]" if table else path


def drift_name(drift: DriftJson | CommittedChangeJson) -> str:
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


def run_cause(report: ReportJson) -> RunCause | None:
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
            [(name, properties.get("messages", {}).get(name, "failed")) for name in failed],
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


PASS_MARK, FAIL_MARK = "✔", "✘"
MAX_MARKS = 30  # a row's outcomes shown one mark each, up to this many
CARRIED_STATE = (
    "passed the first replay and failed every one after: state carried from one replay "
    "to the next (a database, a cache, a file) may be the cause"
)


def outcome_marks(row: RowJson) -> str:
    """The row's outcomes in replay order, `✔` a pass and `✘` a fail: "✔✘✘✘✘"."""
    outcomes = row.get("outcomes", ())
    marks = "".join(PASS_MARK if outcome is True else FAIL_MARK for outcome in outcomes[:MAX_MARKS])
    return marks + ("…" if len(outcomes) > MAX_MARKS else "")


def replays_cell(row: RowJson) -> str:
    """Replays passed, then the order of the outcomes when the report gives it: "1/5 ✔✘✘✘✘"."""
    marks = outcome_marks(row)
    counts = f"{row['replay_pass']}/{row['replay_total']}"
    return f"{counts} {marks}" if marks else counts


def carried_state(row: RowJson) -> bool:
    """Whether the row passed its first replay and failed every one after it."""
    outcomes = list(row.get("outcomes", ()))
    return len(outcomes) >= 2 and outcomes[0] is True and not any(outcomes[1:])


def parametrized_function(test_id: str) -> str | None:
    """The function id of a parametrized pytest id (`m.py::test_f` of `m.py::test_f[a-1]`);
    None for an id without parameters."""
    # Sliced from the id rather than split and joined: every row of a large run asks.
    if not test_id.endswith("]"):
        return None
    name = test_id.rfind("::") + 2
    bracket = test_id.find("[", name)
    return None if name < 2 or bracket <= name else test_id[:bracket]


@dataclass(frozen=True)
class Group:
    """Rows shown as one line: one row, or the rows of one parametrized function that
    would show the same apart from their ids, replays and messages."""

    rows: Sequence[RowJson]
    function: str | None  # the parametrized function, when the group has more than one row

    @property
    def first(self) -> RowJson:
        return self.rows[0]

    @property
    def test_id(self) -> str:
        """The id the line shows: the row's, or the function's with `[…]` for its parameters."""
        return self.first["test_id"] if self.function is None else f"{self.function}[…]"

    @property
    def count_note(self) -> str:
        """ " (61 ids)" after a group's id; nothing after a single row's."""
        return "" if self.function is None else f" ({len(self.rows)} ids)"

    def replays(self) -> str:
        """The one row's replays; a group's when its rows agree, else the sum over them."""
        first = self.first
        if all(
            (row["replay_pass"], row["replay_total"], list(row.get("outcomes", ())))
            == (first["replay_pass"], first["replay_total"], list(first.get("outcomes", ())))
            for row in self.rows
        ):
            return replays_cell(first)
        passed = sum(row["replay_pass"] for row in self.rows)
        total = sum(row["replay_total"] for row in self.rows)
        return f"{passed}/{total} in all"

    def message(self) -> str | None:
        """The first failure message of the first row that has one."""
        return next((row["message"] for row in self.rows if "message" in row), None)

    def carried_state(self) -> bool:
        return all(carried_state(row) for row in self.rows)


def group_rows(rows: Sequence[RowJson], shown: Callable[[RowJson], Hashable]) -> list[Group]:
    """The rows as lines: those of one parametrized function whose `shown` is the same
    make one group, placed where its first row was; every other row is a line of its own."""
    return first_groups(rows, shown, len(rows))[0]


def first_groups(
    rows: Sequence[RowJson], shown: Callable[[RowJson], Hashable], count: int
) -> tuple[list[Group], bool]:
    """The first `count` lines of `group_rows`, and whether there are more."""
    lines, more = _first_lines(rows, shown, count)
    return [Group(members, function) for function, members in lines], more


def _first_lines(
    items: Sequence[Keyed], shown: Callable[[Keyed], Hashable], count: int
) -> tuple[list[tuple[str | None, list[Keyed]]], bool]:
    """The first `count` lines of items grouped by parametrized function and `shown`, each
    with its function when it has more than one item, and whether there are more. Past
    them, an item is only looked at when its function is one of theirs: no other item can
    join them."""
    groups: dict[tuple[str | None, Hashable], list[Keyed]] = {}
    functions: set[str] = set()
    more = False
    for number, item in enumerate(items):
        function = parametrized_function(item["test_id"])
        full = len(groups) >= count
        if full and function not in functions:
            more = True
            continue
        key = (function, shown(item)) if function is not None else (None, number)
        if full and key not in groups:
            more = True
            continue
        groups.setdefault(key, []).append(item)
        if function is not None:
            functions.add(function)
    lines = [
        (None if len(members) == 1 else function, members)
        for (function, _), members in groups.items()
    ]
    return lines, more


def review_step(row: RowJson, report: ReportJson, quote: Callable[[str], str]) -> str | None:
    """What admits an unknown_test row that blocks for review, or why nothing can; None for
    any other row. Registry edits come first: an approval admits a new test only when the
    change's registry lists it, and a vanished one only when it no longer does. The
    registry's path, the one untrusted piece, goes through `quote`."""
    if row["class"] != TestClass.UNKNOWN_TEST or "admitted_by" in row:
        return None
    reason = row.get("unknown")
    if reason == UnknownReason.SHORT:
        return "no approval admits it: it needs an outcome in every replay; run the replays again"
    approvers = (report.get("policy") or {}).get("approvers")
    who = "one of the policy's approvers" if approvers else "a writer"
    approval = f"an approval of the head commit by {who} who wrote none of it admits it"
    registry = report.get("registry")
    if registry is not None and "change_lists" in registry:
        listed = row["test_id"] in registry["change_lists"]
    else:  # the registry read is the change's own
        listed = reason == UnknownReason.VANISHED
    if reason == UnknownReason.VANISHED:
        return (
            f"remove it from {_registry_name(report, quote)} in this change, then {approval}"
            if listed
            else approval
        )
    outcomes = row.get("outcomes", ())
    if len(outcomes) < report["min_replays"] or not all(outcomes):
        return "no approval admits it until it passes every replay"
    if reason == UnknownReason.NEW and not listed:
        return f"add it to {_registry_name(report, quote)} in this change, then {approval}"
    return approval


def _registry_name(report: ReportJson, quote: Callable[[str], str]) -> str:
    """The registry file's name, through `quote`: the path is as the gate was given it,
    often the runner's full path."""
    registry = report.get("registry")
    path = registry["path"] if registry is not None else None
    return "the registry" if path is None else quote(path.rsplit("/", 1)[-1])


class EditedLine(NamedTuple):
    """Edited tests shown as one line: one test, or the ids of one parametrized function
    with the same changes, kinds of edit and diff."""

    test_id: str  # the id the line shows
    note: str  # " (61 ids)" after a group's id; nothing after a single test's
    test: EditedTestJson  # the first test of the line
    tests: int  # how many tests the line stands for


def _same_edit(test: EditedTestJson) -> Hashable:
    return tuple(test["changes"]), repr(test.get("findings", [])), tuple(test.get("diff", ()))


def first_edited(edited: Sequence[EditedTestJson], count: int) -> tuple[list[EditedLine], bool]:
    """The first `count` lines of `group_edited`, and whether there are more."""
    lines, more = _first_lines(edited, _same_edit, count)
    return [
        EditedLine(
            members[0]["test_id"] if function is None else f"{function}[…]",
            "" if function is None else f" ({len(members)} ids)",
            members[0],
            len(members),
        )
        for function, members in lines
    ], more


def group_edited(edited: Sequence[EditedTestJson]) -> list[EditedLine]:
    """The edited tests as lines: the ids of one parametrized function with the same
    changes, kinds of edit and diff on one line, placed where its first test was."""
    return first_edited(edited, len(edited))[0]


def next_step(row: RowJson, report: ReportJson, quote: Callable[[str], str]) -> str | None:
    """What a reader does next about a row: what admits a review row, or the hint that
    state carried between replays; None when there is nothing to add."""
    step = review_step(row, report, quote)
    if step is None and carried_state(row):
        step = CARRIED_STATE
    return step
