"""What the summary's sections share: the order rows are listed in, the facts worked out
once from the report, and the paragraph a short note is."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from waiver.model import TestClass
from waiver.write.report.report import split_rows
from waiver.write.report.report_types import ReportJson, RowJson
from waiver.write.summary.budget import Budget
from waiver.write.summary.summary_tables import base_blocks, is_unstable
from waiver.write.words.why import RunCause, run_cause

ORDER = [
    TestClass.PROPERTY_VIOLATION,
    TestClass.FIXTURE_DRIFT,
    TestClass.STABLE_ASSERTION_FAIL,
    TestClass.UNKNOWN_TEST,
    TestClass.UNSTABLE_ASSERTION,
]
# Where a class's rows stand in the summary, the terminal and the annotations: closed first.
RANK: dict[str, int] = {test_class: number for number, test_class in enumerate(ORDER)}


def listed_order(row: RowJson) -> tuple[int, str]:
    """A row's place in the summary, the terminal and the annotations: by RANK, then by id.
    The class is looked up as the report spells it (a class is its own name)."""
    return RANK[row["class"]], row["test_id"]


@dataclass(frozen=True)
class Facts:
    """What more than one section needs, worked out once from the report."""

    report: ReportJson
    passes: Sequence[str]  # the ids of the stable passes, in the report's order
    rows: Sequence[RowJson]  # every other row, closed classes first, then by id
    strict: Sequence[RowJson]  # the unstable rows under a strict pattern, in the report's order
    # The unstable rows the policy blocks as not flipping on the base. A strict row blocks
    # whatever its base says, so it is counted once, as strict.
    introduced: Sequence[RowJson]
    cause: RunCause | None  # the run-level cause behind every row, if there is one

    @classmethod
    def of(cls, report: ReportJson) -> Facts:
        passes, rows = split_rows(report["rows"])
        return cls(
            report=report,
            passes=passes,
            rows=sorted(rows, key=listed_order),
            strict=[row for row in rows if row["strict"] and is_unstable(row)],
            introduced=[
                row for row in rows if base_blocks(row) and not row["strict"] and is_unstable(row)
            ],
            cause=run_cause(report),
        )


Section = Callable[[Budget, Facts], int]


def paragraph(out: Budget, *lines: str) -> int:
    """A paragraph after a blank line; for the notes that are a line or two of prose."""
    out.add("")
    for line in lines:
        out.add(line)
    return 0
