"""What a reviewer of a new, edited or deleted test is shown beside its row, in words: the
named kinds of an edit, what the base's version of an edited or deleted test did on the
change's code, and whether the test fails without the change (red-green)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from waiver.decide.red_green_rules import EDITED_OUTCOME_WORDS, OUTCOME_WORDS, RED_GREEN_POLICY
from waiver.model import BaseVersionMeaning, RedGreenOutcome, UnknownReason
from waiver.write.report.report_types import (
    EditedTestJson,
    RegistryJson,
    RowBaseVersionJson,
    RowJson,
    RowRedGreenJson,
)
from waiver.write.summary.budget import Budget, table
from waiver.write.words.escape import md_code

NOT_ADMITTED = f"an approval does not admit it (review_requires: {RED_GREEN_POLICY})"


def edit_kinds(edited: EditedTestJson) -> list[str]:
    """The named kinds of an edit in words (`comparison loosened: ...`), or `edited` when
    it is of no named kind."""
    findings = edited.get("findings", [])
    if not findings:
        return ["edited"]
    return [f"{f['kind'].replace('_', ' ')}: {f['detail']}" for f in findings]


def red_green_words(evidence: RowRedGreenJson, edited: bool = False) -> str:
    """`red-green: …, base 0/5`, `not run: why`, and whether it keeps the row from an
    approval; of an `edited` test, what it says of the change's version."""
    outcome = RedGreenOutcome(evidence["outcome"])
    words = (EDITED_OUTCOME_WORDS if edited else OUTCOME_WORDS)[outcome]
    if outcome is not RedGreenOutcome.NOT_RUN or evidence["base_total"]:
        words += f" (base {evidence['base_pass']}/{evidence['base_total']} passed)"
    if evidence["why"]:
        words += f": {evidence['why']}"
    if evidence["blocks"]:
        words += f"; {NOT_ADMITTED}"
    return words


def row_red_green_words(row: RowJson) -> str:
    """A row's red-green outcome in words, as `red_green_words` says it of its kind."""
    return red_green_words(row["red_green"], row.get("unknown") == UnknownReason.EDITED)


def red_green_rows(rows: Iterable[RowJson]) -> list[RowJson]:
    return [row for row in rows if "red_green" in row]


def red_green_table(out: Budget, rows: Sequence[RowJson]) -> int:
    """The new and edited tests' red-green outcomes; returns how many did not fit."""
    found = red_green_rows(rows)
    return table(
        out,
        f"Red-green evidence ({len(found)}): does each new or edited test fail without the change?",
        ["test id", "outcome"],
        [[md_code(row["test_id"]), md_code(row_red_green_words(row))] for row in found],
    )


def base_version_words(row: RowJson, version: RowBaseVersionJson) -> str:
    """What the base's version of an edited or deleted test did on the change's code, and
    beside it the change's version's replays: `the base's version fails on the change's code
    in 5 of 5 replays: the change breaks what this test pinned; the change's version passes
    5 of 5`."""
    passed, total = version["replay_pass"], version["replay_total"]
    meaning = BaseVersionMeaning(version["meaning"])
    if meaning is BaseVersionMeaning.KEPT:
        words = (
            f"the base's version passes on the change's code in {passed} of {total} replays: "
            "the change keeps what this test pinned"
        )
    elif meaning is BaseVersionMeaning.BROKEN:
        words = (
            f"the base's version fails on the change's code in {total - passed} of {total} "
            "replays: the change breaks what this test pinned"
        )
    elif meaning is BaseVersionMeaning.FLAKY:
        words = f"the base's version passes on the change's code in {passed} of {total} replays"
    elif total:
        words = f"the base's version has an outcome on the change's code in {total} replays only"
    else:
        words = "the base's version gave no outcome on the change's code"
    if row.get("unknown") == UnknownReason.VANISHED:
        return f"the change deletes it; {words}"
    if row["replay_total"]:
        return f"{words}; the change's version passes {row['replay_pass']} of {row['replay_total']}"
    return f"{words}; the change's version was not run"


def base_version_rows(rows: Iterable[RowJson]) -> list[tuple[RowJson, RowBaseVersionJson]]:
    return [(row, row["base_version"]) for row in rows if "base_version" in row]


def base_version_table(out: Budget, rows: Sequence[RowJson]) -> int:
    """What the base's version of each edited or deleted test did on the change's code: the
    evidence that matters for such a test; returns how many did not fit."""
    found = base_version_rows(rows)
    return table(
        out,
        f"Base versions ({len(found)}): what each edited or deleted test, as the base holds "
        "it, does on the change's code",
        ["test id", "evidence"],
        [[md_code(row["test_id"]), md_code(base_version_words(row, v))] for row, v in found],
    )


def edited_by_id(registry: RegistryJson | None) -> dict[str, EditedTestJson]:
    return {} if registry is None else {e["test_id"]: e for e in registry.get("edited", [])}


def review_why(row: RowJson, edited: Mapping[str, EditedTestJson]) -> str:
    """Why a row awaits review, with the kinds of its edit, what its base version did on the
    change's code, and its red-green outcome."""
    why = str(row["unknown"])
    found = edited.get(row["test_id"])
    if found is not None and found.get("findings"):
        why += f" ({'; '.join(edit_kinds(found))})"
    if "base_version" in row:
        why += f"; {base_version_words(row, row['base_version'])}"
    if "red_green" in row:
        why += f"; {row_red_green_words(row)}"
    return why
