"""The README is the front page and docs/ the reference: every relative link between them
lands on a file and a heading that exist, and the front page stays short, with the workflow
on its first screen."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from support import REPO, check_caller_workflow, first_caller_workflow
from waiver.cli import build_parser

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
WORKFLOW = REPO / ".github" / "workflows" / "waiver-gate.yml"


def prose(text: str) -> str:
    """The text outside fenced code blocks, where links are links."""
    return FENCE.sub("", text)


def anchors(page: Path) -> set[str]:
    """The fragment ids GitHub gives the page's headings: lower case, punctuation dropped
    (but `-` and `_`), spaces as `-`, and `-1`, `-2`, ... for repeats."""
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6} (.+)$", prose(page.read_text()), re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def relative_links(page: Path) -> list[str]:
    return [
        target
        for target in LINK.findall(prose(page.read_text()))
        if not re.match(r"[a-z][a-z0-9+.-]*:", target)  # https:, mailto:, ...
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(REPO).as_posix())
def test_every_relative_link_lands_on_a_file_and_a_heading(page: Path) -> None:
    for target in relative_links(page):
        path, _, fragment = target.partition("#")
        destination = (page.parent / path).resolve() if path else page
        assert destination.is_file(), f"{page.name}: {target} names no file"
        assert REPO in destination.parents, f"{page.name}: {target} leaves the repository"
        if fragment:
            assert fragment in anchors(destination), f"{page.name}: {target} names no heading"


def test_the_link_check_sees_a_broken_link_and_a_missing_heading(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n## `waiver replay`: N replays\n\n[a](other.md) [b](#nowhere)\n")
    assert relative_links(page) == ["other.md", "#nowhere"]
    assert anchors(page) == {"title", "waiver-replay-n-replays"}


def test_every_docs_page_is_linked_from_the_front_page() -> None:
    linked = {target.partition("#")[0] for target in relative_links(REPO / "README.md")}
    pages = {f"docs/{page.name}" for page in PAGES[1:]}
    assert pages <= linked, sorted(pages - linked)


def test_the_front_page_is_short_and_shows_the_workflow_on_its_first_screen() -> None:
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) <= 300
    assert any(line.lstrip().startswith("uses:") for line in lines[:80])


def test_the_front_page_workflow_calls_the_reusable_workflow_with_its_inputs(
    tmp_path: Path,
) -> None:
    text, job = first_caller_workflow(REPO / "README.md")
    check_caller_workflow(text, job, tmp_path)


def long_options(parser: argparse.ArgumentParser) -> set[str]:
    """Every `--flag` of a parser and of the subcommands below it, but `--help`."""
    options = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for subparser in action.choices.values():
                options |= long_options(subparser)
        options.update(o for o in action.option_strings if o.startswith("--") and o != "--help")
    return options


def test_the_command_page_names_every_subcommand_and_flag() -> None:
    page = (REPO / "docs" / "commands.md").read_text()
    [subparsers] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    for name, parser in subparsers.choices.items():
        assert re.search(rf"^waiver {re.escape(name)}\b", page, re.MULTILINE), name
        missing = {flag for flag in long_options(parser) if flag not in page}
        assert not missing, f"waiver {name}: {sorted(missing)}"
