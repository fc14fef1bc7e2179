"""The fixture lock (GNU sha256sum format) and the fixture tree it protects.

Lock text is read strictly and never handed to `sha256sum -c`, which would follow
`../` paths. Fixture bytes are hashed as stored, through `open_beneath`.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from waiver.errors import InputError
from waiver.read.files import open_beneath, read_chunks, split_relative

LOCK_LINE = re.compile(r"([0-9a-f]{64}) [ *](.+)", re.DOTALL)
UNESCAPES = {"\\": "\\", "n": "\n", "r": "\r"}
MAX_LOCK_BYTES = 16 << 20
RELATIVE_HINT = (
    "lock paths are relative to the repository root, without './': write the lock with "
    "'waiver lock --fixtures DIR', or from the root with "
    '"find fixtures -type f -print0 | sort -z | xargs -0 sha256sum > fixture.lock"'
)


@dataclass(frozen=True)
class LockEntry:
    path: str
    digest: str


@dataclass(frozen=True)
class Drift:
    path: str
    kind: str  # "changed", "missing" or "not_in_lock"


@dataclass(frozen=True)
class FixtureState:
    """The fixtures as found in the working tree, compared against the trusted lock."""

    tree: tuple[LockEntry, ...]
    drift: tuple[Drift, ...]


def _unescape(text: str, source: str, number: int) -> str:
    out: list[str] = []
    chars = iter(text)
    for char in chars:
        if char != "\\":
            out.append(char)
            continue
        following = next(chars, "")
        if following not in UNESCAPES:
            raise InputError(source, f"line {number}: unknown escape '\\{following}' in path")
        out.append(UNESCAPES[following])
    return "".join(out)


def parse_lock(data: bytes, source: str) -> tuple[LockEntry, ...]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(source, f"not UTF-8 ({error.reason} at byte {error.start})") from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    entries: list[LockEntry] = []
    seen: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        escaped = line.startswith("\\")
        match = LOCK_LINE.fullmatch(line[1:] if escaped else line)
        if match is None:
            raise InputError(
                source, f"line {number} is not '<64 lowercase hex sha256>  <path>': {line[:80]!r}"
            )
        digest, path = match.groups()
        if escaped:
            path = _unescape(path, source, number)
        elif "\r" in path:
            raise InputError(source, f"line {number}: carriage return in path (CRLF line ends?)")
        try:
            split_relative(path, f"{source}: line {number}")
        except InputError as error:
            raise InputError(error.source, f"{error.problem}; {RELATIVE_HINT}") from None
        folded = unicodedata.normalize("NFC", path).casefold()
        if folded in seen:
            raise InputError(
                source,
                f"line {number}: {path!r} repeats or collides with {seen[folded]!r} "
                "under case-folding or Unicode normalisation",
            )
        seen[folded] = path
        entries.append(LockEntry(path, digest))
    if not entries:
        raise InputError(source, "the lock lists no fixtures")
    return tuple(entries)


def _escape(path: str) -> tuple[str, str]:
    if not any(char in path for char in "\\\n\r"):
        return "", path
    return "\\", path.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def lock_line(entry: LockEntry) -> str:
    prefix, path = _escape(entry.path)
    return f"{prefix}{entry.digest}  {path}\n"


def format_lock(entries: Iterable[LockEntry]) -> str:
    """Lock text that `sha256sum -c` accepts, sorted by path bytes like `sort -z` in C locale."""
    ordered = sorted(entries, key=lambda entry: entry.path.encode("utf-8"))
    return "".join(lock_line(entry) for entry in ordered)


def lock_digest(entries: Iterable[LockEntry]) -> str:
    """The fixture binding: sha256 over the canonical (sorted) lock lines."""
    lines = sorted(lock_line(entry) for entry in entries)
    return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()


def hash_fixture(root: str, path: str, source: str) -> str | None:
    """The sha256 of a fixture's bytes, or None when it is missing."""
    fd = open_beneath(root, path, source)
    if fd is None:
        return None
    digest = hashlib.sha256()
    for chunk in read_chunks(fd, None, source):
        digest.update(chunk)
    return digest.hexdigest()


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


def scan_fixtures(root: str, folder: str, patterns: Sequence[str]) -> list[str]:
    """Every fixture file under `folder` whose folder-relative path matches a pattern.

    Symlinks and special files in the set are input errors: a fixture must be bytes
    in the repository, not a pointer to something the gate would have to trust.
    """
    found: list[str] = []
    pending = [folder]
    while pending:
        current = pending.pop()
        with os.scandir(os.path.join(root, current)) as entries:
            for entry in entries:
                path = f"{current}/{entry.name}" if current else entry.name
                inner = path[len(folder) + 1 :] if folder else path
                matches = not patterns or any(fnmatchcase(inner, p) for p in patterns)
                if entry.is_symlink():
                    if matches or entry.is_dir():
                        raise InputError(path, "a symlink in the fixture set")
                elif entry.is_dir(follow_symlinks=False):
                    pending.append(path)
                elif entry.is_file(follow_symlinks=False):
                    if matches:
                        found.append(path)
                elif matches:
                    raise InputError(path, "not a regular file in the fixture set")
    return sorted(found)


def hash_tree(
    root: str, lock: Sequence[LockEntry], fixture_paths: Iterable[str], source: str
) -> FixtureState:
    """Hash the locked files and the fixture set as they are in the working tree."""
    locked = {entry.path: entry.digest for entry in lock}
    tree: list[LockEntry] = []
    drift: list[Drift] = []
    for entry in lock:
        digest = hash_fixture(root, entry.path, source)
        if digest is None:
            drift.append(Drift(entry.path, "missing"))
            continue
        tree.append(LockEntry(entry.path, digest))
        if digest != entry.digest:
            drift.append(Drift(entry.path, "changed"))
    for path in fixture_paths:
        if path not in locked:
            digest = hash_fixture(root, path, source)
            if digest is not None:
                tree.append(LockEntry(path, digest))
                drift.append(Drift(path, "not_in_lock"))
    return FixtureState(tuple(tree), tuple(sorted(drift, key=lambda d: d.path)))


def write_lock_text(root: str, fixtures: str, patterns: Sequence[str]) -> str:
    folder = fixtures_folder(root, fixtures)
    entries = []
    for path in scan_fixtures(root, folder, patterns):
        digest = hash_fixture(root, path, path)
        if digest is None:
            raise InputError(path, "vanished while the lock was written")
        entries.append(LockEntry(path, digest))
    if not entries:
        raise InputError(fixtures, "no fixture files matched")
    return format_lock(entries)
