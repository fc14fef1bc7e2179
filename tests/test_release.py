"""Releases: CHANGELOG.md keeps an Unreleased section on top and one section per release
(its version, its day, the commit of main it was cut from), every statement of the version
is the newest release's, and .ci/release.py cuts a release, refuses a commit that cuts
none and writes the notes. tests/container/test_release_act.py runs the workflow."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

import waiver
from helpers.release_support import CUT_FILES, Cut, cut_release, release_run, release_script
from helpers.support import REPO, git

release = release_script()
ENTRY = "- A change worth a release."
OLD = "a" * 40


# --- this repository ---------------------------------------------------------------------


def test_the_changelog_is_unreleased_on_top_then_each_release_newest_first() -> None:
    changelog = release.parse_changelog((REPO / "CHANGELOG.md").read_text())
    assert changelog.releases[-1].version == "0.2.0", "0.2.0 is the first release"
    assert changelog.releases[-1].cut_from == "f8e69f36c6a85a296a1e246818a5bb519506b501"


def test_every_statement_of_the_version_is_the_newest_releases() -> None:
    texts = {path: (REPO / path).read_text() for path in release.VERSION_FILES}
    stated = {path: m.group(1) for path, m in release.version_statements(texts).items()}
    version = release.parse_changelog((REPO / "CHANGELOG.md").read_text()).releases[0].version
    assert stated == dict.fromkeys(release.VERSION_FILES, version)
    assert waiver.__version__ == version


def test_the_newest_release_was_cut_as_the_recipe_says(monkeypatch: pytest.MonkeyPatch) -> None:
    if git(REPO, "rev-parse", "--is-shallow-repository") == "true":
        pytest.skip("a shallow clone holds no release commit")
    newest = release.parse_changelog((REPO / "CHANGELOG.md").read_text()).releases[0]
    heading = f"## {newest.version} — "
    writes = git(REPO, "log", "--format=%H", "-S", heading, "--", "CHANGELOG.md").split()
    monkeypatch.chdir(REPO)
    # The oldest commit that changed how often the heading occurs wrote it: the release's.
    assert release.release_at(writes[-1]) == newest


# --- check: what a release commit is -------------------------------------------------------


@pytest.fixture
def cut(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Cut:
    """A repository whose main is a commit and the release cut from it."""
    made = cut_release(tmp_path / "repository", ENTRY, CUT_FILES)
    monkeypatch.chdir(made.folder)
    return made


def refusal(commit: str) -> str:
    with pytest.raises(release.ReleaseError) as refused:
        release.check(commit)
    return str(refused.value)


def test_a_release_commit_gives_its_version_and_tag(cut: Cut) -> None:
    ran = release_run(cut.folder, "check", cut.release)
    assert (ran.returncode, ran.stdout) == (0, f"version={cut.version}\ntag=v{cut.version}\n")


def test_a_commit_that_cuts_no_release_is_refused_with_why(cut: Cut) -> None:
    assert (
        refusal(cut.release[:12])
        == f"{cut.release[:12]!r}: name the release commit by its full SHA"
    )
    assert refusal("b" * 40) == f"{'b' * 40}: no such commit here"
    assert refusal(cut.cut_from) == f"{cut.cut_from}: a release commit has one parent, not 0"
    git(cut.folder, "tag", f"v{cut.version}")
    assert refusal(cut.release) == f"v{cut.version} exists already"
    ran = release_run(cut.folder, "check", cut.release)
    assert (ran.returncode, ran.stdout, ran.stderr) == (
        1,
        "",
        f"release: v{cut.version} exists already\n",
    )


def test_a_release_commit_off_the_branch_is_refused(cut: Cut) -> None:
    git(cut.folder, "checkout", "--quiet", "-b", "other", cut.cut_from)
    assert refusal(cut.release) == f"{cut.release}: not on the history of {cut.cut_from}"


def test_a_release_commit_rebased_onto_another_commit_is_refused(cut: Cut) -> None:
    git(cut.folder, "checkout", "--quiet", "-b", "rebased", cut.cut_from)
    (cut.folder / "other.txt").write_text("another change\n")
    git(cut.folder, "add", "other.txt")
    git(cut.folder, "commit", "--quiet", "-m", "another change")
    other = git(cut.folder, "rev-parse", "HEAD")
    git(cut.folder, "cherry-pick", cut.release)
    rebased = git(cut.folder, "rev-parse", "HEAD")
    assert refusal(rebased) == (
        f"{rebased}: its CHANGELOG.md says {cut.version} was cut from {cut.cut_from}, "
        f"but its parent is {other} (was it squashed or rebased?)"
    )


@pytest.mark.parametrize("left", ["pyproject.toml", "waiver/__init__.py", "docs/action.md"])
def test_a_release_commit_that_leaves_a_statement_of_the_version_is_refused(
    cut: Cut, left: str
) -> None:
    git(cut.folder, "reset", "--quiet", "--hard", cut.cut_from)
    release_run(cut.folder, "cut", cut.version)
    git(cut.folder, "checkout", "--", left)
    git(cut.folder, "commit", "--quiet", "-am", "a release without its version")
    commit = git(cut.folder, "rev-parse", "HEAD")
    old = release.parse_changelog((REPO / "CHANGELOG.md").read_text()).releases[0].version
    assert refusal(commit) == f"{commit}: {left} says {old}, CHANGELOG.md {cut.version}"


# --- cut: the release commit's edits ---------------------------------------------------------

CHANGELOG = f"""\
# Changelog

What changed.

## Unreleased

- One.
- Two.

## 0.2.0 — 2026-12-06

Cut from `{OLD}` on main.

- Old.
"""


@pytest.fixture
def small(tmp_path: Path) -> Path:
    """A repository of the files `cut` edits, at 0.2.0, committed."""
    files = {
        "CHANGELOG.md": CHANGELOG,
        "pyproject.toml": '[project]\nname = "waiver"\nversion = "0.2.0"\n',
        "waiver/__init__.py": '"""waiver."""\n\n__version__ = "0.2.0"\n',
        "docs/action.md": "      - uses: OWNER/waiver@v0.2.0\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    git(tmp_path, "init", "--quiet")
    git(tmp_path, "add", "--all")
    git(tmp_path, "commit", "--quiet", "-m", "main")
    return tmp_path


def test_cut_moves_unreleased_into_a_section_and_states_the_version(small: Path) -> None:
    head = git(small, "rev-parse", "HEAD")

    release.cut("0.3.0", small, datetime.date(2026, 12, 24))

    assert (small / "CHANGELOG.md").read_text() == (
        "# Changelog\n\nWhat changed.\n\n## Unreleased\n\nNothing yet.\n\n"
        f"## 0.3.0 — 2026-12-24\n\nCut from `{head}` on main.\n\n- One.\n- Two.\n\n"
        f"## 0.2.0 — 2026-12-06\n\nCut from `{OLD}` on main.\n\n- Old.\n"
    )
    assert (small / "pyproject.toml").read_text() == (
        '[project]\nname = "waiver"\nversion = "0.3.0"\n'
    )
    assert (small / "waiver/__init__.py").read_text() == '"""waiver."""\n\n__version__ = "0.3.0"\n'
    assert (small / "docs/action.md").read_text() == "      - uses: OWNER/waiver@v0.3.0\n"


@pytest.mark.parametrize(
    ("version", "prepare", "problem"),
    [
        ("0.3", None, "'0.3': a version is X.Y.Z"),
        ("0.2.0", None, "0.2.0 is not newer than 0.2.0"),
        ("0.3.0", "dirty", "the checkout has changes: cut a release from a clean commit"),
        ("0.3.0", "nothing", "Unreleased lists no change to release"),
    ],
)
def test_cut_refuses_what_would_not_make_a_release(
    small: Path, version: str, prepare: str | None, problem: str
) -> None:
    if prepare == "dirty":
        (small / "notes.txt").write_text("uncommitted\n")
    if prepare == "nothing":
        text = CHANGELOG.replace("- One.\n- Two.", "Nothing yet.")
        (small / "CHANGELOG.md").write_text(text)
        git(small, "commit", "--quiet", "-am", "nothing to release")
    before = {
        path: path.read_text()
        for path in small.rglob("*")
        if path.is_file() and ".git" not in path.parts
    }

    with pytest.raises(release.ReleaseError, match="^" + problem.replace(".", r"\.") + "$"):
        release.cut(version, small, datetime.date(2026, 12, 24))

    after = {
        path: path.read_text()
        for path in small.rglob("*")
        if path.is_file() and ".git" not in path.parts
    }
    assert after == before


# --- the changelog's shape ---------------------------------------------------------------


def changelog(*sections: str, title: str = "# Changelog") -> str:
    return "\n\n".join([title, *sections]) + "\n"


UNRELEASED = "## Unreleased\n\n- One."


def section(heading: str, cut_from: str = OLD) -> str:
    return f"{heading}\n\nCut from `{cut_from}`."


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (changelog(UNRELEASED, title="# Changes"), "the changelog opens with `# Changelog`"),
        (
            changelog(section("## 0.2.0 — 2026-12-06"), UNRELEASED),
            "the first section is `## Unreleased`: changes go there first",
        ),
        (changelog("## Unreleased"), "Unreleased lists its changes, or says `Nothing yet.`"),
        (
            changelog(UNRELEASED, section("## 0.2.0 - 2026-12-06")),
            "'## 0.2.0 - 2026-12-06': a release's heading is `## X.Y.Z — YYYY-MM-DD`",
        ),
        (
            changelog(UNRELEASED, section("## 0.2.0 — 2026-13-06")),
            "'## 0.2.0 — 2026-13-06': 2026-13-06 is not a day",
        ),
        (
            changelog(UNRELEASED, section("## 0.2.0 — 2026-12-06", "f8e69f3")),
            "'## 0.2.0 — 2026-12-06': its first line says `Cut from` and the commit's full SHA",
        ),
        (
            changelog(
                UNRELEASED, section("## 0.2.0 — 2026-12-06"), section("## 0.10.0 — 2026-12-01")
            ),
            "0.2.0 is listed above 0.10.0: newest first",
        ),
        (
            changelog(
                UNRELEASED, section("## 0.3.0 — 2026-12-01"), section("## 0.2.0 — 2026-12-06")
            ),
            "0.3.0 is dated before 0.2.0",
        ),
    ],
    ids=["title", "unreleased-first", "unreleased-empty", "heading", "day", "cut-from", "order",
         "dates"],
)  # fmt: skip
def test_a_changelog_out_of_shape_is_refused_with_why(text: str, problem: str) -> None:
    with pytest.raises(release.ReleaseError) as refused:
        release.parse_changelog(text)
    assert str(refused.value) == problem


def test_a_version_stated_twice_or_not_at_all_is_refused() -> None:
    texts = {path: (REPO / path).read_text() for path in release.VERSION_FILES}
    texts["docs/action.md"] += "\n      - uses: OWNER/waiver@v0.0.1\n"
    with pytest.raises(release.ReleaseError, match=r"^docs/action\.md: states the version 2 times"):
        release.version_statements(texts)
    texts["docs/action.md"] = ""
    with pytest.raises(release.ReleaseError, match=r"^docs/action\.md: states the version 0 times"):
        release.version_statements(texts)


# --- the notes -------------------------------------------------------------------------------


def test_the_notes_are_the_section_with_its_links_at_the_pinned_commit() -> None:
    section = release.Release(
        "0.3.0", datetime.date(2026, 12, 24), OLD,
        f"Cut from `{OLD}` on main.\n\n- New ([review](docs/review.md#merge-queues)), see "
        "[act](https://github.com/nektos/act) and [below](#below), and [the licence](LICENSE).",
    )  # fmt: skip
    pin, image = "c" * 40, "ghcr.io/owner/waiver@sha256:" + "d" * 64
    url = "https://github.com/owner/waiver"

    notes = release.notes(section, image, pin, url)

    at_pin = f"{url}/blob/{pin}"
    assert notes == (
        f"Cut from `{OLD}` on main.\n\n- New ([review]({at_pin}/docs/review.md#merge-queues)), "
        "see [act](https://github.com/nektos/act) and [below](#below), and "
        f"[the licence]({at_pin}/LICENSE).\n\n---\n\n"
        f"Pin this release by its commit `{pin}` (the tag `v0.3.0`). The action's image, built "
        f"from it for linux/amd64 and linux/arm64, is `{image}`; its build provenance is "
        f"attested (`gh attestation verify oci://{image} --repo owner/waiver`).\n"
    )
