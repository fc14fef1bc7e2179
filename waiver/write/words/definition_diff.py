"""The diff of each edited test's definition, as the summary, the comment and the terminal
show it beside the test's changes and kinds of edit.

The diff is the change's own text: every line is spelled out (`visible_text`) and cut,
and a report read back is capped again here, whatever it holds. In Markdown the lines sit
in a fenced block whose fence is longer than any run of backticks in them, so no line can
close it, and inside it GitHub renders no HTML, link, image or mention; the block is
added whole or not at all, inside a `<details>` the budget always closes.
"""

from __future__ import annotations

from collections.abc import Sequence

from waiver.write.report.report_types import EditedTestJson
from waiver.write.summary.budget import Budget
from waiver.write.words.escape import BACKTICK_RUN, log_line, md_code, visible_text
from waiver.write.words.why import EditedLine

# Lines of one test's diff shown, and characters of each: the gate writes no more, and a
# report read back is held to the same.
MAX_SHOWN_LINES = 40
MAX_SHOWN_LINE = 200
# The terminal shows fewer: its lines sit between the verdict and the rest of the log.
TERMINAL_LINES = 12
TITLE = "What changed in each edited test's definition, by its syntax tree"


def shown_diff(edited: EditedTestJson, limit: int = MAX_SHOWN_LINES) -> list[str]:
    """The test's diff lines, each spelled out and cut, at most `limit` of them, the last
    saying how many more waiver.json holds."""
    lines = list(edited.get("diff", ()))
    shown = [visible_text(line, MAX_SHOWN_LINE) for line in lines[:limit]]
    if len(lines) > limit:
        shown[-1] = f"… {len(lines) - limit + 1} more lines in waiver.json"
    return shown


def fenced(lines: Sequence[str]) -> list[str]:
    """`lines` as a fenced `diff` block that none of them can close."""
    longest = max((len(run) for line in lines for run in BACKTICK_RUN.findall(line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}diff", *lines, fence]


def diff_blocks(out: Budget, lines: Sequence[EditedLine]) -> int:
    """A folded block of each edited test's diff, the ids of one parametrized function that
    share it once (the lines of `group_edited`); returns how many tests' diffs did not fit."""
    groups = [line for line in lines if line.test.get("diff")]
    if not groups:
        return 0
    out.add("")
    if not out.open(f"<details><summary>{TITLE} ({len(groups)})</summary>", ["", "</details>"]):
        return sum(line.tests for line in groups)
    left_out = 0
    for number, line in enumerate(groups):
        if not out.add_all(
            ["", md_code(line.test_id) + line.note, "", *fenced(shown_diff(line.test))]
        ):
            left_out = sum(rest.tests for rest in groups[number:])
            break
    out.close()
    return left_out


def terminal_diff(edited: EditedTestJson) -> list[str]:
    """The test's diff as log lines under its line in the terminal, each unable to start a
    workflow command."""
    return [f"      {log_line(line)}" for line in shown_diff(edited, TERMINAL_LINES)]
