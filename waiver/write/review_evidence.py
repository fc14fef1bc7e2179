"""What a reviewer of a new or edited test is shown beside its row, in words: the named
kinds of an edit, and whether the test fails without the change (red-green)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from waiver.decide.red_green import OUTCOME_WORDS, RED_GREEN_POLICY
from waiver.model import RedGreenOutcome
from waiver.write.budget import Budget, table
from waiver.write.escape import md_code
from waiver.write.report_types import EditedTestJson, RegistryJson, RowJson, RowRedGreenJson

NOT_ADMITTED = f"an approval does not admit it (review_requires: {RED_GREEN_POLICY})"


def edit_kinds(edited: EditedTestJson) -> list[str]:
    """The named kinds of an edit in words (`comparison loosened: ...`), or `edited` when
    it is of no named kind."""
    findings = edited.get("findings", [])
    if not findings:
        return ["edited"]
    return [f"{f['kind'].replace('_', ' ')}: {f['detail']}" for f in findings]


def red_green_words(evidence: RowRedGreenJson) -> str:
    """`red-green: …, base 0/5`, `not run: why`, and whether it keeps the row from an
    approval."""
    outcome = RedGreenOutcome(evidence["outcome"])
    words = OUTCOME_WORDS[outcome]
    if outcome is not RedGreenOutcome.NOT_RUN or evidence["base_total"]:
        words += f" (base {evidence['base_pass']}/{evidence['base_total']} passed)"
    if evidence["why"]:
        words += f": {evidence['why']}"
    if evidence["blocks"]:
        words += f"; {NOT_ADMITTED}"
    return words


def red_green_rows(rows: Iterable[RowJson]) -> list[tuple[str, RowRedGreenJson]]:
    return [(row["test_id"], row["red_green"]) for row in rows if "red_green" in row]


def red_green_table(out: Budget, rows: Sequence[RowJson]) -> int:
    """The new and edited tests' red-green outcomes; returns how many did not fit."""
    found = red_green_rows(rows)
    return table(
        out,
        f"Red-green evidence ({len(found)}): does each new or edited test fail without the change?",
        ["test id", "outcome"],
        [[md_code(test_id), md_code(red_green_words(evidence))] for test_id, evidence in found],
    )


def edited_by_id(registry: RegistryJson | None) -> dict[str, EditedTestJson]:
    return {} if registry is None else {e["test_id"]: e for e in registry.get("edited", [])}


def review_why(row: RowJson, edited: Mapping[str, EditedTestJson]) -> str:
    """Why a row awaits review, with the kinds of its edit and its red-green outcome."""
    why = str(row["unknown"])
    found = edited.get(row["test_id"])
    if found is not None and found.get("findings"):
        why += f" ({'; '.join(edit_kinds(found))})"
    if "red_green" in row:
        why += f"; {red_green_words(row['red_green'])}"
    return why
