"""What the change's commit does to the locked files and the harness, whatever the work tree
holds now.

`waiver replay --tests-from` takes a change's harness out of the work tree before the
replays, so that the tree the gate hashes afterwards is the base's. What was taken out
must still be seen: with a trusted revision, the change's commit (HEAD) is compared with
it, and every harness file and locked file it adds, edits or deletes is drift, judged by
its committed bytes; so is any bytecode it adds or edits (`read.bytecode`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from waiver.errors import InputError
from waiver.read.harness.bytecode import committed_bytecode
from waiver.read.harness.listing import name_of
from waiver.read.harness.named import (
    MAX_MODULE_BYTES,
    Harness,
    HarnessFinder,
    glob_names,
    harness_pairs,
)
from waiver.read.lock.lock_file import (
    Drift,
    DriftKind,
    FixtureState,
    LockEntry,
    LockTables,
    table_digest_of,
)
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import FileTree

ChangeKind = Literal["added", "edited", "deleted"]
# The drift each committed change makes.
KINDS: dict[ChangeKind, DriftKind] = {
    "added": "not_in_lock",
    "edited": "changed",
    "deleted": "missing",
}
MAX_DATA_BYTES = 256 << 20


@dataclass(frozen=True)
class CommittedChange:
    path: str
    change: ChangeKind
    table: str | None
    digest: str | None  # the committed bytes' (or table's) sha256; None when deleted


def digest_in(tree: FileTree, path: str, table: str | None, tables: LockTables) -> str | None:
    """A file's (or one table's) sha256 in a commit; None when it is absent."""
    data = tree.read(path, MAX_MODULE_BYTES)
    if data is None:
        return None
    if table is not None:
        return table_digest_of(data, path, table, tables)
    return hashlib.sha256(data).hexdigest()


def committed_changes(
    committed: Committed, harness: Harness, lock: Sequence[LockEntry]
) -> list[CommittedChange]:
    """The locked and harness files that differ between the trusted revision and the
    change's commit, by path, and the bytecode the change's commit adds or edits. Modules
    are read for what they load only where the two commits differ: an unchanged one is
    locked already, or changes nothing."""
    if not committed.changed:
        return []
    differs = committed.changed.__contains__
    pairs = dict.fromkeys(
        [
            *((entry.path, entry.table) for entry in lock),
            *harness_pairs(committed.trusted, harness, differs),
            *harness_pairs(committed.head, harness, differs),
        ]
    )
    found = []
    for path, table in pairs:
        if not differs(path):
            continue
        before = digest_in(committed.trusted, path, table, harness.lock_tables)
        after = digest_in(committed.head, path, table, harness.lock_tables)
        if before == after:
            continue
        change: ChangeKind = "added" if before is None else "deleted" if after is None else "edited"
        found.append(CommittedChange(path, change, table, after))
    listed = {change.path for change in found}
    for path, change in committed_bytecode(committed):
        if path not in listed:
            found.append(
                CommittedChange(
                    path, change, None, digest_in(committed.head, path, None, harness.lock_tables)
                )
            )
    return sorted(found, key=lambda c: (c.path, c.table or ""))


def committed_test_data(
    committed: Committed,
    lock: Sequence[LockEntry],
    unlocked: Sequence[str],
    listed: set[str],
    finder: HarnessFinder,
) -> list[CommittedChange]:
    """The data files beside the tests that the change's commit adds or edits, outside the
    lock: what a test reads as its expected values is a fixture, whether or not a lock
    names it. Which files are data beside the tests is the runner's to say, by the trusted
    configuration (`HarnessFinder.test_data`); `unlocked` are the policy's `unlocked_data`
    globs, which a change may add or edit."""
    locked = {entry.path for entry in lock}
    candidates = [
        path
        for path in sorted(committed.changed)
        if path not in locked
        and path not in listed
        and not any(glob_names(glob, path, name_of(path)) for glob in unlocked)
    ]
    found = []
    for path in finder.test_data(committed.trusted, candidates):
        before, after = _data_digest(committed.trusted, path), _data_digest(committed.head, path)
        if after is not None and before != after:
            added: ChangeKind = "added" if before is None else "edited"
            found.append(CommittedChange(path, added, None, after or None))
    return found


def _data_digest(tree: FileTree, path: str) -> str | None:
    """A data file's sha256 in a commit; None when it is absent, and "" when it is there but
    cannot be read as a regular file (a symlink, or too large), which is a change all the
    same."""
    try:
        data = tree.read(path, MAX_DATA_BYTES)
    except InputError:
        return ""
    return None if data is None else hashlib.sha256(data).hexdigest()


def with_committed(
    state: FixtureState, lock: Sequence[LockEntry], changes: Sequence[CommittedChange]
) -> FixtureState:
    """The fixture state as the change committed it: each committed change replaces the
    work tree's entry, and is drift unless the work tree already drifts there."""
    locked = {(entry.path, entry.table) for entry in lock}
    tree = {(entry.path, entry.table): entry for entry in state.tree}
    drifted = {(drift.path, drift.table) for drift in state.drift}
    drift = list(state.drift)
    for change in changes:
        key = (change.path, change.table)
        tree.pop(key, None)
        if change.digest is not None:
            tree[key] = LockEntry(change.path, change.digest, change.table)
        if key not in drifted:
            kind = KINDS[change.change]
            if kind == "not_in_lock" and key in locked:
                kind = "changed"
            drift.append(Drift(change.path, kind, change.table))
    return FixtureState(
        tuple(tree.values()), tuple(sorted(drift, key=lambda d: (d.path, d.table or "")))
    )
