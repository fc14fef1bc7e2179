"""The fixture lock (GNU sha256sum format) and the files it protects: the fixtures and the
test harness.

Lock text is read strictly and never handed to `sha256sum -c`, which would follow
`../` paths. File bytes are hashed as stored, through `open_beneath`. One table of a file
(pytest's tables of `pyproject.toml`, a runner's key of `package.json`) is locked on its
own, on a line that `sha256sum` reads as a comment: `# [tool.pytest] <sha256>
pyproject.toml`. Which tables a lock may hold, and how each is read, the runners declare
(`LockTables`).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from waiver.errors import InputError
from waiver.read.untrusted.bounded import MAX_TOML_BYTES, read_json, read_toml
from waiver.read.untrusted.files import open_beneath, read_chunks, split_relative
from waiver.read.untrusted.jsonc import read_jsonc

LOCK_LINE = re.compile(r"([0-9a-f]{64}) [ *](.+)", re.DOTALL)
# A table line: `sha256sum -c` skips lines that start with `#`, so a lock holding them
# still checks every whole file. The `\` that marks an escaped path goes before the digest.
TABLE_LINE = re.compile(r"# \[([A-Za-z0-9_.:-]+)\] (\\?)([0-9a-f]{64})  (.+)", re.DOTALL)
PACKAGE_JSON = "package.json"
# A package script the test command runs by name (the policy's `package_scripts`), locked
# with its `pre` and `post` scripts: `# [scripts.test] <sha256>  package.json`.
SCRIPTS = "scripts"
SCRIPT_TABLE = re.compile(r"scripts\.[A-Za-z0-9_.:-]+")


def scripts_around(name: str) -> tuple[str, str, str]:
    """A package script and the `pre` and `post` scripts npm runs around it."""
    return f"pre{name}", name, f"post{name}"


def script_tables(names: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """The `(package.json, scripts.NAME)` tables of the package scripts `names`, each with
    the scripts around it."""
    return tuple(
        (PACKAGE_JSON, f"{SCRIPTS}.{script}") for name in names for script in scripts_around(name)
    )


UNESCAPES = {"\\": "\\", "n": "\n", "r": "\r"}
MAX_LOCK_BYTES = 16 << 20
RELATIVE_HINT = (
    "lock paths are relative to the repository root, without './': write the lock with "
    "'waiver lock --fixtures DIR', or from the root with "
    '"find fixtures -type f -print0 | sort -z | xargs -0 sha256sum > fixture.lock"'
)


@dataclass(frozen=True)
class LockTables:
    """The tables a lock may hold, each locked on a line of its own, by how the file is
    read: tables of a TOML file (pytest's `tool.pytest`), top-level keys of a `package.json`
    (`jest`), and tables of JSON with comments (a TypeScript configuration's
    `compilerOptions.paths`). Each runner declares its own (`Runner.lock_tables`) and the
    registry joins them (`waiver.runners.LOCK_TABLES`); the lock is read below the runners,
    so they come in with the harness (`Harness.lock_tables`). The package scripts a policy
    names (`scripts.NAME`, `script_tables`) are every lock's."""

    toml: frozenset[str] = frozenset()
    package_keys: frozenset[str] = frozenset()
    jsonc: frozenset[str] = frozenset()

    def __or__(self, other: LockTables) -> LockTables:
        return LockTables(
            self.toml | other.toml,
            self.package_keys | other.package_keys,
            self.jsonc | other.jsonc,
        )

    def holds(self, table: str) -> bool:
        """Whether a lock may hold `table` on a line of its own."""
        named = table in self.toml or table in self.package_keys or table in self.jsonc
        return named or SCRIPT_TABLE.fullmatch(table) is not None


NO_TABLES = LockTables()


@dataclass(frozen=True)
class LockEntry:
    path: str
    digest: str
    table: str | None = None  # a table of the file (see table_digest), or the whole file


DriftKind = Literal["changed", "missing", "not_in_lock"]


@dataclass(frozen=True)
class Drift:
    path: str
    kind: DriftKind
    table: str | None = None


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


def parse_lock(data: bytes, source: str, tables: LockTables) -> tuple[LockEntry, ...]:
    """The entries of a lock, read strictly; a table line must name one of `tables`."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(source, f"not UTF-8 ({error.reason} at byte {error.start})") from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    entries: list[LockEntry] = []
    seen: dict[tuple[str, str | None], str] = {}
    for number, line in enumerate(lines, start=1):
        table = None
        if line.startswith("#"):
            table_match = TABLE_LINE.fullmatch(line)
            if table_match is None or not tables.holds(table_match[1]):
                raise InputError(
                    source,
                    f"line {number}: a line starting with '#' must be a table line "
                    f"'# [tool.pytest] <sha256>  <path>': {line[:80]!r}",
                )
            table, marker, digest, path = table_match.groups()
            escaped = bool(marker)
        else:
            escaped = line.startswith("\\")
            match = LOCK_LINE.fullmatch(line[1:] if escaped else line)
            if match is None:
                raise InputError(
                    source,
                    f"line {number} is not '<64 lowercase hex sha256>  <path>': {line[:80]!r}",
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
        folded = (unicodedata.normalize("NFC", path).casefold(), table)
        if folded in seen:
            raise InputError(
                source,
                f"line {number}: {path!r} repeats or collides with {seen[folded]!r} "
                "under case-folding or Unicode normalisation",
            )
        seen[folded] = path
        entries.append(LockEntry(path, digest, table))
    if not entries:
        raise InputError(source, "the lock lists no fixtures")
    return tuple(entries)


def _escape(path: str) -> tuple[str, str]:
    if not any(char in path for char in "\\\n\r"):
        return "", path
    return "\\", path.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def lock_line(entry: LockEntry) -> str:
    prefix, path = _escape(entry.path)
    table = f"# [{entry.table}] " if entry.table is not None else ""
    return f"{table}{prefix}{entry.digest}  {path}\n"


def format_lock(entries: Iterable[LockEntry]) -> str:
    """Lock text that `sha256sum -c` accepts, sorted by path bytes like `sort -z` in C locale
    (a table line right after its file's own line)."""
    ordered = sorted(entries, key=lambda entry: (entry.path.encode("utf-8"), entry.table or ""))
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


def _toml_value(value: object) -> str:
    # TOML's dates and times have no JSON form; their ISO text is what they say.
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    raise TypeError(type(value).__name__)


def table_digest(root: str, path: str, table: str, tables: LockTables) -> str | None:
    """The sha256 of one table of a TOML file, or None when the file or the table is absent."""
    fd = open_beneath(root, path, path)
    if fd is None:
        return None
    return table_digest_of(b"".join(read_chunks(fd, MAX_TOML_BYTES, path)), path, table, tables)


def table_digest_of(data: bytes, path: str, table: str, tables: LockTables) -> str | None:
    """The sha256 of one table of the TOML text `data` (or one key of a `package.json`, or
    one of a TypeScript configuration's), or None when the table is absent.

    The table's parsed value is hashed as canonical JSON (sorted keys, no spaces, UTF-8),
    so that an edit elsewhere in the file (a dependency bump) leaves it as it was, while
    any value pytest would see, however it is spelled, changes it.
    """
    if path.rpartition("/")[2] == PACKAGE_JSON and table in tables.package_keys:
        return _key_digest(read_json(data, path), table)
    if path.rpartition("/")[2] == PACKAGE_JSON and SCRIPT_TABLE.fullmatch(table):
        scripts = read_json(data, path)
        scripts = scripts.get(SCRIPTS) if isinstance(scripts, dict) else None
        return _key_digest(scripts, table[len(SCRIPTS) + 1 :])
    value: object = read_jsonc(data, path) if table in tables.jsonc else read_toml(data, path)
    for key in table.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    if value is None:
        return None
    text = json.dumps(
        value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=_toml_value
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _key_digest(document: object, key: str) -> str | None:
    """The sha256 of one top-level key's value as canonical JSON; None when it is absent."""
    if not isinstance(document, dict) or key not in document:
        return None
    text = json.dumps(document[key], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def hash_entry(
    root: str, path: str, table: str | None, source: str, tables: LockTables
) -> str | None:
    """A locked file's digest as it is now, or its table's (read as `tables` say); None
    when it is absent."""
    if table is None:
        return hash_fixture(root, path, source)
    return table_digest(root, path, table, tables)


def hash_tree(
    root: str,
    lock: Sequence[LockEntry],
    locked_set: Iterable[tuple[str, str | None]],
    source: str,
    tables: LockTables,
) -> FixtureState:
    """Hash the locked files, and the locked set (fixtures and harness, as `(path, table)`)
    as they are in the working tree."""
    locked = {(entry.path, entry.table) for entry in lock}
    tree: list[LockEntry] = []
    drift: list[Drift] = []
    for entry in lock:
        digest = hash_entry(root, entry.path, entry.table, source, tables)
        if digest is None:
            drift.append(Drift(entry.path, "missing", entry.table))
            continue
        tree.append(LockEntry(entry.path, digest, entry.table))
        if digest != entry.digest:
            drift.append(Drift(entry.path, "changed", entry.table))
    for path, table in dict.fromkeys(locked_set):
        if (path, table) not in locked:
            digest = hash_entry(root, path, table, source, tables)
            if digest is not None:
                tree.append(LockEntry(path, digest, table))
                drift.append(Drift(path, "not_in_lock", table))
    return FixtureState(tuple(tree), tuple(sorted(drift, key=lambda d: (d.path, d.table or ""))))


def build_lock_text(
    root: str,
    fixtures: str | None,
    found: Sequence[str],
    harness: Iterable[tuple[str, str | None]],
    tables: LockTables,
) -> str:
    """The lock of the fixture files found under the folder `fixtures` and of the harness
    files found (`(path, table)` pairs); of the harness alone when `fixtures` is None (the
    policy says there are no fixtures)."""
    if fixtures is not None and not found:
        raise InputError(fixtures, "no fixture files matched")
    entries = []
    for path, table in dict.fromkeys([*((path, None) for path in found), *harness]):
        digest = hash_entry(root, path, table, path, tables)
        if digest is None and table is None:
            raise InputError(path, "vanished while the lock was written")
        if digest is not None:
            entries.append(LockEntry(path, digest, table))
    return format_lock(entries)
