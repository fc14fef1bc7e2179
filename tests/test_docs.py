"""The README is the front page and docs/ the reference: every relative link between them
lands on a file and a heading that exist, and the front page stays short, with the workflow
on its first screen."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from helpers.support import REPO, check_caller_workflow, first_caller_workflow
from waiver.cli import build_parser

DOCS = sorted((REPO / "docs").glob("*.md"))
CHANGELOG = REPO / "CHANGELOG.md"
PAGES = [REPO / "README.md", CHANGELOG, *DOCS]
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
    pages = {"CHANGELOG.md", *(f"docs/{page.name}" for page in DOCS)}
    assert pages <= linked, sorted(pages - linked)


def documentation_rows(readme: str) -> list[str]:
    """The page each row of the front page's documentation table links, in order."""
    section = readme.partition("## Documentation\n")[2].lstrip("\n").partition("\n\n")[0]
    return [LINK.findall(row)[0] for row in section.splitlines()[2:]]


def test_no_row_of_the_documentation_table_repeats_a_page() -> None:
    rows = documentation_rows((REPO / "README.md").read_text())
    assert len(rows) > len(DOCS)
    assert [page for page in rows if rows.count(page) > 1] == []


def test_the_row_check_sees_a_page_listed_twice() -> None:
    readme = (
        "## Documentation\n\n| page | covers |\n|---|---|\n| [A](docs/a.md) | a |\n"
        "| [B](docs/b.md) | b |\n| [A again](docs/a.md) | more |\n\nMIT.\n"
    )
    assert documentation_rows(readme) == ["docs/a.md", "docs/b.md", "docs/a.md"]


def test_the_development_page_names_every_test_helper_module() -> None:
    page = (REPO / "docs" / "development.md").read_text()
    helpers = sorted((REPO / "tests" / "helpers").glob("[!_]*.py"))
    assert len(helpers) > 10
    assert [path.name for path in helpers if f"`{path.name}`" not in page] == []


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


# --- waiver never runs from the working directory ------------------------------------

# Every text that tells someone, or a runner, how to start waiver. A module run there must
# leave the working directory off sys.path: from a change's checkout, `-m` alone would run a
# `waiver/` package the change commits.
RECIPES = [
    *PAGES,
    *sorted(path for path in (REPO / "examples").rglob("*") if path.is_file()),
    *sorted((REPO / ".github" / "workflows").glob("*.yml")),
    REPO / "action.yml",
    *sorted((REPO / "action").glob("*.sh")),
    REPO / "Dockerfile",
]
MODULE_RUN = re.compile(r"(?<!\S)-m\s+waiver\b")
ISOLATED = re.compile(r"(?<!\S)-[IP]\s+$")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def bare_module_runs(lines: list[str]) -> list[str]:
    """The lines that run waiver as a module without `-P` or `-I` just before `-m`."""
    return [
        line.strip()
        for line in lines
        if any(not ISOLATED.search(line[: run.start()]) for run in MODULE_RUN.finditer(line))
    ]


def unisolated_module_runs(text: str, markdown: bool) -> list[str]:
    """The lines of code, and the sentences of Markdown prose, that run waiver as a module
    with the working directory on sys.path. Prose may name the bare form only in a sentence
    that says never to use it; code, fenced or not, may not name it at all."""
    if not markdown:
        return bare_module_runs(text.splitlines())
    code = [line for block in FENCE.findall(text) for line in block.splitlines()]
    sentences = SENTENCE_END.split(" ".join(prose(text).split()))
    return bare_module_runs(code) + [
        sentence for sentence in bare_module_runs(sentences) if "never" not in sentence.lower()
    ]


@pytest.mark.parametrize("path", RECIPES, ids=lambda path: path.relative_to(REPO).as_posix())
def test_every_recipe_runs_waiver_with_the_working_directory_off_sys_path(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    assert unisolated_module_runs(text, path.suffix == ".md") == []


def test_the_recipe_check_sees_a_bare_module_run_in_code_and_in_prose() -> None:
    code = (
        'python -m waiver gate --out w.json\n"$python" -m waiver replay -n 5\n'
        '--entrypoint python3 "$image" -m waiver check-lock\npython3 -m waiver.cli\n'
        'python -P -m waiver gate\n--entrypoint python3 "$image" -P -m waiver check-lock\n'
        "python -I -m waiver gate\npython -m waiverlike\n"
    )
    assert unisolated_module_runs(code, markdown=False) == [
        "python -m waiver gate --out w.json",
        '"$python" -m waiver replay -n 5',
        '--entrypoint python3 "$image" -m waiver check-lock',
        "python3 -m waiver.cli",
    ]
    page = (
        "`python -m waiver` works the same way.\n\nNever run the gate as\n"
        "`python -m waiver` from a checkout.\n\n```\n# never\npython -m waiver gate\n```\n"
    )
    assert unisolated_module_runs(page, markdown=True) == [
        "python -m waiver gate",
        "`python -m waiver` works the same way.",
    ]
