"""What `waiver gate` prints off GitHub after the verdict: why it is blocked, in plain text.

What blocks the run apart from its rows; the cause of the whole run when there is one,
else the blocking rows, closed classes first, under labelled columns (class, replays
passed with each replay's outcome in order, test id), the rows of one parametrized
function that show the same on one line with their count, capped with a count of the
rest; below each line its first failure message, the default branch's history of the test
when the gate was given one, and what to do next. Then whether the
replays were skipped and why, and the warning that the protected files came from the
working tree.
Untrusted text is spelled out, one line each, so that it can start no log command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from waiver.model import BASE_WORDS, BaseMeaning, TestClass
from waiver.write.report.report import split_rows
from waiver.write.report.report_types import ReportJson, RowJson, report_of
from waiver.write.summary.summary_facts import listed_order
from waiver.write.words.definition_diff import terminal_diff
from waiver.write.words.escape import MAX_CELL, log_line
from waiver.write.words.review_evidence import (
    base_version_rows,
    base_version_words,
    edit_kinds,
    red_green_rows,
    row_red_green_words,
)
from waiver.write.words.why import (
    class_label,
    expected_replays,
    first_edited,
    first_groups,
    history_words,
    next_step,
    row_blocks,
    run_cause,
)

MAX_LINES = 20
WORKING_TREE = (
    "warning: the lock, registry and freeze store were read from the working tree, which "
    "the change itself can edit; pass --trusted-ref with the base commit to read them from it"
)


def _inert(text: str) -> str:
    """Untrusted text on one line that no CI log reads as a command (`##[error]`, `##vso[`)."""
    return log_line(text, MAX_CELL)


def _capped(lines: Sequence[str], what: str) -> list[str]:
    """At most MAX_LINES lines, and how many were left out."""
    if len(lines) <= MAX_LINES:
        return list(lines)
    return [*lines[:MAX_LINES], f"  … and {len(lines) - MAX_LINES} more {what} in waiver.json"]


def _standing(row: RowJson) -> str:
    """What stands for a row that is not a pass: an approval, a freeze, a proposal."""
    admitted = row.get("admitted_by")
    if admitted is not None:
        return f"  admitted by {_inert(admitted['login'])}"
    if row["active_freeze"] is not None:
        return "  frozen"
    return "  freeze proposed" if row["freeze"] is not None else ""


def _rows(
    report: ReportJson,
    rows: Sequence[RowJson],
    title: str,
    what: str,
    label: Callable[[RowJson], str] | None,
) -> list[str]:
    """A titled table of rows under labelled columns: the class (when `label` gives it),
    the replays passed with their outcomes in order, the test id and what stands for the
    row. The rows of one parametrized function that show the same are one line with their
    count. Below a line: its first failure message, its history on main, then what to do
    next."""
    if not rows:
        return []

    def shown(row: RowJson) -> tuple[str, str, str, str]:
        return (
            "" if label is None else label(row),
            _standing(row),
            next_step(row, report, _inert) or "",
            history_words(row) or "",
        )

    groups, more = first_groups(rows, shown, MAX_LINES)
    cells = [
        [
            *([] if label is None else [label(group.first)]),
            group.replays(),
            f"{_inert(group.test_id)}{group.count_note}{_standing(group.first)}",
        ]
        for group in groups
    ]
    header = [*([] if label is None else ["class"]), "replays passed", "test id"]
    widths = [
        max(len(cell[column]) for cell in [header, *cells]) for column in range(len(header) - 1)
    ]

    def line(cell: Sequence[str]) -> str:
        return "  " + "  ".join(
            [*(text.ljust(width) for text, width in zip(cell, widths, strict=False)), cell[-1]]
        )

    lines = [f"{title} ({len(rows)}):", line(header)]
    for group, cell in zip(groups, cells, strict=False):
        lines.append(line(cell))
        message = group.message()
        if message is not None:
            lines.append(f"      {_inert(message)}")
        history = history_words(group.first)
        if history is not None:
            lines.append(f"      {history}")
        step = next_step(group.first, report, _inert)
        if step is not None:
            lines.append(f"      {step}")
    if more:
        hidden = len(rows) - sum(len(group.rows) for group in groups)
        lines.append(f"  … and {hidden} more {what} in waiver.json")
    return lines


def _why_blocked(report: ReportJson) -> list[str]:
    cause = run_cause(report)
    if cause is not None:
        rows = sum(report["counts"].values())
        return [
            f"every test ({rows}) is {cause.test_class.value}: {cause.headline}",
            *_capped(
                [f"  {_inert(name)}: {_inert(what)}" for name, what in cause.details],
                "of them",
            ),
        ]
    blocking = [row for row in split_rows(report["rows"])[1] if row_blocks(row)]
    blocking.sort(key=listed_order)
    expected = expected_replays(report)

    def label(row: RowJson) -> str:
        why = ""
        if row["class"] == TestClass.UNSTABLE_ASSERTION:
            base = row.get("base")
            words = BASE_WORDS[BaseMeaning(base["meaning"])] if base is not None else ""
            why = " (strict)" if row["strict"] else f" ({words or 'not flipping on the base'})"
        return f"{class_label(row, expected)}{why}"

    # Only what blocks the run apart from its rows, when no row blocks.
    return _rows(report, blocking, "blocking tests", "blocking tests", label)


def _not_a_pass(report: ReportJson) -> list[str]:
    """The rows behind a `review` verdict: each test that is not a pass, and why."""
    rows = split_rows(report["rows"])[1]
    rows.sort(key=listed_order)
    expected = expected_replays(report)
    return _rows(report, rows, "not a pass", "tests", lambda row: class_label(row, expected))


def _unstable_beside(report: ReportJson) -> list[str]:
    """The unstable rows of a blocked run that do not block themselves: not a pass either."""
    if run_cause(report) is not None:
        return []
    rows = [
        row
        for row in split_rows(report["rows"])[1]
        if row["class"] == TestClass.UNSTABLE_ASSERTION and not row_blocks(row)
    ]
    rows.sort(key=lambda row: row["test_id"])
    return _rows(report, rows, "unstable, not a pass", "tests", None)


def _skipped_replays(report: ReportJson) -> list[str]:
    replays = report["replays"]
    if replays is None or not replays.get("skipped"):
        return []
    return [f"the replays were skipped: {replays['reason']}"]


def _review(report: ReportJson) -> list[str]:
    """The tests the change edited, and what the approvals came to."""
    registry = report["registry"]
    edited = [] if registry is None else registry.get("edited", [])
    lines = []
    if edited:
        lines.append(f"tests this change edits ({len(edited)}), no evidence about it:")
        groups, more = first_edited(edited, MAX_LINES)
        for group in groups:
            lines.append(
                f"  {_inert(group.test_id)}{group.note}: {_inert('; '.join(group.test['changes']))}"
                f" ({_inert('; '.join(edit_kinds(group.test)))})"
            )
            lines += terminal_diff(group.test)
        if more:
            hidden = len(edited) - sum(group.tests for group in groups)
            lines.append(f"  … and {hidden} more edited tests in waiver.json")
    others = split_rows(report["rows"])[1]
    versions = base_version_rows(others)
    if versions:
        lines.append(
            f"base versions ({len(versions)}): what each edited or deleted test, as the base "
            "holds it, does on the change's code"
        )
        lines += _capped(
            [
                f"  {_inert(row['test_id'])}: {_inert(base_version_words(row, version))}"
                for row, version in versions
            ],
            "edited or deleted tests",
        )
    evidence = red_green_rows(others)
    if evidence:
        lines.append(f"red-green evidence ({len(evidence)}): does each fail without the change?")
        lines += _capped(
            [f"  {_inert(row['test_id'])}: {_inert(row_red_green_words(row))}" for row in evidence],
            "new or edited tests",
        )
    approvals = report.get("approvals")
    if approvals is None:
        return lines
    if approvals["problem"] is not None:
        lines.append(f"approvals: {_inert(approvals['problem'])}")
    elif approvals["counted"]:
        first = approvals["counted"][0]
        lines.append(
            f"approvals: admitted by {_inert(first['login'])} (review {first['review_id']})"
            f" of {_inert(first['commit'])}"
        )
        fixtures = report["fixtures"]
        reach = [] if fixtures is None else fixtures.get("runner_reach", [])
        if fixtures is not None and fixtures.get("runner_reach_admitted_by") and reach:
            lines.append(
                f"  and {len(reach)} line(s) of source that reach into the test runner, "
                f"first {_inert(reach[0]['path'])} line {reach[0]['line']}"
            )
    lines += _capped(
        [
            f"  not counted: {_inert(r['login'])}: {_inert(r['reason'])}"
            for r in approvals["refused"]
        ],
        "reviews",
    )
    return lines


def render_terminal(document: Mapping[str, object]) -> str:
    """The lines after the verdict: why it is blocked, or which tests a `review` verdict
    stands for; nothing more for a clean run that was trusted."""
    report = report_of(document)
    lines = []
    if report["blocked"] and report["error"] is None:
        lines = [f"blocked: {reason}" for reason in report["run_blockers"]]
        lines.extend(_why_blocked(report))
        lines.extend(_unstable_beside(report))
        lines.extend(_skipped_replays(report))
    elif report["verdict"] == "review":
        lines.extend(_not_a_pass(report))
    if report["error"] is None:
        lines.extend(_review(report))
    fixtures = report["fixtures"]
    if fixtures is not None and fixtures["lock_source"] == "working tree":
        lines.append(WORKING_TREE)
    return "".join(line + "\n" for line in lines)
