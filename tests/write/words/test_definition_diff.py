"""The diff of an edited test's definition in the summary, the comment and the terminal:
exact against golden files, and inert whatever the change wrote in it (backticks, HTML,
mentions, workflow commands, hidden characters, a huge function)."""

from __future__ import annotations

from typing import Any

from helpers.markdown_support import render_like_github
from helpers.support import REPO, check_golden, report_document
from waiver.github.comment_body import render_comment
from waiver.write.report.report_types import report_of
from waiver.write.summary.summary import RESERVE, render_summary
from waiver.write.words.definition_diff import MAX_SHOWN_LINES, TERMINAL_LINES
from waiver.write.words.terminal import render_terminal

GOLDEN = REPO / "tests" / "golden" / "diff"
LOOSENED = "tests/test_calc.py::test_add"
PARAMETRIZED = [f"tests/test_calc.py::test_cases[`x` <b>{n}</b>]" for n in (1, 2)]
HUGE = "tests/test_calc.py::test_huge @org/admins"
HOSTILE_DIFF = [
    "@@ its definition @@",
    " def test_cases(a):",
    "-    assert add(a, 0) == a",
    "+    assert '```' != '</details><img src=x onerror=alert(1)>'  # @org/admins",
    "+    print('::error::forged')",
    "+    print('##[error]forged')",
    "+    print('\u202eright to left\u202c')",
]
LOOSENED_DIFF = [
    "@@ its definition @@",
    "     got = add(2, 3)",
    "-    assert got == 5",
    "+    assert got is not None",
]


def fences(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.strip("`") == "diff"]


def edited(test_id: str, diff: list[str]) -> dict[str, Any]:
    return {"test_id": test_id, "changes": ["its body"], "findings": [], "diff": diff}


def document() -> dict[str, Any]:
    """A blocked report of three edited tests (one of them parametrized, two ids), each with
    a diff the change wrote, and one line each of a huge function."""
    huge = ["@@ its definition @@", *(f"+    assert add({n}, 0) == {n}" for n in range(300))]
    ids = [LOOSENED, *PARAMETRIZED, HUGE]
    report = report_document([(test_id, "unknown_test") for test_id in ids])
    for row in report["rows"]:
        row.update(unknown="edited", replay_pass=5, outcomes=[True] * 5)
    report["registry"] = {
        "used": True,
        "path": "known-tests.txt",
        "change_lists": ids,
        "edited": [
            edited(LOOSENED, LOOSENED_DIFF),
            *(edited(test_id, HOSTILE_DIFF) for test_id in PARAMETRIZED),
            edited(HUGE, huge),
        ],
    }
    return report


def test_the_summary_shows_each_diff_once_in_a_fence_no_line_can_close() -> None:
    summary = render_summary(report_of(document()))
    check_golden(GOLDEN / "summary.md", summary)
    rendered = render_like_github(summary)
    assert rendered.tags <= {"h2", "h3", "p", "table", "thead", "tbody", "tr", "th", "td",
                             "code", "details", "summary", "pre"}  # fmt: skip
    shown = "".join(rendered.plain_text)
    assert "@org" not in shown and "forged" not in shown and "right to left" not in shown
    # The parametrized ids share one diff; the huge one is cut, saying what is left.
    # The one with three backticks in it is fenced with four.
    assert fences(summary) == ["```diff", "````diff", "```diff"]
    assert f"… {300 + 1 - MAX_SHOWN_LINES + 1} more lines in waiver.json" in summary


def test_the_comment_shows_the_diffs_of_what_awaits_review() -> None:
    comment = render_comment(report_of(document()), None)
    check_golden(GOLDEN / "comment.md", comment)
    rendered = render_like_github(comment)
    assert "img" not in rendered.tags and "b" not in rendered.tags
    assert "@org" not in "".join(rendered.plain_text)


def test_the_terminal_shows_a_short_diff_under_each_edited_test_and_issues_no_command() -> None:
    terminal = render_terminal(document())
    check_golden(GOLDEN / "terminal.txt", terminal)
    lines = terminal.splitlines()
    assert not any(line.lstrip().startswith("::") or "##[" in line for line in lines)
    assert f"      … {300 + 1 - TERMINAL_LINES + 1} more lines in waiver.json" in lines


def test_a_summary_with_no_room_for_a_diff_closes_its_block_and_counts_it() -> None:
    whole = render_summary(report_of(document()))
    cut = render_summary(report_of(document()), limit=len(whole.encode()) + RESERVE - 2000)
    assert cut.count("<details>") == cut.count("</details>")
    assert len(fences(cut)) < 3
    assert "rows left out to stay under 1 MiB" in cut
