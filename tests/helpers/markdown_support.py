"""Markdown as GitHub renders it, with its own engine (cmarkgfm): which tags it makes, the
text outside code, and the width of each table row."""

from __future__ import annotations

from html.parser import HTMLParser

import cmarkgfm  # type: ignore[import-untyped]
from cmarkgfm.cmark import Options  # type: ignore[import-untyped]


class Rendered(HTMLParser):
    """What GitHub would show: tags, text outside code spans, and table row widths."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.code_depth = 0
        self.plain_text: list[str] = []
        self.row_widths: list[int] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        if tag == "code":
            self.code_depth += 1
        elif tag == "tr":
            self.row_widths.append(0)
        elif tag in ("td", "th"):
            self.row_widths[-1] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "code":
            self.code_depth -= 1

    def handle_data(self, data: str) -> None:
        if not self.code_depth:
            self.plain_text.append(data)


def render_like_github(markdown: str) -> Rendered:
    html: str = cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=Options.CMARK_OPT_UNSAFE
    )
    rendered = Rendered()
    rendered.feed(html)
    return rendered
