"""A repository's files as the harness resolver reads them: the work tree, or a commit.

The resolver needs only two things of a tree: the entries of a folder (name and kind) and
the bytes of a file. The work tree is read without following a symlink; a commit is read
from git objects by dulwich, so that what a change committed can be compared with the
trusted revision even after the work tree was restored.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from dulwich.objects import Blob, ObjectID, Tree
from dulwich.repo import Repo

from waiver.errors import InputError
from waiver.read.untrusted.files import open_beneath, read_chunks

FILE, FOLDER, LINK, OTHER = "file", "folder", "link", "other"
GIT_KINDS = {0o100644: FILE, 0o100755: FILE, 0o040000: FOLDER, 0o120000: LINK}


@dataclass(frozen=True)
class Entry:
    name: str
    kind: str  # FILE, FOLDER, LINK or OTHER


class FileTree(Protocol):
    def entries(self, folder: str) -> list[Entry]:
        """The entries of a folder ("" for the root); empty when it is not one."""

    def read(self, path: str, limit: int) -> bytes | None:
        """A regular file's bytes, or None when it is absent."""

    def __hash__(self) -> int:
        """A tree is itself alone: what is worked out of it may be kept by it."""


def escaped(path: str) -> str:
    """A path whose name was not UTF-8, with the offending bytes spelled `\\xNN`."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def check_name(path: str) -> str:
    """`path`, when every byte of its name is UTF-8; an input error naming it otherwise."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(escaped(path), "a file name that is not UTF-8") from None
    return path


def scan_error(path: str, error: OSError) -> InputError:
    """A folder the scan could not list, as an input error (a path too long, most often)."""
    if error.errno == errno.ENAMETOOLONG:
        return InputError(escaped(path)[:200] + "…", "the path is longer than the system allows")
    return InputError(escaped(path), f"cannot be listed: {error.strerror}")


def no_folder(folder: str) -> bool:
    """Skips no folder: the whole tree is listed."""
    return False


class DiskTree:
    """The files under `root` as they are on disk, but the folders `skipped` names
    (`waiver.read.trusted.ignored`), which are not listed."""

    def __init__(self, root: str, skipped: Callable[[str], bool] = no_folder) -> None:
        self.root = root
        self.skipped = skipped

    def entries(self, folder: str) -> list[Entry]:
        try:
            with os.scandir(os.path.join(self.root, folder) if folder else self.root) as found:
                entries = [Entry(entry.name, _kind(entry)) for entry in found]
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as error:
            raise scan_error(folder, error) from None
        return [
            entry
            for entry in entries
            if entry.kind != FOLDER
            or not self.skipped(f"{folder}/{entry.name}" if folder else entry.name)
        ]

    def read(self, path: str, limit: int) -> bytes | None:
        fd = open_beneath(self.root, path, path)
        return None if fd is None else b"".join(read_chunks(fd, limit, path))


def _kind(entry: os.DirEntry[str]) -> str:
    if entry.is_symlink():
        return LINK
    if entry.is_dir(follow_symlinks=False):
        return FOLDER
    return FILE if entry.is_file(follow_symlinks=False) else OTHER


class CommitTree:
    """The files of a commit under the folder `prefix` of the repository (`""` or `"sub/"`)."""

    def __init__(self, repository: Repo, tree: ObjectID, prefix: str) -> None:
        self._store = repository.object_store
        top = self._store[tree]
        self._folders: dict[str, Tree | None] = {"": top if isinstance(top, Tree) else None}
        inside = self._folder(prefix.rstrip("/")) if prefix else self._folders[""]
        self._folders = {"": inside}

    def _folder(self, folder: str) -> Tree | None:
        if folder in self._folders:
            return self._folders[folder]
        parent, _, name = folder.rpartition("/")
        above = self._folder(parent)
        found = None
        key = name.encode("utf-8", "surrogateescape")
        if above is not None and key in above:
            mode, object_id = above[key]
            if GIT_KINDS.get(mode) == FOLDER:
                tree = self._store[object_id]
                found = tree if isinstance(tree, Tree) else None
        self._folders[folder] = found
        return found

    def entries(self, folder: str) -> list[Entry]:
        tree = self._folder(folder)
        if tree is None:
            return []
        return [
            Entry(item.path.decode("utf-8", "surrogateescape"), GIT_KINDS.get(item.mode, OTHER))
            for item in tree.iteritems()
        ]

    def _entry(self, path: str) -> tuple[int, ObjectID] | None:
        """The mode and object id of the entry at `path`, from its folder's tree; None
        when there is none."""
        parent, _, name = path.rpartition("/")
        tree = self._folder(parent)
        key = name.encode("utf-8", "surrogateescape")
        if tree is None or key not in tree:
            return None
        mode, object_id = tree[key]
        return mode, object_id

    def blob_id(self, path: str) -> ObjectID | None:
        """The blob id of the regular file at `path`, from its folder's tree: the blob
        itself is not read. None when there is no regular file there."""
        entry = self._entry(path)
        return entry[1] if entry is not None and GIT_KINDS.get(entry[0]) == FILE else None

    def read(self, path: str, limit: int) -> bytes | None:
        entry = self._entry(path)
        if entry is None:
            return None
        mode, object_id = entry
        if GIT_KINDS.get(mode) != FILE:
            raise InputError(path, "not a regular file in the commit")
        blob = self._store[object_id]
        if not isinstance(blob, Blob):
            return None
        data = blob.as_raw_string()
        if len(data) > limit:
            raise InputError(path, f"larger than the cap of {limit} bytes")
        return data
