"""The tables of the job summary, and the cells of its rows that are not a pass.

Each table returns how many of its rows the size limit left out. Untrusted text (ids,
paths, problems) goes through `md_code` in every cell.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from waiver.model import BASE_WORDS, CLOSED_CLASSES, BaseMeaning, TestClass
from waiver.write.report.report_types import (
    ApprovalsJson,
    FixturesJson,
    RegistryJson,
    ReplaysJson,
    ReportJson,
    RowBaseJson,
    RowJson,
    VoidRecordJson,
)
from waiver.write.summary.budget import Budget, Rendered, starts, table
from waiver.write.words.definition_diff import diff_blocks
from waiver.write.words.escape import md_code
from waiver.write.words.review_evidence import edit_kinds
from waiver.write.words.why import (
    EditedLine,
    Group,
    drift_name,
    expected_replays,
    first_groups,
    group_edited,
    group_rows,
    history_words,
    next_step,
    unknown_note,
)


def is_unstable(row: RowJson) -> bool:
    return TestClass(row["class"]) is TestClass.UNSTABLE_ASSERTION


def base_blocks(row: RowJson) -> bool:
    base = row.get("base")
    return base is not None and base["blocks"]


def _base_words(base: RowBaseJson) -> str:
    return BASE_WORDS[BaseMeaning(base["meaning"])]


def base_cell(row: RowJson) -> str:
    """The row's base replays and what the pair means: "5/5, introduced by this change"."""
    base = row.get("base")
    if base is None:
        return "—"
    if BaseMeaning(base["meaning"]) is BaseMeaning.NOT_ON_BASE:
        return "not on base"
    words = _base_words(base)
    counts = f"{base['replay_pass']}/{base['replay_total']}"
    return f"{counts}, {words}" if words else counts


def base_blocked_line(row: RowJson) -> str:
    """Why the policy blocks this unstable row, in the words a reviewer would use."""
    base = row["base"]
    counts = (
        f"base {base['replay_pass']}/{base['replay_total']}, "
        f"change {row['replay_pass']}/{row['replay_total']}"
    )
    if BaseMeaning(base["meaning"]) is BaseMeaning.INTRODUCED:
        return f"- this change made {md_code(row['test_id'])} flip: {counts}"
    why = _base_words(base) or "the base does not show it flipping"
    return f"- {md_code(row['test_id'])} flips, {why}: {counts}"


def _freeze_cell(row: RowJson) -> str:
    active, proposal = row["active_freeze"], row["freeze"]
    if active is not None:
        record = active["record"]
        named = [
            f"{name} {md_code(str(record[name]))}"
            for name in ("owner", "reason", "tracking")
            if record.get(name)
        ]
        return f"active until {md_code(str(record.get('expires_at')))}" + "".join(
            f"; {part}" for part in named
        )
    if proposal is not None:
        return f"proposed, expires {proposal['expires_at']}"
    if row["strict"] and is_unstable(row):
        return "none: matches a strict pattern (blocks)"
    if base_blocks(row):
        return f"none: {_base_words(row['base']) or 'not flipping on the base'} (blocks)"
    return "—"


def _class_cell(row: RowJson, expected: int) -> str:
    """`unknown_test` (new), ⛔ after a closed class, and who admitted an admitted row."""
    admitted = row.get("admitted_by")
    if admitted is not None:
        note = f" — admitted by {md_code(admitted['login'])}"
    else:
        note = " ⛔" if TestClass(row["class"]) in CLOSED_CLASSES else ""
    return (
        f"`{row['class']}`"
        + (f" ({unknown_note(row, expected)})" if row.get("unknown") else "")
        + note
    )


def _message_cell(message: str | None) -> str:
    return "—" if message is None else md_code(message)


def _id_cell(group: Group) -> str:
    return md_code(group.test_id) + group.count_note


def rows_table(out: Budget, rows: Sequence[RowJson], report: ReportJson) -> int:
    """The rows that are not a pass, those of one parametrized function that show the same
    on one line; the retries column only when some row has retries, the base column only
    when base replays were given, the first failure's message only when some row has one
    (it is at most MAX_MESSAGE_CHARS long: the reader cut it), what next only when some
    row needs a step, the default branch's history only when some row has one."""
    if not rows:
        return 0
    expected = expected_replays(report)
    with_base = report.get("base") is not None
    retries = any(row["retries"] for row in rows)
    messages = any("message" in row for row in rows)
    steps: dict[int, str | None] = {}

    def step(row: RowJson) -> str | None:
        if id(row) not in steps:
            steps[id(row)] = next_step(row, report, md_code)
        return steps[id(row)]

    with_steps = any(step(row) is not None for row in rows)
    with_history = any("history" in row for row in rows)

    def shown(row: RowJson) -> tuple[str, ...]:
        return (
            _class_cell(row, expected),
            base_cell(row),
            str(row["retries"]),
            _freeze_cell(row),
            step(row) or "",
            history_words(row) or "",
        )

    def cells(group: Group) -> list[str]:
        return [
            _class_cell(group.first, expected),
            _id_cell(group),
            group.replays(),
            *([base_cell(group.first)] if with_base else []),
            *([history_words(group.first) or "—"] if with_history else []),
            *([str(group.first["retries"])] if retries else []),
            _freeze_cell(group.first),
            *([_message_cell(group.message())] if messages else []),
            *([step(group.first) or "—"] if with_steps else []),
        ]

    title = f"Not a pass ({len(rows)})"
    header = [
        "class",
        "test id",
        "replays passed, in order",
        *(["base"] if with_base else []),
        *(["on main"] if with_history else []),
        *(["in-replay retries"] if retries else []),
        "freeze",
        *(["first failure"] if messages else []),
        *(["what next"] if with_steps else []),
    ]
    # When not even the first line fits, the rest are not grouped only to be counted.
    if not starts(out, title, header, cells(first_groups(rows, shown, 1)[0][0])):
        return len(rows)
    return table(
        out, title, header, Rendered(group_rows(rows, shown), cells, lambda group: len(group.rows))
    )


def _drift_table(out: Budget, report: ReportJson) -> int:
    fixtures = report["fixtures"]
    if fixtures is None:
        return 0
    return table(
        out,
        "Drifted fixtures and harness files",
        ["file", "part", "drift"],
        [[md_code(drift_name(d)), d["part"], d["kind"]] for d in fixtures["drift"]],
    )


def _properties_table(out: Budget, report: ReportJson) -> int:
    properties = report["properties"]
    if properties is None:
        return 0
    messages = properties.get("messages", {})
    return table(
        out,
        "Failed properties",
        ["property", "first failure"],
        [[md_code(p), _message_cell(messages.get(p))] for p in properties["failed"]],
    ) + table(
        out,
        "Skipped properties (not run, so they prove nothing)",
        ["property"],
        [[md_code(p)] for p in properties.get("skipped", [])],
    )


def _replays_table(out: Budget, report: ReportJson) -> int:
    replays = report["replays"]
    if replays is None:
        return 0
    return table(
        out,
        "Replays that could not be read",
        ["replay", "file", "problem"],
        [
            [str(e["replay"]), md_code(e["source"]), md_code(e["problem"])]
            for e in replays["errors"]
        ],
    )


def collapsed_table(out: Budget, replays: ReplaysJson | None) -> int:
    """The ids that more than one testcase of one replay read as: tests the report did not
    tell apart, with the file they came from."""
    return table(
        out,
        "Test ids read from more than one testcase of one replay (merged as one test's attempts)",
        ["test id", "testcases in one replay", "file they came from"],
        [
            [
                md_code(c["test_id"]),
                str(c["testcases"]),
                "the report named none in the repository"
                if c["file"] is None
                else md_code(c["file"]),
            ]
            for c in ([] if replays is None else replays.get("collapsed", []))
        ],
    )


# The evidence of each run-level cause, in the order the summary lists it; the table of
# the cause behind every row leads the summary instead.
CAUSE_TABLES: dict[TestClass, Callable[[Budget, ReportJson], int]] = {
    TestClass.FIXTURE_DRIFT: _drift_table,
    TestClass.PROPERTY_VIOLATION: _properties_table,
    TestClass.UNKNOWN_TEST: _replays_table,
}


def changed_files_tables(out: Budget, fixtures: FixturesJson) -> int:
    """The protected files the change edits, and the locked and harness files its commit
    changes: both only with a trusted revision."""
    return table(
        out,
        "Protected files this change edits",
        ["file", "path", "change"],
        [
            [f"`{c['file']}`", md_code(c["path"]), c["change"]]
            for c in fixtures.get("protected_changes", [])
        ],
    ) + table(
        out,
        "Locked and harness files this change's commit adds, edits or deletes",
        ["file", "part", "change"],
        [
            [md_code(drift_name(c)), c["part"], c["change"]]
            for c in fixtures.get("committed_changes", [])
        ],
    )


def void_freezes_table(out: Budget, void: Sequence[VoidRecordJson]) -> int:
    return table(
        out,
        "Void freeze records",
        ["record", "test id", "reason"],
        [
            [str(v["index"]), md_code(str(v["record"].get("test_id", ""))), md_code(v["reason"])]
            for v in void
        ],
    )


def edited_tests_table(out: Budget, registry: RegistryJson | None) -> int:
    """The registered tests the change edited, with what changed, then the diff of each
    one's definition: their replays are no evidence about the change."""
    edited = [] if registry is None else registry.get("edited", [])
    lines = group_edited(edited)

    def cells(line: EditedLine) -> list[str]:
        return [
            md_code(line.test_id) + line.note,
            "; ".join(md_code(change) for change in line.test["changes"]),
            "; ".join(md_code(kind) for kind in edit_kinds(line.test)),
        ]

    left_out = table(
        out,
        f"Tests this change edits ({len(edited)}): their replays say nothing about it",
        ["test id", "what changed", "kind of edit"],
        Rendered(lines, cells, lambda line: line.tests),
    )
    return left_out + diff_blocks(out, lines)


def approvals_lines(approvals: ApprovalsJson, admitted: int) -> list[str]:
    """What the reviews came to, in a sentence or two."""
    counted, problem = approvals["counted"], approvals["problem"]
    if problem is not None:
        return [f"**No approval admits anything:** {md_code(problem)}"]
    if not counted:
        return ["**No approval counts**: see who was refused and why below."]
    first = counted[0]
    return [
        f"**Approved by {md_code(first['login'])}** (review {first['review_id']}) of commit "
        f"{md_code(first['commit'])}: {admitted} row{'' if admitted == 1 else 's'} admitted. "
        "Admitted rows keep their class and do not block."
    ]


def refused_table(out: Budget, approvals: ApprovalsJson) -> int:
    return table(
        out,
        "Reviews that do not count",
        ["reviewer", "why"],
        [[md_code(r["login"]), md_code(r["reason"])] for r in approvals["refused"]],
    )
