"""The fixture set in the work tree: the folder the lock's fixtures lie in, and the files
under it that the policy's `fixtures:` globs name, found without following a link.

What is found is hashed into the lock (`waiver.read.lock.lock_file`); a fixture must be
bytes in the repository, so a symlink or a special file the globs name is an input error.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from fnmatch import fnmatchcase
from pathlib import Path

from waiver.errors import InputError
from waiver.read.policy.globs import path_glob
from waiver.read.trusted.trees import check_name, scan_error

WILDCARD = re.compile(r"[*?\[]")


def fixtures_folder(root: str, fixtures: str) -> str:
    """The fixtures folder as a path relative to the repository root."""
    root_path = Path(root).resolve()
    candidate = Path(fixtures)
    if candidate.is_symlink():
        raise InputError(fixtures, "the fixtures folder is a symlink")
    if not candidate.is_dir():
        raise InputError(fixtures, "the fixtures folder does not exist")
    resolved = candidate.resolve()
    if not resolved.is_relative_to(root_path):
        raise InputError(fixtures, f"the fixtures folder is outside the repository root {root}")
    relative = resolved.relative_to(root_path).as_posix()
    return "" if relative == "." else relative


def fixture_glob_matches(pattern: str, inner: str) -> bool:
    """Whether a fixture glob matches a path inside the fixtures folder."""
    return fnmatchcase(inner, path_glob(pattern))


def _reachable(inner: str, patterns: Sequence[str]) -> bool:
    """Whether a path inside the folder `inner` (relative to the fixtures folder) can match a
    pattern: the pattern's text before its first wildcard and the folder agree."""
    folder = inner + "/"
    for pattern in patterns:
        prefix = WILDCARD.split(path_glob(pattern), maxsplit=1)[0]
        if prefix.startswith(folder) or folder.startswith(prefix):
            return True
    return not patterns


def scan_fixtures(
    root: str, folder: str, patterns: Sequence[str], skipped: Callable[[str], bool]
) -> list[str]:
    """Every fixture file under `folder` whose folder-relative path matches a pattern.

    Symlinks and special files in the set are input errors: a fixture must be bytes
    in the repository, not a pointer to something the gate would have to trust. A folder
    no pattern can reach (a virtualenv beside `tests/data/*`, say) holds no fixture, so it
    is not entered, and a symlink to a folder there is no error; nor is a folder that
    `skipped` names (one git ignores, `waiver.read.trusted.ignored`), or anything in it.
    """
    found: list[str] = []
    pending = [folder]
    while pending:
        current = pending.pop()
        try:
            with os.scandir(os.path.join(root, current)) as scanned:
                entries = list(scanned)
        except OSError as error:
            raise scan_error(current, error) from None
        for entry in entries:
            path = check_name(f"{current}/{entry.name}" if current else entry.name)
            if entry.is_dir(follow_symlinks=False) and skipped(path):
                continue
            inner = path[len(folder) + 1 :] if folder else path
            matches = not patterns or any(fixture_glob_matches(p, inner) for p in patterns)
            if entry.is_symlink():
                if matches or (entry.is_dir() and _reachable(inner, patterns)):
                    raise InputError(
                        path,
                        "a symlink in the fixture set, which the lock cannot hold (it holds "
                        "bytes, not what a link points to): replace it by a copy of its "
                        "target, or leave it out of the policy's `fixtures:` globs",
                    )
            elif entry.is_dir(follow_symlinks=False):
                if _reachable(inner, patterns):
                    pending.append(path)
            elif entry.is_file(follow_symlinks=False):
                if matches:
                    found.append(path)
            elif matches:
                raise InputError(path, "not a regular file in the fixture set")
    return sorted(found)
