"""The escaping helpers: untrusted text as an inert Markdown code span, or as a log line.

Inside a code span GitHub renders no emphasis, HTML, links, images or @mentions; the
only things left to neutralise are what ends a span or a table cell (backticks, `|`, line
breaks) and characters that hide or reorder text (controls, bidi overrides, zero-width).

In a job's log the runner reads workflow commands from stdout and stderr alike: `::name::`
at the start of a line (after leading white space), and `##[name]` anywhere in a line.
"""

from __future__ import annotations

import re
import unicodedata

MAX_CELL = 300
# Controls, format characters (bidi overrides, zero-width) and line/paragraph separators.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})
BACKTICK_RUN = re.compile(r"`+")
MAX_LOG_LINE = 2000
LEGACY_COMMAND = "##["
# `##[` for GitHub's runner, `##vso[` for Azure Pipelines' agent, which logs may reach too.
LOG_COMMAND = re.compile(r"##(vso)?\[")


def visible_text(text: str, limit: int = MAX_CELL) -> str:
    """Text with every hidden or layout-changing character spelled out, cut to `limit`."""
    if len(text) > limit:
        text = text[:limit] + f"… ({len(text) - limit} more characters)"
    if text.isprintable():  # no control, format or separator character but the space
        return text
    return "".join(
        f"<U+{ord(c):04X}>" if unicodedata.category(c) in HIDDEN_CATEGORIES else c for c in text
    )


def log_line(text: str, limit: int = MAX_LOG_LINE) -> str:
    """`text` as one line of a runner's log that can issue no workflow command."""
    shown = LOG_COMMAND.sub(r"##\1<U+005B>", visible_text(text, limit))
    command = shown.lstrip()
    if command.startswith("::"):
        shown = shown[: len(shown) - len(command)] + "<U+003A>" + command[1:]
    return shown


def runner_inert_json(text: str) -> str:
    """JSON text in which `##[` is spelt `##\\u005b`: the same JSON, no legacy command.

    `#` stands only inside strings in JSON, and no JSON line starts with `::`.
    """
    return text.replace(LEGACY_COMMAND, "##\\u005b")


def md_code(text: str, limit: int = MAX_CELL) -> str:
    """`text` as a Markdown code span that is safe inside a table cell."""
    shown = visible_text(text, limit).replace("|", "\\|")
    longest = max(map(len, BACKTICK_RUN.findall(shown)), default=0) if "`" in shown else 0
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") or not shown.strip() else ""
    return f"{fence}{pad}{shown}{pad}{fence}"
