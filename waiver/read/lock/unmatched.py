"""A policy glob that matches nothing is a mistake in the policy, never a narrower set.

A `harness:` glob that names no file locks nothing, so the files it was written for could
change unseen; a fixture glob that matches no file shrinks the fixture set without a word.
Both are input errors that name the glob. The lock is written from the work tree, so there
a glob must match a file of the tree; the gate also counts the files of the trusted lock,
so that a change that deletes what a glob names is drift (`missing`), not an error.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from waiver.errors import InputError
from waiver.read.harness.named import glob_names
from waiver.read.lock.fixture_set import fixture_glob_matches
from waiver.read.policy.settings import Settings

HARNESS_HINT = (
    "a glob without '/' matches a file name in any folder, one with '/' or a leading '/' "
    "the path from the repository root; git-ignored folders are not searched"
)
FIXTURES_HINT = "fixture globs match paths inside the fixtures folder"


def _where(settings: Settings, key: str, number: int) -> tuple[str, str]:
    """The source and key path of the `number`th glob of `key`: the policy file's or a flag's."""
    if settings.sources.get(key) == "flag":
        return "--pattern", ""
    return settings.config or key, f"{key}[{number}]: "


def _check(
    settings: Settings,
    key: str,
    patterns: Collection[str],
    matches: Callable[[str], bool],
    hint: str,
) -> None:
    for number, pattern in enumerate(patterns):
        if not matches(pattern):
            source, where = _where(settings, key, number)
            raise InputError(source, f"{where}{pattern!r} matches no file ({hint})")


def check_globs_match(
    settings: Settings, folder: str | None, fixtures: Collection[str], harness: Collection[str]
) -> None:
    """Each fixture glob matches one of `fixtures` (repository paths under `folder`) and
    each `harness:` glob one of `harness` (repository paths)."""
    prefix = f"{folder}/" if folder else ""
    inner = [path[len(prefix) :] for path in fixtures if path.startswith(prefix)]
    names = [(path, path.rpartition("/")[2]) for path in harness]

    def fixture_matched(pattern: str) -> bool:
        return any(fixture_glob_matches(pattern, path) for path in inner)

    def harness_matched(pattern: str) -> bool:
        return any(glob_names(pattern, path, name) for path, name in names)

    _check(settings, "fixtures", settings.policy.fixtures, fixture_matched, FIXTURES_HINT)
    _check(settings, "harness", settings.policy.harness, harness_matched, HARNESS_HINT)
