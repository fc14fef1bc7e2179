"""A release of waiver: its section of CHANGELOG.md, the commit that cuts it, and its notes.

A release is cut in one commit on top of a commit of main, the release commit: it sets the
version and moves the Unreleased entries into a section headed `## X.Y.Z — YYYY-MM-DD`
whose first line is "Cut from `<the parent's full SHA>`". The release workflow
(.github/workflows/release.yml) checks that commit, tags the commit it records the image's
digest in, and publishes this section as the release's notes. docs/development.md,
"Cutting a release", says it step by step.

    python3 .ci/release.py cut VERSION     the release commit's edits, in a clean checkout
    python3 .ci/release.py check COMMIT    COMMIT cuts a release: `version=` and `tag=` lines
    python3 .ci/release.py notes COMMIT --image REF --pin SHA --repository-url URL

`check` and `notes` read COMMIT's files from git, so they judge a release commit made
before this script existed the same way; tests/test_release.py holds CHANGELOG.md and the
version to the same rules.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

CHANGELOG = "CHANGELOG.md"
UNRELEASED = "## Unreleased"
NOTHING_YET = "Nothing yet."
VERSION = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")
RELEASE_HEADING = re.compile(rf"## ({VERSION.pattern}) — (\d{{4}}-\d{{2}}-\d{{2}})")
CUT_FROM = re.compile(r"Cut from `([0-9a-f]{40})`")
FULL_SHA = re.compile(r"[0-9a-f]{40}")
# Each file that states the version, and the pattern of the statement (its group 1 is it).
VERSION_FILES = {
    "pyproject.toml": re.compile(r'^version = "([^"]*)"$', re.MULTILINE),
    "waiver/__init__.py": re.compile(r'^__version__ = "([^"]*)"$', re.MULTILINE),
    "docs/action.md": re.compile(r"uses: OWNER/waiver@v(\S+)"),
}
# A Markdown link whose target is a path in the repository (no scheme, no bare fragment).
RELATIVE_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|#)([^)\s]+)\)")


class ReleaseError(Exception):
    """A changelog, a version or a commit that does not cut a release as the recipe says."""


@dataclass(frozen=True)
class Release:
    version: str
    date: datetime.date
    cut_from: str  # the full SHA of the commit of main it was cut from
    body: str  # the section below its heading, without the blank lines around it


@dataclass(frozen=True)
class Changelog:
    head: str  # the title and the words above Unreleased
    unreleased: str  # Unreleased's entries, or "Nothing yet."
    releases: tuple[Release, ...]  # newest first


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _release(heading: str, body: str) -> Release:
    match = RELEASE_HEADING.fullmatch(heading)
    if match is None:
        raise ReleaseError(f"{heading!r}: a release's heading is `## X.Y.Z — YYYY-MM-DD`")
    version, date = match.group(1), match.group(5)
    try:
        day = datetime.date.fromisoformat(date)
    except ValueError:
        raise ReleaseError(f"{heading!r}: {date} is not a day") from None
    cut = CUT_FROM.match(body)
    if cut is None:
        raise ReleaseError(f"{heading!r}: its first line says `Cut from` and the commit's full SHA")
    return Release(version, day, cut.group(1), body)


def parse_changelog(text: str) -> Changelog:
    """The changelog's sections; a ReleaseError where its shape is not the recipe's."""
    parts = re.split(r"^(## .*)$", text, flags=re.MULTILINE)
    head, sections = parts[0], list(zip(parts[1::2], parts[2::2], strict=True))
    if not head.startswith("# Changelog\n"):
        raise ReleaseError("the changelog opens with `# Changelog`")
    if not sections or sections[0][0] != UNRELEASED:
        raise ReleaseError("the first section is `## Unreleased`: changes go there first")
    unreleased = sections[0][1].strip()
    if unreleased != NOTHING_YET and not re.search(r"^- ", unreleased, re.MULTILINE):
        raise ReleaseError(f"Unreleased lists its changes, or says `{NOTHING_YET}`")
    releases = tuple(_release(heading, body.strip()) for heading, body in sections[1:])
    for newer, older in itertools.pairwise(releases):
        if version_key(newer.version) <= version_key(older.version):
            raise ReleaseError(f"{newer.version} is listed above {older.version}: newest first")
        if newer.date < older.date:
            raise ReleaseError(f"{newer.version} is dated before {older.version}")
    return Changelog(head, unreleased, releases)


def version_statements(texts: dict[str, str]) -> dict[str, re.Match[str]]:
    """Where each of VERSION_FILES states the version (group 1), from their texts."""
    statements = {}
    for path, pattern in VERSION_FILES.items():
        found = list(pattern.finditer(texts[path]))
        if len(found) != 1:
            raise ReleaseError(f"{path}: states the version {len(found)} times, not once")
        statements[path] = found[0]
    return statements


# --- git -------------------------------------------------------------------------------


def git(*arguments: str) -> str:
    completed = subprocess.run(["git", *arguments], capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise ReleaseError(f"git {' '.join(arguments)}: {completed.stderr.strip()}")
    return completed.stdout.strip()


def succeeds(*arguments: str) -> bool:
    return subprocess.run(["git", *arguments], capture_output=True, check=False).returncode == 0


def file_at(commit: str, path: str) -> str:
    return git("show", f"{commit}:{path}")


# --- the commands ----------------------------------------------------------------------


def release_at(commit: str) -> Release:
    """The release `commit` cuts, when it is a release commit of HEAD's history: one
    parent, named by the newest section of its CHANGELOG.md, whose version each of its
    VERSION_FILES states."""
    if FULL_SHA.fullmatch(commit) is None:
        raise ReleaseError(f"{commit!r}: name the release commit by its full SHA")
    if not succeeds("cat-file", "-e", f"{commit}^{{commit}}"):
        raise ReleaseError(f"{commit}: no such commit here")
    if not succeeds("merge-base", "--is-ancestor", commit, "HEAD"):
        raise ReleaseError(f"{commit}: not on the history of {git('rev-parse', 'HEAD')}")
    parents = git("rev-list", "--parents", "-n", "1", commit).split()[1:]
    if len(parents) != 1:
        raise ReleaseError(f"{commit}: a release commit has one parent, not {len(parents)}")
    releases = parse_changelog(file_at(commit, CHANGELOG)).releases
    if not releases:
        raise ReleaseError(f"{commit}: its {CHANGELOG} has no release section")
    release = releases[0]
    if release.cut_from != parents[0]:
        raise ReleaseError(
            f"{commit}: its {CHANGELOG} says {release.version} was cut from "
            f"{release.cut_from}, but its parent is {parents[0]} (was it squashed or rebased?)"
        )
    texts = {path: file_at(commit, path) for path in VERSION_FILES}
    for path, statement in version_statements(texts).items():
        if statement.group(1) != release.version:
            raise ReleaseError(
                f"{commit}: {path} says {statement.group(1)}, {CHANGELOG} {release.version}"
            )
    return release


def check(commit: str) -> Release:
    """The release `commit` cuts, when its tag does not exist yet."""
    release = release_at(commit)
    if succeeds("rev-parse", "--quiet", "--verify", f"refs/tags/v{release.version}"):
        raise ReleaseError(f"v{release.version} exists already")
    return release


def notes(release: Release, image: str, pin: str, repository_url: str) -> str:
    """The release's notes: its section, with the links into the repository made absolute
    at the pinned commit, and what to pin."""
    body = RELATIVE_LINK.sub(rf"]({repository_url}/blob/{pin}/\1)", release.body)
    repository = "/".join(repository_url.split("/")[-2:])
    return (
        f"{body}\n\n---\n\nPin this release by its commit `{pin}` (the tag "
        f"`v{release.version}`). The action's image, built from it for linux/amd64 and "
        f"linux/arm64, is `{image}`; its build provenance is attested "
        f"(`gh attestation verify oci://{image} --repo {repository}`).\n"
    )


def cut(version: str, root: Path, today: datetime.date) -> None:
    """The release commit's edits in the checkout at `root`, whose HEAD is cut."""
    if VERSION.fullmatch(version) is None:
        raise ReleaseError(f"{version!r}: a version is X.Y.Z")
    if git("-C", str(root), "status", "--porcelain"):
        raise ReleaseError("the checkout has changes: cut a release from a clean commit")
    head = git("-C", str(root), "rev-parse", "HEAD")
    texts = {path: (root / path).read_text() for path in (CHANGELOG, *VERSION_FILES)}
    changelog = parse_changelog(texts[CHANGELOG])
    if changelog.unreleased == NOTHING_YET:
        raise ReleaseError("Unreleased lists no change to release")
    if changelog.releases and version_key(version) <= version_key(changelog.releases[0].version):
        raise ReleaseError(f"{version} is not newer than {changelog.releases[0].version}")
    text = texts[CHANGELOG]
    first_release = text.find("\n## ", text.index(UNRELEASED) + 1)
    older = "" if first_release < 0 else text[first_release + 1 :]
    texts[CHANGELOG] = (
        f"{changelog.head}{UNRELEASED}\n\n{NOTHING_YET}\n\n"
        f"## {version} — {today.isoformat()}\n\nCut from `{head}` on main.\n\n"
        f"{changelog.unreleased}\n" + (f"\n{older}" if older else "")
    )
    for path, statement in version_statements(texts).items():
        texts[path] = texts[path][: statement.start(1)] + version + texts[path][statement.end(1) :]
    for path, text in texts.items():
        (root / path).write_text(text)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog=".ci/release.py", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    cut_parser = commands.add_parser("cut", help="the release commit's edits, in this checkout")
    cut_parser.add_argument("version")
    check_parser = commands.add_parser("check", help="COMMIT cuts a release whose tag is free")
    check_parser.add_argument("commit")
    notes_parser = commands.add_parser("notes", help="the release's notes, on stdout")
    notes_parser.add_argument("commit")
    notes_parser.add_argument("--image", required=True, help="the pushed image, by digest")
    notes_parser.add_argument("--pin", required=True, help="the commit the tag names")
    notes_parser.add_argument("--repository-url", required=True, help="https://HOST/OWNER/NAME")
    args = parser.parse_args(argv)
    try:
        if args.command == "cut":
            cut(args.version, Path.cwd(), datetime.datetime.now(datetime.UTC).date())
        elif args.command == "check":
            release = check(args.commit)
            print(f"version={release.version}\ntag=v{release.version}")
        else:
            print(notes(check(args.commit), args.image, args.pin, args.repository_url), end="")
    except ReleaseError as error:
        print(f"release: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
