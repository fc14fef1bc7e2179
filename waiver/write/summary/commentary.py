"""The Markdown for diagnosis.json: a section of its own, "Commentary — not a test result".

Model text is untrusted like any test id: it is shown only inside a fenced code block whose
fence is longer than any backtick run in it, so no line of it can close the block, and in a
code block GitHub renders no HTML, links, images, mentions or table cells. Hidden and
layout-changing characters are spelled out line by line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from waiver.write.words.escape import md_code, visible_text

TITLE = "## Commentary — not a test result"
STATUS = {"accepted": "kept, notes below", "dropped": "dropped", "failed": "call failed"}


def fenced(text: str) -> str:
    """`text` as an inert fenced code block."""
    lines = [visible_text(line, len(line)) for line in text.splitlines()]
    longest = max((len(run) for run in re.findall(r"`+", "\n".join(lines))), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([f"{fence}text", *lines, fence])


def _status_cell(note: Mapping[str, Any]) -> str:
    status = STATUS[note["status"]]
    return f"{status}: {md_code(note['reason'])}" if note["reason"] is not None else status


def render_commentary(diagnosis: Mapping[str, Any]) -> str:
    notes = diagnosis["notes"]
    out = [
        "",  # a heading right after the gate's summary must not join its last table
        TITLE,
        "",
        f"Model {md_code(diagnosis['model'])} was asked about {len(notes)} of "
        f"{diagnosis['unstable_rows']} `unstable_assertion` rows. Its notes change no class, "
        "expiry, verdict or exit code: waiver.json and the gate's summary are the result.",
    ]
    if notes:
        out += ["", "| # | test id | replays passed | notes |", "|---|---|---|---|"]
        out += [
            f"| {number} | {md_code(note['test_id'])} | "
            f"{note['replay_pass']}/{note['replay_total']} | {_status_cell(note)} |"
            for number, note in enumerate(notes, 1)
        ]
    for number, note in enumerate(notes, 1):
        if note["commentary"] is not None:
            out += [
                "",
                f"Notes {number}, from the model, unchecked:",
                "",
                fenced(note["commentary"]),
            ]
    return "\n".join(out) + "\n"
