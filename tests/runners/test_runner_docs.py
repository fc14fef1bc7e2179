"""docs/runners.md shows the red-green command of each runner as its module gives it."""

from __future__ import annotations

from helpers.support import REPO
from waiver.runners import runner_named

HEADER = "| runner | red-green command |\n|---|---|\n"


def test_the_docs_show_each_runner_s_red_green_command_as_written() -> None:
    text = (REPO / "docs" / "runners.md").read_text()
    table = text[text.index(HEADER) + len(HEADER) :].split("\n\n", 1)[0]
    shown = {}
    for row in table.splitlines():
        runner, command = row.strip("|").split(" | ", 1)
        shown[runner.strip()] = command.strip().strip("`")
    assert shown == {
        name: runner_named(name).red_green_command()
        for name in ("pytest", "jest", "vitest", "mocha")
    }
