"""Sections of bench/RESULTS.md that are measured by their own scripts.

bench/run.py rewrites the document and keeps these; each script replaces its own. The test
suite's wall time and the cost of failure messages are measured by hand with the commands
their sections name. A section runs
from its `## ` heading to the next `## ` heading or the end.
"""

from __future__ import annotations

from pathlib import Path

WORKFLOW = "## Reusable workflow under act"
START_UP = "## Action start-up"
FREEZE = "## Freeze commands on a large report"
HARNESS = "## Harness resolution by plugin count"
EDITED = "## Edited-test detection on a large suite"
RED_GREEN = "## Red-green replays on a large suite"
MESSAGES = "## First failure messages in the reader"
TEST_SUITE = "## Test suite wall time"
APPROVAL = "## Approval to status under act"
HISTORY = "## History of the default branch"
SETUP_SHARE = "## Set-up share of a test job"
SEPARATE = (
    WORKFLOW, START_UP, FREEZE, HARNESS, EDITED, RED_GREEN, MESSAGES, TEST_SUITE, APPROVAL,
    HISTORY, SETUP_SHARE,
)  # fmt: skip


def section_of(document: str, heading: str) -> str:
    """The section under `heading` in `document`, from its heading on, or ''."""
    lines = document.splitlines(keepends=True)
    if f"{heading}\n" not in lines:
        return ""
    start = lines.index(f"{heading}\n")
    end = next((n for n in range(start + 1, len(lines)) if lines[n].startswith("## ")), len(lines))
    return "".join(lines[start:end]).rstrip("\n") + "\n"


def separate_sections(document: str) -> str:
    """Every separately measured section of `document`, in the order of SEPARATE."""
    return "\n".join(text for heading in SEPARATE if (text := section_of(document, heading)))


def write_section(out: Path, heading: str, text: str) -> None:
    """Replace the section under `heading` in `out`, or append it; the rest is kept."""
    existing = out.read_text(encoding="utf-8") if out.exists() else ""
    old = section_of(existing, heading)
    if old:
        before, _, after = existing.partition(old)
        document = before + text + ("\n" + after.lstrip("\n") if after.strip() else "")
    else:
        kept = existing.rstrip("\n")
        document = f"{kept}\n\n{text}" if kept else text
    out.write_text(document, encoding="utf-8")
