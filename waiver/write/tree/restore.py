"""Put the trusted revision's locked files back into the work tree before the replays run:
the first part of laying out the trusted test tree (`waiver.write.tree.tree_layout`).

The replays run the change's code, so they are only as honest as the harness that writes
their reports. Restored from the trusted revision, every file its lock lists (the harness
and the fixtures) is the base's, and so is every other harness file: one the revision
does not have (a `conftest.py` the change added) is removed. A locked `pyproject.toml`
table cannot be restored alone: when it differs, the whole file is put back as it is at
the trusted revision.

Bytecode anywhere in the tree (`*.pyc`, `*.pyo`, what a `__pycache__` holds), but in
`.git` and real virtualenvs, is removed too: Python can load it without reading the source
the lock hashes, and a sourceless `name.pyc` is importable with no source at all.

A file is written back with its mode at the trusted revision: an executable one (a
runner's `scripts/junit.sh`) stays executable. A symlink or submodule there is refused.
Writing never follows a symlink: a change could point a folder of its tree elsewhere.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
from dataclasses import dataclass, field

from waiver.errors import InputError
from waiver.read.harness.bytecode import is_bytecode
from waiver.read.harness.listing import walk
from waiver.read.harness.named import Harness, harness_in_tree
from waiver.read.lock.lock_file import MAX_LOCK_BYTES, hash_entry, parse_lock
from waiver.read.trusted.git import GitRevision
from waiver.read.trusted.ignored import ignored_folders
from waiver.read.trusted.trees import DiskTree
from waiver.read.untrusted.files import split_relative

MAX_RESTORED_BYTES = 64 << 20


@dataclass(frozen=True)
class TrustedHarness:
    """Where the locked files and the harness are restored from, before the trusted test tree
    is laid out over them (`waiver.write.tree.tree_layout`)."""

    root: str
    trusted: GitRevision
    lock: str
    harness: Harness


@dataclass
class Restored:
    """What was put back (paths whose bytes changed) and what was removed."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


def _parent(root: str, path: str, create: bool) -> tuple[int, str] | None:
    """An open descriptor of `path`'s folder under `root` and the file's name; None when a
    folder on the way is missing and `create` is false."""
    *folders, name = split_relative(path, path)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for folder in folders:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(folder, 0o755, dir_fd=fd)
            try:
                next_fd = os.open(
                    folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd
                )
            except FileNotFoundError:
                os.close(fd)
                return None
            except OSError as error:
                if error.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise InputError(path, "a folder on its way is a symlink or a file") from None
                raise
            os.close(fd)
            fd = next_fd
    except BaseException:
        os.close(fd)
        raise
    return fd, name


def _remove(folder: int, name: str, path: str) -> bool:
    try:
        mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(mode):
        raise InputError(path, "a folder where a locked file belongs")
    os.unlink(name, dir_fd=folder)
    return True


def write_beneath(root: str, path: str, data: bytes, executable: bool) -> None:
    """Replace `root/path` by a regular file holding `data`, executable or not (as git
    checks a file out: the mode is then narrowed by the umask)."""
    opened = _parent(root, path, create=True)
    if opened is None:  # a folder vanished between its creation and its opening
        raise InputError(path, "its folder could not be made")
    folder, name = opened
    try:
        _remove(folder, name, path)
        fd = os.open(
            name,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
            0o755 if executable else 0o644,
            dir_fd=folder,
        )
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
    finally:
        os.close(folder)


def remove_beneath(root: str, path: str) -> bool:
    """Remove `root/path` (never a folder); whether there was anything to remove."""
    opened = _parent(root, path, create=False)
    if opened is None:
        return False
    folder, name = opened
    try:
        return _remove(folder, name, path)
    finally:
        os.close(folder)


def restore_locked_files(source: TrustedHarness) -> Restored:
    """Make the work tree's locked files and harness those of the trusted revision."""
    root, trusted, harness = source.root, source.trusted, source.harness
    tables = harness.lock_tables
    lock = parse_lock(trusted.read(source.lock, MAX_LOCK_BYTES), source.lock, tables)
    restored = Restored()
    for entry in lock:
        if hash_entry(root, entry.path, entry.table, source.lock, tables) == entry.digest:
            continue
        data, executable = trusted.read_file(os.path.join(root, entry.path), MAX_RESTORED_BYTES)
        write_beneath(root, entry.path, data, executable)
        restored.written.append(entry.path)
    locked = {(entry.path, entry.table) for entry in lock}
    for path, table in harness_in_tree(root, harness, ignored_folders(root, trusted.revision)):
        if (path, table) in locked or path in restored.written:
            continue
        if table is not None and hash_entry(root, path, table, path, tables) is None:
            continue  # a table the file does not hold configures nothing
        try:
            data, executable = trusted.read_file(os.path.join(root, path), MAX_RESTORED_BYTES)
        except InputError:
            # Not a regular file at the trusted revision (most often: not there at all).
            if remove_beneath(root, path):
                restored.removed.append(path)
            continue
        if hash_entry(root, path, None, path, tables) != hashlib.sha256(data).hexdigest():
            write_beneath(root, path, data, executable)
            restored.written.append(path)
    restored.removed += remove_bytecode(root, {entry.path for entry in lock})
    return restored


def remove_bytecode(root: str, locked: set[str]) -> list[str]:
    """Remove every bytecode file (or symlink) of the work tree but those the lock lists,
    which were just restored; the paths removed."""
    found = sorted(
        path for path in walk(DiskTree(root)).paths() if is_bytecode(path) and path not in locked
    )
    return [path for path in found if remove_beneath(root, path)]
