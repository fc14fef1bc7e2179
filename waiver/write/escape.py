"""The one escaping helper for Markdown: untrusted text becomes an inert code span.

Inside a code span GitHub renders no emphasis, HTML, links, images or @mentions; the
only things left to neutralise are what ends a span or a table cell (backticks, `|`, line
breaks) and characters that hide or reorder text (controls, bidi overrides, zero-width).
"""

from __future__ import annotations

import re
import unicodedata

MAX_CELL = 300
# Controls, format characters (bidi overrides, zero-width) and line/paragraph separators.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})
BACKTICK_RUN = re.compile(r"`+")


def visible_text(text: str, limit: int = MAX_CELL) -> str:
    """Text with every hidden or layout-changing character spelled out, cut to `limit`."""
    if len(text) > limit:
        text = text[:limit] + f"… ({len(text) - limit} more characters)"
    if text.isprintable():  # no control, format or separator character but the space
        return text
    return "".join(
        f"<U+{ord(c):04X}>" if unicodedata.category(c) in HIDDEN_CATEGORIES else c for c in text
    )


def md_code(text: str, limit: int = MAX_CELL) -> str:
    """`text` as a Markdown code span that is safe inside a table cell."""
    shown = visible_text(text, limit).replace("|", "\\|")
    longest = max(map(len, BACKTICK_RUN.findall(shown)), default=0) if "`" in shown else 0
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") or not shown.strip() else ""
    return f"{fence}{pad}{shown}{pad}{fence}"
