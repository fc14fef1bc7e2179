"""The pull request's one waiver comment, rendered from a report it treats as hostile data.

The report came from the pull request's own run, so nothing in it is believed beyond its
schema: a verdict that its rows contradict (`clean` beside a blocking row) is shown as
blocked, every string goes through `md_code` (a code span: no live @-mention, no HTML,
no Markdown that breaks the layout), and the whole stays under GitHub's 65,536 characters,
saying how many rows it left out. The comment leads with the verdict and what blocks,
then what awaits review and who may approve it, with the diff of each edited test's
definition, then the freeze proposals with the exact command that accepts each, then the
active freezes and who owns them.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

from waiver.write.report.report import split_rows
from waiver.write.report.report_types import ReportJson, RowJson
from waiver.write.summary.budget import Budget, Rendered, table
from waiver.write.summary.summary_tables import base_cell
from waiver.write.words.bill import bill_line
from waiver.write.words.definition_diff import diff_blocks
from waiver.write.words.escape import md_code
from waiver.write.words.review_evidence import edited_by_id, review_why
from waiver.write.words.why import (
    class_label,
    expected_replays,
    group_edited,
    group_rows,
    history_words,
    next_step,
    row_blocks,
)

MARKER = "<!-- waiver: the gate's comment, edited in place on every run -->"
LIMIT = 60_000  # bytes, under GitHub's 65,536 characters with room for the closing line
HEADLINES = {
    "blocked": "## ⛔ waiver: blocked",
    "review": "## ⚠️ waiver: review — not blocked, but some tests are not a pass",
    "clean": "## ✅ waiver: clean — every test passed every replay",
}


def shown_verdict(report: ReportJson, rows: Sequence[RowJson]) -> tuple[str, str | None]:
    """The verdict to show, and a note when the report's own verdict is not believed."""
    blocked = report["error"] is not None or bool(report["run_blockers"])
    blocked = blocked or any(row_blocks(row) for row in rows)
    if blocked and report["verdict"] != "blocked":
        return "blocked", (
            f"The report says {md_code(report['verdict'])}, but it holds what blocks: "
            "it is shown as blocked."
        )
    return report["verdict"], None


def _accept_command(row: RowJson) -> str:
    return shlex.join(
        ["waiver", "freeze", "accept", "--report", "waiver.json", "--store", "freezes.json",
         "--owner", "LOGIN", "--reason", "TEXT", "--tracking", "URL", row["test_id"]]
    )  # fmt: skip


def _message(message: str | None) -> str:
    return "—" if message is None else md_code(message)


def _sections(out: Budget, report: ReportJson, rows: Sequence[RowJson]) -> int:
    properties = report["properties"]
    failed = [] if properties is None else properties["failed"]
    messages = {} if properties is None else properties.get("messages", {})
    left_out = table(
        out,
        f"Failed properties ({len(failed)}): no test result can be trusted",
        ["property", "first failure"],
        [[md_code(name), _message(messages.get(name))] for name in failed],
    )
    on_main = {id(row): history_words(row) or "—" for row in rows}
    left_out += _blocking(out, report, rows, on_main)
    left_out += _awaiting_review(out, report, rows)
    return left_out + _freezes(out, report, rows, on_main)


def _blocking(
    out: Budget, report: ReportJson, rows: Sequence[RowJson], on_main: Mapping[int, str]
) -> int:
    expected = expected_replays(report)
    blocking = [row for row in rows if row_blocks(row) and row["class"] != "unknown_test"]
    label = {id(row): class_label(row, expected) for row in blocking}
    steps = {id(row): next_step(row, report, md_code) or "" for row in blocking}
    on_base = {id(row): base_cell(row) for row in blocking}
    groups = group_rows(
        blocking, lambda row: (label[id(row)], steps[id(row)], on_main[id(row)], on_base[id(row)])
    )
    with_steps = any(steps.values())
    with_history = any("history" in row for row in rows)
    # The base's evidence, where a row has it: an instability the change brought blocks.
    with_base = any("base" in row for row in blocking)
    return table(
        out,
        f"What blocks ({len(blocking)})",
        ["class", "test id", "replays passed, in order", "first failure",
         *(["on main"] if with_history else []), *(["base"] if with_base else []),
         *(["what next"] if with_steps else [])],
        Rendered(
            groups,
            lambda group: [
                f"`{label[id(group.first)]}`", md_code(group.test_id) + group.count_note,
                md_code(group.replays()), _message(group.message()),
                *([on_main[id(group.first)]] if with_history else []),
                *([on_base[id(group.first)]] if with_base else []),
                *([steps[id(group.first)] or "—"] if with_steps else []),
            ],
            lambda group: len(group.rows),
        ),
    )  # fmt: skip


def _awaiting_review(out: Budget, report: ReportJson, rows: Sequence[RowJson]) -> int:
    review = [row for row in rows if row["class"] == "unknown_test" and "admitted_by" not in row]
    edited = edited_by_id(report["registry"])
    if review:
        approvers = report["policy"].get("approvers")
        who = (
            "one of " + ", ".join(md_code(login) for login in approvers)
            if approvers
            else "a user with write permission who wrote none of this pull request"
        )
        out.add("")
        out.add(f"**Awaits review:** an approval of the head commit by {who} admits these.")
    review_steps = {id(row): next_step(row, report, md_code) or "—" for row in review}
    left_out = table(
        out,
        f"Awaits review ({len(review)})",
        ["test id", "why", "replays passed, in order", "what admits it"],
        Rendered(
            group_rows(review, lambda row: (review_why(row, edited), review_steps[id(row)])),
            lambda group: [
                md_code(group.test_id) + group.count_note,
                md_code(review_why(group.first, edited)),
                md_code(group.replays()),
                review_steps[id(group.first)],
            ],
            lambda group: len(group.rows),
        ),
    )
    awaiting = {row["test_id"] for row in review}
    return left_out + diff_blocks(
        out, group_edited([test for test in edited.values() if test["test_id"] in awaiting])
    )


def _freezes(
    out: Budget, report: ReportJson, rows: Sequence[RowJson], on_main: Mapping[int, str]
) -> int:
    proposals = [(row, row["freeze"]) for row in rows if row["freeze"] is not None]
    active = report["freezes"]["active"]
    with_history = any("history" in row for row in rows)
    left_out = table(
        out,
        f"Freeze proposals ({len(proposals)}): not a pass; accepting one needs a reviewed commit",
        ["test id", "expires", *(["on main"] if with_history else []), "accept with"],
        [
            [md_code(row["test_id"]), md_code(proposal["expires_at"]),
             *([on_main[id(row)]] if with_history else []),
             md_code(_accept_command(row), limit=600)]
            for row, proposal in proposals
        ],
    )  # fmt: skip
    return left_out + table(
        out,
        f"Active freezes ({len(active)})",
        ["test id", "until", "owner", "reason", "tracking"],
        [
            [md_code(str(record["record"].get(key, "—"))) for key in
             ("test_id", "expires_at", "owner", "reason", "tracking")]
            for record in active
        ],
    )  # fmt: skip


def render_comment(report: ReportJson, run_url: str | None) -> str:
    """The comment's Markdown, marker first, never over GitHub's limit."""
    _, rows = split_rows(report["rows"])
    verdict, note = shown_verdict(report, rows)
    out = Budget(LIMIT)
    out.force(MARKER)
    out.add(HEADLINES[verdict])
    if run_url is not None:
        out.add("")
        out.add(f"[The run, its summary and waiver.json]({run_url})")
    if note is not None:
        out.add("")
        out.add(note)
    if report["error"] is not None:
        out.add("")
        out.add(f"**Input error** in {md_code(report['error']['source'])}: nothing was classified.")
    for reason in report["run_blockers"]:
        out.add("")
        out.add(f"**Blocked:** {md_code(reason, limit=600)}")
    cost = report.get("cost")
    if cost is not None:
        out.add("")
        out.add(bill_line(cost))
    left_out = _sections(out, report, rows)
    if left_out:
        out.force("")
        out.force(
            f"_{left_out} rows left out to stay under GitHub's limit; all are in waiver.json._"
        )
    return "\n".join(out.lines) + "\n"
