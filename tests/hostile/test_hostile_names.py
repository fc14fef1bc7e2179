"""Test names and failure messages written by the code under review: inert in the summary,
the report and the logs, and a message capped however long it is."""

from __future__ import annotations

import json
import re
from xml.sax.saxutils import escape, quoteattr

import pytest
from markdown_it import MarkdownIt

from helpers.hostile_support import GOOD_CASE, Repo, Run
from helpers.junit_support import junit
from helpers.support import load_report
from waiver.read.junit.stream import ELLIPSIS, MAX_MESSAGE_CHARS

# A name with a control character in it (a newline before `::error::`) is refused with its
# report (tests/hostile/test_hostile_control_ids.py).
NAMES = {
    "azure-style-command": "##[error]x",
    "encoded-newline": "x%0A::error::y",
    "pipe": "a|b|c",
    "backticks": "``code`` `x",
    "html-image": "<img src=x onerror=alert(1)>",
    "team-mention": "@org/team please approve",
    "markdown-link": "](http://x) [click](http://evil.example)",
    "markdown-image": "![x](http://evil.example/i.png)",
    "details-close": "</details><script>",
    "bidi-override": "test_\u202eevil\u202c_name",
    "zero-width": "test\u200b_zw\u2060",
    "long": "n" * 10_000,
}


def failing(name: str) -> str:
    return f'<testcase classname="suite.Evil" name={quoteattr(name)}><failure message={quoteattr(name)}/></testcase>'


def outside_code(html: str) -> str:
    """The rendered HTML with the content of every code element removed."""
    return re.sub(r"<code>.*?</code>", "<code></code>", html, flags=re.DOTALL)


@pytest.mark.parametrize("key", sorted(NAMES))
def test_a_hostile_name_is_inert(repo: Repo, checked_gate: Run, key: str) -> None:
    name = NAMES[key]
    for replay in range(1, 6):
        repo.replay(replay, junit(failing(name), '<testcase classname="suite.Good" name="ok"/>'))
    code, _, _ = checked_gate()
    assert code == 1
    report = json.loads((repo.root / "waiver.json").read_text())
    ids = [row["test_id"] for row in report["rows"]]
    assert f"suite.Evil::{name}" in ids
    summary = (repo.root / "summary.md").read_text()
    for line in summary.splitlines():
        assert not line.startswith("::")
    assert "\u202e" not in summary
    assert "\u200b" not in summary
    assert len(summary.encode()) < 20_000
    # Rendered as GitHub renders it (CommonMark + tables, raw HTML allowed, autolinks on):
    html = MarkdownIt("gfm-like").render(summary)
    bare = outside_code(html)
    for inert in ("<img", "<a ", "<script", "@org", "evil.example", "::error"):
        assert inert not in bare, inert
    not_a_pass = html.split("Not a pass (1)</h3>")[1].split("</table>")[0]
    assert not_a_pass.count("<tr>") == 2  # header and the one row
    assert not_a_pass.count("<td>") == 5  # the message is a cell of its own
    assert bare.count("<details>") == bare.count("</details>") == 1


MESSAGES = {
    "mention-image-details": "@org/admins <img src=x> </details>",
    "pipe": "a | b || c",
    "newline-commands": "first\n::error::second\r\n  ::add-mask::x",
    "legacy-commands": "##[error]x ##vso[task.setvariable variable=a]b",
    "backticks": "``x`` `y",
    "link-and-image": "[click](http://evil.example) ![i](http://evil.example/i.png)",
    "bidi-override": "ok\u202egnp.exe",
    "ten-megabytes": "m" * (10 << 20),
}
HOSTILE_ID = "suite.Evil::test_message"


@pytest.mark.parametrize("form", ["attribute", "text"])
@pytest.mark.parametrize("key", sorted(MESSAGES))
def test_a_hostile_failure_message_is_inert_and_capped(
    repo: Repo, checked_gate: Run, key: str, form: str
) -> None:
    message = MESSAGES[key]
    failure = (
        f"<failure message={quoteattr(message)}/>"
        if form == "attribute"
        else f"<failure>{escape(message)}</failure>"
    )
    evil = f'<testcase classname="suite.Evil" name="test_message">{failure}</testcase>'
    for replay in range(1, 6):
        repo.replay(replay, junit(evil, GOOD_CASE))
    code, out, _ = checked_gate()
    assert code == 1
    [row] = [row for row in load_report(repo.root / "waiver.json")["rows"] if "message" in row]
    kept = row["message"]
    assert row["test_id"] == HOSTILE_ID
    assert kept == " ".join(message.split())[: MAX_MESSAGE_CHARS - 1] + (
        ELLIPSIS if len(message) > MAX_MESSAGE_CHARS else ""
    )
    summary = (repo.root / "summary.md").read_text()
    assert len(summary.encode()) < 20_000
    assert "\u202e" not in summary + out
    html = MarkdownIt("gfm-like").render(summary)
    bare = outside_code(html)
    for inert in ("<img", "<a ", "@org", "evil.example", "::error", "##["):
        assert inert not in bare, inert
    assert bare.count("<details>") == bare.count("</details>") == 1  # the passes' list
    not_a_pass = html.split("Not a pass (1)</h3>")[1].split("</table>")[0]
    assert not_a_pass.count("<tr>") == 2
    assert not_a_pass.count("<td>") == 5
    lines = out.splitlines()
    shown = lines[lines.index(f"  stable_assertion_fail  0/5 ✘✘✘✘✘       {HOSTILE_ID}") + 1]
    assert shown.startswith("      ")
    assert len(shown) < 2 * MAX_MESSAGE_CHARS
