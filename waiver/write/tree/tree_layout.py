"""Lay out the trusted test tree in the work tree before the verdict replays.

The replays that decide a registered test's class run the base's test tree against the
change's code (SPEC 3.11). Over the change's checkout, from the trusted revision: the files
its lock lists and its harness (`waiver.write.tree.restore`), then every file the base's
runner classifies as test code or test data (`waiver.read.harness.test_tree`) as the base
holds it, and every such file the base lacks taken out: a test file the change added, a
helper, a data file, a snapshot beside the tests. Test files the change deleted come back.
Nothing the change wrote around its tests is left to run in the replays; its new and
edited tests run apart, on its own tree (`waiver change-tests`).

The work tree is rewritten in place, as a fresh checkout of the change is in CI. `waiver
replay --tests-from` keeps what it rewrites and puts it back once the replays are done
(`Kept`), so that a local checkout, uncommitted work included, is left as it was. Writing
never follows a symlink (`write_beneath`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from dulwich.objects import Blob

from waiver.errors import InputError
from waiver.read.harness.bytecode import is_bytecode
from waiver.read.harness.listing import walk
from waiver.read.harness.named import harness_in_tree
from waiver.read.harness.test_tree import TestTree
from waiver.read.lock.lock_file import MAX_LOCK_BYTES, parse_lock
from waiver.read.trusted.ignored import ignored_folders
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import FILE, CommitTree, DiskTree, FileTree
from waiver.write.tree.restore import (
    MAX_RESTORED_BYTES,
    Restored,
    TrustedHarness,
    remove_beneath,
    restore_locked_files,
    write_beneath,
)
from waiver.write.words.escape import log_line


@dataclass(frozen=True)
class TrustedTests:
    """Where `waiver restore-tests` lays out the trusted test tree from: the harness source,
    and the runner's test tree of a commit (`Runner.test_tree`)."""

    harness: TrustedHarness
    test_tree: Callable[[FileTree], TestTree]


@dataclass(frozen=True)
class Plan:
    """The test-tree files to write from the base, and to remove, by path."""

    write: list[str]
    remove: list[str]
    uncollected: list[str]


def _git_blob_id(data: bytes) -> bytes:
    return Blob.from_string(data).id


def _disk_bytes(root: str, path: str) -> bytes | None:
    try:
        return DiskTree(root).read(path, MAX_RESTORED_BYTES)
    except InputError:
        return None  # a symlink or another kind of entry: replaced or removed all the same


def plan_test_tree(root: str, committed: Committed, tests: TestTree, disk: FileTree) -> Plan:
    """What makes the work tree's test tree the base's: each base file the tree holds with
    other bytes (or not at all), and each file of the tree's test tree the base lacks."""
    base = committed.trusted
    base_files = walk(base)
    write = []
    for path in sorted(base_files.paths()):
        if not tests.holds(path):
            continue
        if base_files.kind(path) != FILE:
            raise InputError(path, "not a regular file in the base's test tree")
        blob = base.blob_id(path) if isinstance(base, CommitTree) else None
        data = _disk_bytes(root, path)
        if data is None or blob is None or _git_blob_id(data) != blob:
            write.append(path)
    listed = set(base_files.paths())
    remove = sorted(p for p in walk(disk).paths() if tests.holds(p) and p not in listed)
    uncollected = sorted(
        path
        for path in committed.changed
        if tests.uncollected(path) and committed.head.read(path, MAX_RESTORED_BYTES) is not None
    )
    return Plan(write, remove, uncollected)


@dataclass(frozen=True)
class Kept:
    """The work tree's files that a layout may rewrite, as they were: each one's bytes and
    whether it was executable (None where there was no regular file)."""

    root: str
    files: dict[str, tuple[bytes, bool] | None]

    def put_back(self) -> None:
        """Undo a layout, whole or cut short: each kept file as it was, and one written where
        there was none removed. Bytecode the layout removed is not kept, nor put back."""
        for path, before in sorted(self.files.items()):
            if before is None:
                remove_beneath(self.root, path)
            elif _disk_bytes(self.root, path) != before[0]:
                write_beneath(self.root, path, *before)


def _disk(source: TrustedTests) -> DiskTree:
    harness = source.harness
    return DiskTree(harness.root, ignored_folders(harness.root, harness.trusted.revision))


def plan_of(source: TrustedTests) -> Plan:
    """What laying out the trusted test tree writes and removes, from the work tree as it is."""
    harness = source.harness
    committed = harness.trusted.committed()
    tests = source.test_tree(committed.trusted)
    return plan_test_tree(harness.root, committed, tests, _disk(source))


def keep(source: TrustedTests, plan: Plan) -> Kept:
    """What `restore_tests` may rewrite, as the work tree holds it now: every file of its
    test tree, harness and lock, and where the base has one the tree lacks, that absence."""
    harness = source.harness
    root, trusted = harness.root, harness.trusted
    text = trusted.read(harness.lock, MAX_LOCK_BYTES)
    lock = parse_lock(text, harness.lock, harness.harness.lock_tables)
    paths = {*plan.write, *plan.remove, *(entry.path for entry in lock)}
    paths.update(path for path, _ in harness_in_tree(root, harness.harness, _disk(source).skipped))
    paths = {path for path in paths if not is_bytecode(path)}
    files: dict[str, tuple[bytes, bool] | None] = {}
    for path in paths:
        full = os.path.join(root, path)
        data = _disk_bytes(root, path)
        executable = data is not None and os.access(full, os.X_OK)
        files[path] = None if data is None else (data, executable)
    return Kept(root, files)


def restore_tests(source: TrustedTests, plan: Plan) -> Restored:
    """Lay out the trusted test tree by `plan_of`'s plan: the locked files and the harness,
    then the test tree; what was written and removed."""
    harness = source.harness
    root, trusted = harness.root, harness.trusted
    restored = restore_locked_files(harness)
    done = set(restored.written) | set(restored.removed)
    for path in plan.write:
        if path in done:
            continue
        data, executable = trusted.read_file(os.path.join(root, path), MAX_RESTORED_BYTES)
        if _disk_bytes(root, path) != data:
            write_beneath(root, path, data, executable)
            restored.written.append(path)
    for path in plan.remove:
        if path not in done and remove_beneath(root, path):
            restored.removed.append(path)
    restored.written.sort()
    restored.removed.sort()
    return restored


def describe_tests(source: TrustedTests, restored: Restored, plan: Plan) -> str:
    """One line for the log: what was written and removed, and the change's files named as
    tests where the base's runner collects none, by path. The paths come from the change's
    tree, so the line is one that no path can turn into a workflow command."""
    line = (
        f"waiver: tests from {source.harness.trusted.description}: "
        f"{len(restored.written)} files restored"
        + "".join(f", {path}" for path in restored.written)
        + f"; {len(restored.removed)} removed"
        + "".join(f", {path}" for path in restored.removed)
    )
    if plan.uncollected:
        line += (
            f"; {len(plan.uncollected)} named as tests where the base's runner collects none, "
            "so not run" + "".join(f", {path}" for path in plan.uncollected)
        )
    return log_line(line)
