"""`waiver diagnose`: a model's commentary on `unstable_assertion` rows, kept beside the report.

The report is only read. Each unstable row, up to a limit, is sent alone with the few
facts the gate decided on; the guarded replies go to diagnosis.json. Nothing here can
change a class, an expiry, `blocked`, the verdict or the gate's exit code, and a failed
call is recorded, never raised.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from waiver.diagnose.chat import ChatFailed, completions_url, post_chat
from waiver.diagnose.reply_guard import Accepted, guard
from waiver.errors import UsageError
from waiver.model import TestClass
from waiver.read.stores.waiver_json import read_report
from waiver.write.files.atomic import write_atomic
from waiver.write.files.diagnosis_file import DiagnosisJson, NoteJson, NoteStatus, render_diagnosis
from waiver.write.summary.commentary import render_commentary

KEY_VARIABLE = "WAIVER_MODEL_API_KEY"
SCHEMA_VERSION = 1
NOTICE = (
    "Commentary, not a test result: it changes no class, expiry, verdict or exit code. "
    "waiver.json is the result."
)
INSTRUCTION = (
    "You are shown one test from a CI gate's report, with the class the gate decided for it. "
    "The class is final: do not change it, do not name any other class, and do not say that "
    "the test passes or is safe to ignore. Do not recommend freezing, skipping or waiving any "
    "test. List at most three plausible sources of instability for this test, most likely "
    "first, one short numbered line each, in plain text without links or markup."
)


@dataclass(frozen=True)
class DiagnoseOptions:
    report: str
    endpoint: str
    model: str
    out: str
    max_rows: int
    timeout: float
    summary: str | None


def row_facts(row: Mapping[str, Any]) -> dict[str, object]:
    """All that is sent about a row: what the gate decided it on, and that it is not a pass."""
    return {
        "class": row["class"],
        "test_id": row["test_id"],
        "fixture_hash": row["fixture_hash"],
        "replay_pass": row["replay_pass"],
        "replay_total": row["replay_total"],
        "counts_as_pass": False,
    }


def request_body(model: str, row: Mapping[str, Any]) -> dict[str, object]:
    return {
        "model": model,
        "messages": [
            {"role": "system", "content": INSTRUCTION},
            {"role": "user", "content": json.dumps(row_facts(row))},
        ],
    }


def api_key(env: Mapping[str, str]) -> str:
    key = env.get(KEY_VARIABLE, "")
    if not key:
        raise UsageError(f"{KEY_VARIABLE} is not set")
    # Anything else could end up in an error message that names the header it broke.
    if not (key.isascii() and key.isprintable()) or any(c.isspace() for c in key):
        raise UsageError(f"{KEY_VARIABLE} must be printable ASCII without spaces")
    return key


def _check(options: DiagnoseOptions) -> None:
    written = [options.out] + ([options.summary] if options.summary is not None else [])
    if any(os.path.realpath(path) == os.path.realpath(options.report) for path in written):
        raise UsageError("diagnose never writes the report: --out and --summary must differ")


def _note(
    row: Mapping[str, Any], status: NoteStatus, commentary: str | None, reason: str | None
) -> NoteJson:
    return {
        "test_id": row["test_id"],
        "class": row["class"],
        "replay_pass": row["replay_pass"],
        "replay_total": row["replay_total"],
        "fixture_hash": row["fixture_hash"],
        "status": status,
        "commentary": commentary,
        "reason": reason,
    }


def diagnose_row(
    row: Mapping[str, Any], url: str, key: str, model: str, timeout: float
) -> NoteJson:
    """One call about one row, recorded as accepted, dropped (by the guard) or failed."""
    try:
        reply = post_chat(url, key, request_body(model, row), timeout)
    except ChatFailed as failure:
        return _note(row, "failed", None, str(failure).replace(key, f"[{KEY_VARIABLE}]"))
    if key in reply:
        return _note(row, "dropped", None, "the reply repeats the API key")
    judged = guard(row, reply)
    if isinstance(judged, Accepted):
        return _note(row, "accepted", judged.text, None)
    return _note(row, "dropped", None, judged.reason)


def run_diagnose(options: DiagnoseOptions, env: Mapping[str, str]) -> list[NoteJson]:
    """Reads the report, asks about its unstable rows, writes diagnosis.json (and the summary).

    Returns the notes, one per row asked about.
    """
    _check(options)
    url = completions_url(options.endpoint)
    report = read_report(options.report, lambda row: row["class"] == TestClass.UNSTABLE_ASSERTION)
    key = api_key(env)
    unstable = report.document["rows"]
    notes = [
        diagnose_row(row, url, key, options.model, options.timeout)
        for row in unstable[: options.max_rows]
    ]
    document: DiagnosisJson = {
        "schema_version": SCHEMA_VERSION,
        "notice": NOTICE,
        "report": {"path": options.report, "sha256": hashlib.sha256(report.data).hexdigest()},
        "model": options.model,
        "unstable_rows": len(unstable),
        "notes": notes,
    }
    write_atomic(options.out, render_diagnosis(document))
    if options.summary is not None:
        with open(options.summary, "a", encoding="utf-8") as stream:
            stream.write(render_commentary(document))
    return notes
