"""The Markdown job summary, rendered from a finished waiver.json document.

Verdict first, then counts with their admission effect, then what is not a pass (closed
classes first), then the evidence. Every piece of untrusted text goes through `md_code`,
and the whole stays under GitHub's 1 MiB step-summary limit, saying what it left out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from waiver.model import BASE_WORDS, BLOCKING_CLASSES, CLOSED_CLASSES, BaseMeaning, TestClass
from waiver.read.policy.settings import NO_REGISTRY
from waiver.write.budget import Budget, folded_list, table
from waiver.write.escape import md_code
from waiver.write.report import split_rows
from waiver.write.why import drift_name, expected_replays, run_cause, unknown_note

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
ORDER = [
    TestClass.PROPERTY_VIOLATION,
    TestClass.FIXTURE_DRIFT,
    TestClass.STABLE_ASSERTION_FAIL,
    TestClass.UNKNOWN_TEST,
    TestClass.UNSTABLE_ASSERTION,
]


def _base_blocks(row: Mapping[str, Any]) -> bool:
    base = row.get("base")
    return base is not None and bool(base["blocks"])


def _base_words(base: Mapping[str, Any]) -> str:
    return BASE_WORDS[BaseMeaning(base["meaning"])]


def _base_cell(row: Mapping[str, Any]) -> str:
    """The row's base replays and what the pair means: "5/5, introduced by this change"."""
    base = row.get("base")
    if base is None:
        return "—"
    if base["meaning"] == BaseMeaning.NOT_ON_BASE:
        return "not on base"
    words = _base_words(base)
    counts = f"{base['replay_pass']}/{base['replay_total']}"
    return f"{counts}, {words}" if words else counts


def _base_blocked_line(row: Mapping[str, Any]) -> str:
    """Why the policy blocks this unstable row, in the words a reviewer would use."""
    base = row["base"]
    counts = (
        f"base {base['replay_pass']}/{base['replay_total']}, "
        f"change {row['replay_pass']}/{row['replay_total']}"
    )
    if base["meaning"] == BaseMeaning.INTRODUCED:
        return f"- this change made {md_code(row['test_id'])} flip: {counts}"
    why = _base_words(base) or "the base does not show it flipping"
    return f"- {md_code(row['test_id'])} flips, {why}: {counts}"


def _introduced(out: Budget, rows: Sequence[Mapping[str, Any]]) -> int:
    """Names each unstable row the policy blocks; returns how many did not fit."""
    if not rows:
        return 0
    out.add("")
    out.add(
        f"**{len(rows)} unstable test(s) blocked by the policy `introduced_instability: block`:** "
        "only a test that the base replays show flipping too gets a freeze proposal."
    )
    for number, row in enumerate(rows):
        if not out.add(_base_blocked_line(row)):
            return len(rows) - number
    return 0


def _freeze_cell(row: Mapping[str, Any]) -> str:
    if row["active_freeze"] is not None:
        expires = row["active_freeze"]["record"].get("expires_at")
        return f"active until {md_code(str(expires))}"
    if row["freeze"] is not None:
        return f"proposed, expires {row['freeze']['expires_at']}"
    if row["strict"] and row["class"] == TestClass.UNSTABLE_ASSERTION:
        return "none: matches a strict pattern (blocks)"
    if _base_blocks(row):
        return f"none: {_base_words(row['base']) or 'not flipping on the base'} (blocks)"
    return "—"


def _rows_table(out: Budget, rows: list[Mapping[str, Any]], expected: int, with_base: bool) -> int:
    """The rows that are not a pass; the retries column only when some row has retries, the
    base column only when base replays were given."""
    retries = any(row["retries"] for row in rows)
    return table(
        out,
        f"Not a pass ({len(rows)})",
        [
            "class",
            "test id",
            "replays passed",
            *(["base"] if with_base else []),
            *(["in-replay retries"] if retries else []),
            "freeze",
        ],
        [
            [
                f"`{row['class']}`"
                + (f" ({unknown_note(row, expected)})" if row.get("unknown") else "")
                + (" ⛔" if TestClass(row["class"]) in CLOSED_CLASSES else ""),
                md_code(row["test_id"]),
                f"{row['replay_pass']}/{row['replay_total']}",
                *([_base_cell(row)] if with_base else []),
                *([str(row["retries"])] if retries else []),
                _freeze_cell(row),
            ]
            for row in rows
        ],
    )


def _drift_table(out: Budget, report: Mapping[str, Any]) -> int:
    fixtures = report["fixtures"]
    if fixtures is None:
        return 0
    return table(
        out,
        "Drifted fixtures and harness files",
        ["file", "part", "drift"],
        [[md_code(drift_name(d)), d["part"], d["kind"]] for d in fixtures["drift"]],
    )


def _properties_table(out: Budget, report: Mapping[str, Any]) -> int:
    properties = report["properties"]
    if properties is None:
        return 0
    return table(
        out, "Failed properties", ["property"], [[md_code(p)] for p in properties["failed"]]
    ) + table(
        out,
        "Skipped properties (not run, so they prove nothing)",
        ["property"],
        [[md_code(p)] for p in properties.get("skipped", [])],
    )


def _replays_table(out: Budget, report: Mapping[str, Any]) -> int:
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


# The evidence of each run-level cause, in the order the summary lists it; the table of
# the cause behind every row leads the summary instead.
CAUSE_TABLES: dict[TestClass, Callable[[Budget, Mapping[str, Any]], int]] = {
    TestClass.FIXTURE_DRIFT: _drift_table,
    TestClass.PROPERTY_VIOLATION: _properties_table,
    TestClass.UNKNOWN_TEST: _replays_table,
}


def _blockers(report: Mapping[str, Any], strict: int, introduced: int) -> str:
    """What blocks admission, in words: "1 `stable_assertion_fail` and 2 `unknown_test`"."""
    parts = [
        f"{report['counts'][test_class]} `{test_class.value}`"
        for test_class in ORDER
        if test_class in BLOCKING_CLASSES and report["counts"][test_class]
    ]
    if strict:
        parts.append(f"{strict} strict `unstable_assertion`")
    if introduced:
        parts.append(f"{introduced} `unstable_assertion` not shown flipping on the base")
    if len(parts) < 2:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def render_summary(report: Mapping[str, Any], limit: int = LIMIT) -> str:
    out = Budget(limit - RESERVE)
    out.add(HEADLINES[report["verdict"]])
    out.add("")
    error = report["error"]
    if error is not None:
        out.add(f"**Input error** in {md_code(error['source'])}: {md_code(error['problem'])}")
        out.add("")
        out.add("Nothing was classified; the gate fails closed.")
        return "\n".join(out.lines) + "\n"

    left_out = 0
    passes, rows = split_rows(report["rows"])
    strict = [row for row in rows if row["strict"] and row["class"] == TestClass.UNSTABLE_ASSERTION]
    # A strict row blocks whatever its base says, so it is counted once, as strict.
    introduced = [
        row
        for row in rows
        if _base_blocks(row) and not row["strict"] and row["class"] == TestClass.UNSTABLE_ASSERTION
    ]
    blockers = _blockers(report, len(strict), len(introduced))
    if blockers:
        out.add(f"Blocked by {blockers}.")
        out.add("")
    for reason in report.get("run_blockers", []):
        out.add(f"**Blocked:** {reason}.")
        out.add("")
    replays = report["replays"]
    if replays is not None and replays.get("skipped"):
        out.add(f"**The replays were skipped:** {replays['reason']}.")
        out.add("")
    cause = run_cause(report)
    if cause is not None:
        out.add(
            f"**Every test ({len(passes) + len(rows)}) is `{cause.test_class.value}`: "
            f"{cause.headline}.**"
        )
        left_out += CAUSE_TABLES[cause.test_class](out, report)
        out.add("")
    # Only the classes present: a row of zeros for each absent class is noise.
    present = [test_class for test_class in TestClass if report["counts"][test_class]]
    if present:
        out.add_all(
            [
                "| class | tests | admission |",
                "|---|---|---|",
                *(
                    f"| `{test_class.value}` | {report['counts'][test_class]} | "
                    f"{ADMISSION[test_class]} |"
                    for test_class in present
                ),
            ]
        )
    out.add("")
    out.add(f"Replays required per test: {report['min_replays']}.")
    if strict:
        out.add("")
        out.add(
            f"**{len(strict)} unstable test(s) match a `strict` pattern of the policy:** a strict "
            "test gets no freeze proposal, and an unstable one blocks admission."
        )
    base = report.get("base")
    if base is not None:
        meanings = ", ".join(
            f"{number} {BASE_WORDS[BaseMeaning(meaning)]}"
            for meaning, number in base["meanings"].items()
            if number and BASE_WORDS[BaseMeaning(meaning)]
        )
        out.add("")
        out.add(
            f"Base replays ({base['read']} of {base['count']} read): "
            f"{meanings or 'no test introduced, broken, already flaky or already failing'}. "
            "They never change a class."
        )
    left_out += _introduced(out, introduced)
    registry = report["registry"]
    if registry is not None and not registry["used"]:
        out.add("")
        if report["policy"]["registry"] == NO_REGISTRY:
            out.add(
                "**The policy file says `registry: none`: new and vanished tests are not "
                "detected.**"
            )
        else:
            out.add(
                "**No known-tests registry was given: new and vanished tests are not detected.**"
            )
    fixtures = report["fixtures"]
    if fixtures is not None and fixtures["lock_source"] == "working tree":
        out.add("")
        out.add(
            "**The lock, registry and freeze store were read from the working tree, which the "
            "change itself can edit.** Pass a trusted revision to read them from the base commit."
        )
    if report["trusted_revision"] is not None and error is not None:
        out.add("")
        out.add(f"Trusted revision given: {md_code(report['trusted_revision'])}.")
    elif report["trusted_revision"] is not None:
        out.add("")
        out.add(
            "The protected files (lock, registry, freeze store, policy file) were read from "
            f"trusted revision {md_code(report['trusted_revision'])}, not from this change."
        )
    harness = [d for d in fixtures["drift"] if d["part"] == "harness"] if fixtures else []
    if harness:
        out.add("")
        out.add(
            f"**The change edits the test harness** ({len(harness)} file"
            f"{'' if len(harness) == 1 else 's'}: conftest.py, pytest configuration or "
            "property-suite modules), so its replays cannot be trusted and every test is "
            "`fixture_drift`. Updating the harness is a separate, reviewed change."
        )
    if fixtures is not None and fixtures.get("working_tree_lock_differs"):
        out.add("")
        out.add(
            "**This change edits the fixture lock.** The trusted lock was used; updating it is "
            "a separate human edit with its own review."
        )

    rank = {test_class.value: number for number, test_class in enumerate(ORDER)}
    rows.sort(key=lambda row: (rank[row["class"]], row["test_id"]))
    collapsed: list[tuple[str, list[str]]] = []
    if cause is not None:
        # Every row has the cause's class for the same reason: only the ids differ.
        collapsed.append(
            (f"{len(rows)} `{cause.test_class.value}`", [row["test_id"] for row in rows])
        )
    else:
        left_out += _rows_table(out, rows, expected_replays(report), base is not None)
    for test_class, cause_table in CAUSE_TABLES.items():
        if cause is None or cause.test_class is not test_class:
            left_out += cause_table(out, report)
    if fixtures is not None:
        left_out += table(
            out,
            "Protected files this change edits",
            ["file", "path", "change"],
            [
                [f"`{c['file']}`", md_code(c["path"]), c["change"]]
                for c in fixtures.get("protected_changes", [])
            ],
        )
        left_out += table(
            out,
            "Locked and harness files this change's commit adds, edits or deletes",
            ["file", "part", "change"],
            [
                [md_code(drift_name(c)), c["part"], c["change"]]
                for c in fixtures.get("committed_changes", [])
            ],
        )
    left_out += table(
        out,
        "Void freeze records",
        ["record", "test id", "reason"],
        [
            [str(v["index"]), md_code(str(v["record"].get("test_id", ""))), md_code(v["reason"])]
            for v in report["freezes"]["void"]
        ],
    )
    skipped = report["skipped"]
    for title, ids in (
        *collapsed,
        (f"{len(passes)} stable pass{'' if len(passes) == 1 else 'es'}", passes),
        (f"{len(skipped)} skipped", skipped),
    ):
        left_out += folded_list(out, title, ids)
    if left_out:
        out.force("")
        out.force(
            f"_{left_out} rows left out to stay under 1 MiB; all of them are in waiver.json._"
        )
    return "\n".join(out.lines) + "\n"
