"""The Markdown job summary, rendered from a finished waiver.json document.

Verdict first, then counts with their admission effect, then what is not a pass (closed
classes first), then the evidence. Every piece of untrusted text goes through `md_code`,
and the whole stays under GitHub's 1 MiB step-summary limit, saying what it left out.

Each section is a function of its own over the facts that `Facts.of` works out once
from the report; `render_summary` only runs the sections in order. A section adds its
lines to the budget and returns how many rows the size limit left out of it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from waiver.model import BASE_WORDS, BLOCKING_CLASSES, BaseMeaning, TestClass
from waiver.write.report.report_types import ReportJson
from waiver.write.summary.budget import Budget, folded_list
from waiver.write.summary.summary_facts import ORDER, Facts, Section, paragraph
from waiver.write.summary.summary_notices import (
    harness_note,
    lock_edited_note,
    reach_admitted_note,
    registry_note,
    trusted_revision_note,
    working_tree_note,
)
from waiver.write.summary.summary_tables import (
    CAUSE_TABLES,
    approvals_lines,
    base_blocked_line,
    changed_files_tables,
    collapsed_table,
    edited_tests_table,
    refused_table,
    rows_table,
    void_freezes_table,
)
from waiver.write.words.bill import bill_line
from waiver.write.words.escape import md_code
from waiver.write.words.review_evidence import base_version_table, red_green_table

LIMIT = 1_000_000  # bytes; GitHub refuses a step summary over 1 MiB
RESERVE = 4_000  # room kept for the closing line

ADMISSION = {
    TestClass.PROPERTY_VIOLATION: "reject (blocks)",
    TestClass.FIXTURE_DRIFT: "reject (blocks)",
    TestClass.UNKNOWN_TEST: "human review (blocks)",
    TestClass.STABLE_PASS: "eligible for diff review",
    TestClass.UNSTABLE_ASSERTION: "freeze proposal only; not a pass",
    TestClass.STABLE_ASSERTION_FAIL: "reject (blocks)",
}
HEADLINES = {
    "blocked": "## ⛔ waiver: blocked — admission is blocked",
    "review": "## ⚠️ waiver: review — not blocked, but some tests are not a pass",
    "clean": "## ✅ waiver: clean — every test passed every replay",
}


def _blockers(facts: Facts) -> str:
    """What blocks admission, in words: "1 `stable_assertion_fail` and 2 `unknown_test`"."""
    counts = facts.report["counts"]
    admitted = Counter(row["class"] for row in facts.rows if "admitted_by" in row)
    left = {test_class: counts[test_class] - admitted[test_class] for test_class in ORDER}
    parts = [
        f"{left[test_class]} `{test_class.value}`"
        for test_class in ORDER
        if test_class in BLOCKING_CLASSES and left[test_class]
    ]
    if facts.strict:
        parts.append(f"{len(facts.strict)} strict `unstable_assertion`")
    if facts.introduced:
        parts.append(f"{len(facts.introduced)} `unstable_assertion` not shown flipping on the base")
    if len(parts) < 2:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


# --- the sections, in the order the summary shows them --------------------------------


def _headline(out: Budget, facts: Facts) -> int:
    out.add(HEADLINES[facts.report["verdict"]])
    out.add("")
    return 0


def _input_error(out: Budget, facts: Facts) -> int:
    """The error, then the trusted revision as it was given, since the error may be that
    revision, and a reader needs to know which revision the run was about either way."""
    error, revision = facts.report["error"], facts.report["trusted_revision"]
    if error is None:
        return 0
    out.add(f"**Input error** in {md_code(error['source'])}: {md_code(error['problem'])}")
    out.add("")
    out.add("Nothing was classified; the gate fails closed.")
    if revision is not None:
        paragraph(out, f"Trusted revision given: {md_code(revision)}.")
    return 0


def _what_blocks(out: Budget, facts: Facts) -> int:
    blockers = _blockers(facts)
    if blockers:
        out.add(f"Blocked by {blockers}.")
        out.add("")
    for reason in facts.report.get("run_blockers", []):
        out.add(f"**Blocked:** {reason}.")
        out.add("")
    replays = facts.report["replays"]
    if replays is not None and replays.get("skipped"):
        out.add(f"**The replays were skipped:** {replays['reason']}.")
        out.add("")
    return 0


def _run_cause(out: Budget, facts: Facts) -> int:
    cause = facts.cause
    if cause is None:
        return 0
    out.add(
        f"**Every test ({len(facts.passes) + len(facts.rows)}) is "
        f"`{cause.test_class.value}`: {cause.headline}.**"
    )
    left_out = CAUSE_TABLES[cause.test_class](out, facts.report)
    out.add("")
    return left_out


def _admission(test_class: TestClass, admitted: int) -> str:
    if not admitted:
        return ADMISSION[test_class]
    return f"{ADMISSION[test_class]}; {admitted} admitted by an approval"


def _counts(out: Budget, facts: Facts) -> int:
    counts = facts.report["counts"]
    admitted = Counter(row["class"] for row in facts.rows if "admitted_by" in row)
    # Only the classes present: a row of zeros for each absent class is noise.
    present = [test_class for test_class in TestClass if counts[test_class]]
    if present:
        out.add_all(
            [
                "| class | tests | admission |",
                "|---|---|---|",
                *(
                    f"| `{test_class.value}` | {counts[test_class]} "
                    f"| {_admission(test_class, admitted[test_class])} |"
                    for test_class in present
                ),
            ]
        )
    out.add("")
    out.add(f"Replays required per test: {facts.report['min_replays']}.")
    return 0


def _strict(out: Budget, facts: Facts) -> int:
    if not facts.strict:
        return 0
    return paragraph(
        out,
        f"**{len(facts.strict)} unstable test(s) match a `strict` pattern of the policy:** a "
        "strict test gets no freeze proposal, and an unstable one blocks admission.",
    )


def _base_replays(out: Budget, facts: Facts) -> int:
    base = facts.report.get("base")
    if base is None:
        return 0
    meanings = ", ".join(
        f"{number} {BASE_WORDS[BaseMeaning(meaning)]}"
        for meaning, number in base["meanings"].items()
        if number and BASE_WORDS[BaseMeaning(meaning)]
    )
    run = base.get("history_run")
    source = (
        f"Base replays ({base['read']} of {base['count']} read)"
        if run is None
        else f"Base evidence from the default branch's gate run of {md_code(run['commit'][:12])} "
        f"({md_code(run['time'])}, {base['read']} replays), kept in its history; no base "
        "replay ran"
    )
    return paragraph(
        out,
        f"{source}: "
        f"{meanings or 'no test introduced, broken, already flaky or already failing'}. "
        "They never change a class.",
    )


def _history(out: Budget, facts: Facts) -> int:
    history = facts.report.get("history")
    if history is None:
        return 0
    if history["problem"] is not None:
        return paragraph(
            out,
            f"History of the default branch not used: {md_code(history['problem'])}. "
            "The rows show no history; nothing else changes.",
        )
    return paragraph(
        out,
        f"History of the default branch ({history['runs']} runs) beside each unstable or "
        "failing row, under `on main`. It never changes a class.",
    )


def _bill(out: Budget, facts: Facts) -> int:
    cost = facts.report.get("cost")
    return 0 if cost is None else paragraph(out, bill_line(cost))


def _introduced(out: Budget, facts: Facts) -> int:
    """Names each unstable row the policy blocks; returns how many did not fit."""
    rows = facts.introduced
    if not rows:
        return 0
    out.add("")
    out.add(
        f"**{len(rows)} unstable test(s) blocked by the policy `introduced_instability: block`:** "
        "only a test that the base replays show flipping too gets a freeze proposal."
    )
    for number, row in enumerate(rows):
        if not out.add(base_blocked_line(row)):
            return len(rows) - number
    return 0


def _review(out: Budget, facts: Facts) -> int:
    """The human review: what the approvals came to, who was refused, what was edited."""
    approvals = facts.report.get("approvals")
    left_out = edited_tests_table(out, facts.report["registry"])
    left_out += base_version_table(out, facts.rows)
    left_out += red_green_table(out, facts.rows)
    if approvals is None:
        return left_out
    admitted = sum(1 for row in facts.rows if "admitted_by" in row)
    paragraph(out, *approvals_lines(approvals, admitted))
    return left_out + refused_table(out, approvals)


def _not_a_pass(out: Budget, facts: Facts) -> int:
    """The table of the rows that are not a pass. With a run-level cause every row has its
    class for the same reason, so only their ids are listed, folded, at the end."""
    if facts.cause is not None:
        return 0
    return rows_table(out, facts.rows, facts.report)


def _other_causes(out: Budget, facts: Facts) -> int:
    """The evidence of every run-level cause but the one that leads the summary."""
    return sum(
        cause_table(out, facts.report)
        for test_class, cause_table in CAUSE_TABLES.items()
        if facts.cause is None or facts.cause.test_class is not test_class
    )


def _collapsed(out: Budget, facts: Facts) -> int:
    return collapsed_table(out, facts.report["replays"])


def _changed_files(out: Budget, facts: Facts) -> int:
    fixtures = facts.report["fixtures"]
    return 0 if fixtures is None else changed_files_tables(out, fixtures)


def _void_freezes(out: Budget, facts: Facts) -> int:
    return void_freezes_table(out, facts.report["freezes"]["void"])


def _folded(out: Budget, facts: Facts) -> int:
    """Folded lists of ids: every row of the run-level cause, the passes, the skipped."""
    passes, skipped = facts.passes, facts.report["skipped"]
    lists = [
        (f"{len(passes)} stable pass{'' if len(passes) == 1 else 'es'}", passes),
        (f"{len(skipped)} skipped", skipped),
    ]
    if facts.cause is not None:
        ids = [row["test_id"] for row in facts.rows]
        lists.insert(0, (f"{len(ids)} `{facts.cause.test_class.value}`", ids))
    return sum(folded_list(out, title, ids) for title, ids in lists)


INPUT_ERROR: Sequence[Section] = (_headline, _input_error)
SECTIONS: Sequence[Section] = (
    _headline,
    _what_blocks,
    _run_cause,
    _counts,
    _bill,
    _strict,
    _base_replays,
    _history,
    _introduced,
    _review,
    registry_note,
    working_tree_note,
    trusted_revision_note,
    harness_note,
    reach_admitted_note,
    lock_edited_note,
    _not_a_pass,
    _other_causes,
    _collapsed,
    _changed_files,
    _void_freezes,
    _folded,
)


def render_summary(report: ReportJson, limit: int = LIMIT) -> str:
    out = Budget(limit - RESERVE)
    facts = Facts.of(report)
    left_out = sum(
        section(out, facts) for section in (SECTIONS if report["error"] is None else INPUT_ERROR)
    )
    if left_out:
        out.force("")
        out.force(
            f"_{left_out} rows left out to stay under 1 MiB; all of them are in waiver.json._"
        )
    return "\n".join(out.lines) + "\n"
