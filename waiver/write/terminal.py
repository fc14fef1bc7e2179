"""What `waiver gate` prints off GitHub after the verdict: why it is blocked, in plain text.

What blocks the run apart from its rows; the cause of the whole run when there is one,
else the blocking rows, closed classes first, capped with a count of the rest, each with
its first failure message indented on the line below it; whether the replays were
skipped and why; then the warning that the protected files came from the working tree.
Untrusted text is spelled out, one line each, so that it can start no log command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar, overload

from waiver.model import TestClass
from waiver.write.escape import MAX_CELL, log_line
from waiver.write.report import split_rows
from waiver.write.report_types import Report, Row, report_of
from waiver.write.review_evidence import edit_kinds, red_green_rows, red_green_words
from waiver.write.summary import RANK
from waiver.write.why import class_label, expected_replays, row_blocks, run_cause

MAX_LINES = 20
T = TypeVar("T")
WORKING_TREE = (
    "warning: the lock, registry and freeze store were read from the working tree, which "
    "the change itself can edit; pass --trusted-ref with the base commit to read them from it"
)


def _inert(text: str) -> str:
    """Untrusted text on one line that no CI log reads as a command (`##[error]`, `##vso[`)."""
    return log_line(text, MAX_CELL)


def _capped(lines: Sequence[str], what: str) -> list[str]:
    """At most MAX_LINES lines, and how many were left out. `lines` may be lazy (a `Lines`):
    only the lines shown are made, so a run of 100,000 rows prints as fast as one of 20."""
    if len(lines) <= MAX_LINES:
        return list(lines)
    return [*lines[:MAX_LINES], f"  … and {len(lines) - MAX_LINES} more {what} in waiver.json"]


class Lines(Sequence[str]):
    """The lines `line` makes of `items`, made only when asked for."""

    def __init__(self, items: Sequence[T], line: Callable[[T], str]) -> None:
        self.items, self.line = items, line

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self.line(item) for item in self.items[index]]
        return self.line(self.items[index])


def _failure(row: Row) -> str:
    """The row's first failure message on a line of its own below the row, if it has one."""
    message = row.get("message")
    return "" if message is None else f"\n      {_inert(message)}"


def _why_blocked(report: Report) -> list[str]:
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
    blocking.sort(key=lambda row: (RANK[TestClass(row["class"])], row["test_id"]))
    if not blocking:  # only what blocks the run apart from its rows
        return []
    expected = expected_replays(report)

    def line(row: Row) -> str:
        strict = " (strict)" if row["class"] == TestClass.UNSTABLE_ASSERTION else ""
        return (
            f"  {class_label(row, expected)}{strict}  "
            f"{row['replay_pass']}/{row['replay_total']}  {_inert(row['test_id'])}"
            f"{_failure(row)}"
        )

    return [f"blocking tests ({len(blocking)}):", *_capped(Lines(blocking, line), "blocking tests")]


def _standing(row: Row) -> str:
    """What stands for a row that is not a pass: an approval, a freeze, a proposal."""
    admitted = row.get("admitted_by")
    if admitted is not None:
        return f"  admitted by {_inert(admitted['login'])}"
    if row["active_freeze"] is not None:
        return "  frozen"
    return "  freeze proposed" if row["freeze"] is not None else ""


def _not_a_pass(report: Report) -> list[str]:
    """The rows behind a `review` verdict: each test that is not a pass, and why."""
    rows = split_rows(report["rows"])[1]
    rows.sort(key=lambda row: (RANK[TestClass(row["class"])], row["test_id"]))
    expected = expected_replays(report)

    def line(row: Row) -> str:
        return (
            f"  {class_label(row, expected)}  {row['replay_pass']}/{row['replay_total']}  "
            f"{_inert(row['test_id'])}{_standing(row)}{_failure(row)}"
        )

    return [f"not a pass ({len(rows)}):", *_capped(Lines(rows, line), "tests")] if rows else []


def _unstable_beside(report: Report) -> list[str]:
    """The unstable rows of a blocked run that do not block themselves: not a pass either."""
    if run_cause(report) is not None:
        return []
    rows = [
        row
        for row in split_rows(report["rows"])[1]
        if row["class"] == TestClass.UNSTABLE_ASSERTION and not row_blocks(row)
    ]
    rows.sort(key=lambda row: row["test_id"])

    def line(row: Row) -> str:
        return (
            f"  {row['replay_pass']}/{row['replay_total']}  {_inert(row['test_id'])}"
            f"{_standing(row)}{_failure(row)}"
        )

    return (
        [f"unstable, not a pass ({len(rows)}):", *_capped(Lines(rows, line), "tests")]
        if rows
        else []
    )


def _skipped_replays(report: Report) -> list[str]:
    replays = report["replays"]
    if replays is None or not replays.get("skipped"):
        return []
    return [f"the replays were skipped: {replays['reason']}"]


def _review(report: Report) -> list[str]:
    """The tests the change edited, and what the approvals came to."""
    registry = report["registry"]
    edited = [] if registry is None else registry.get("edited", [])
    lines = []
    if edited:
        lines.append(f"tests this change edits ({len(edited)}), no evidence about it:")
        lines += _capped(
            Lines(
                edited,
                lambda e: (
                    f"  {_inert(e['test_id'])}: {_inert('; '.join(e['changes']))}"
                    f" ({_inert('; '.join(edit_kinds(e)))})"
                ),
            ),
            "edited tests",
        )
    evidence = red_green_rows(split_rows(report["rows"])[1])
    if evidence:
        lines.append(f"red-green evidence ({len(evidence)}): does each fail without the change?")
        lines += _capped(
            Lines(evidence, lambda e: f"  {_inert(e[0])}: {_inert(red_green_words(e[1]))}"),
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
