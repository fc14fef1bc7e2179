"""The shape of diagnosis.json, which `waiver diagnose` writes beside the report: commentary
on the unstable rows, never a test result (its Markdown is `waiver.write.summary.commentary`)."""

# No `from __future__ import annotations`: on Python 3.11 a TypedDict sees `Literal` keys
# only in an evaluated annotation.

import json
from typing import Literal, TypedDict

NoteStatus = Literal["accepted", "dropped", "failed"]

NoteJson = TypedDict(
    "NoteJson",
    {
        "test_id": str,
        "class": str,
        "replay_pass": int,
        "replay_total": int,
        "fixture_hash": str,
        "status": NoteStatus,
        "commentary": str | None,  # the model's words, kept only when accepted
        "reason": str | None,  # why a reply was dropped or the call failed
    },
)


class ReportRefJson(TypedDict):
    path: str
    sha256: str  # of the report's bytes, so the commentary names the report it is about


class DiagnosisJson(TypedDict):
    schema_version: int
    notice: str
    report: ReportRefJson
    model: str
    unstable_rows: int
    notes: list[NoteJson]


def render_diagnosis(document: DiagnosisJson) -> str:
    return json.dumps(document, indent=2) + "\n"
