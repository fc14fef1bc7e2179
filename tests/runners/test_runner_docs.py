"""docs/runners.md shows the red-green command of each runner as its module gives it, and
docs/harness.md the names each runner family's reach-in scan looks for."""

from __future__ import annotations

from helpers.support import REPO
from waiver.decide.policy import RUNNER_NAMES
from waiver.runners import runner_named
from waiver.runners.node import js_reach
from waiver.runners.pytest import python_reach

HEADER = "| runner | red-green command |\n|---|---|\n"


def test_the_docs_show_each_runner_s_red_green_command_as_written() -> None:
    text = (REPO / "docs" / "runners.md").read_text()
    table = text[text.index(HEADER) + len(HEADER) :].split("\n\n", 1)[0]
    shown = {}
    for row in table.splitlines():
        runner, command = row.strip("|").split(" | ", 1)
        shown[runner.strip()] = command.strip().strip("`")
    assert shown == {name: runner_named(name).red_green_command() for name in RUNNER_NAMES}


def section(title: str) -> str:
    text = (REPO / "docs" / "harness.md").read_text()
    return text[text.index(f"### {title}\n") :].split("\n### ", 1)[0].split("\n## ", 1)[0]


def test_the_docs_name_every_test_mode_and_assertion_name_each_runner_family_looks_for() -> None:
    """The lists live in one module per family; the harness page names each of their
    entries, so a name added to a list is a name documented."""
    detects, relies = section("Code that detects a test run"), section("What assertions rely on")
    listed = {
        detects: [
            *python_reach.TEST_MODE_VARIABLES, *js_reach.TEST_MODE_VARIABLES,
            *js_reach.TEST_MODE_MEMBERS, *js_reach.RUNNER_GLOBALS,
            *js_reach.GLOBAL_OBJECTS, *js_reach.RUNNER_VARIABLES,
            "jest", "vitest", "mocha", "jasmine", js_reach.WORKER_GLOBALS,
        ],
        relies: [
            *python_reach.ASSERTION_MODULES, *python_reach.BUILTIN_TYPES,
            *python_reach.COMPARISON_METHODS, *js_reach.BUILTIN_OBJECTS,
            *js_reach.DEFINERS, *js_reach.RUNNER_OBJECTS,
        ],
    }  # fmt: skip
    for text, names in listed.items():
        missing = [name for name in names if f"`{name}" not in text]
        assert not missing, missing
    assert js_reach.RUNNER_WORDS.pattern.count("|") == 3  # the four words above
