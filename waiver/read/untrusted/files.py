"""Opening untrusted files: beneath a root, never through a symlink, never blocking, capped."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator

from waiver.errors import InputError

CHUNK = 1 << 20


def split_relative(path: str, source: str) -> list[str]:
    """The components of a repository-relative path, refusing anything that could escape."""
    if "\0" in path:
        raise InputError(source, f"path {path!r} contains a NUL byte")
    if path.startswith("/"):
        raise InputError(source, f"path {path!r} is absolute")
    parts = path.split("/")
    for part in parts:
        if part in ("", ".", ".."):
            raise InputError(source, f"path {path!r} has an empty, '.' or '..' component")
    return parts


def open_beneath(root: str, path: str, source: str) -> int | None:
    """Open `root/path` read-only without following any symlink on the way.

    Returns None when the file does not exist; a symlink, a directory or any other
    non-regular file is an input error. O_NONBLOCK keeps a FIFO from hanging the gate.
    """
    parts = split_relative(path, source)
    dir_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[:-1]:
            try:
                next_fd = os.open(
                    part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd
                )
            except FileNotFoundError:
                return None
            except OSError as error:
                raise InputError(source, f"{path}: a parent folder is {_kind(error)}") from None
            os.close(dir_fd)
            dir_fd = next_fd
        try:
            fd = os.open(
                parts[-1],
                os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                dir_fd=dir_fd,
            )
        except FileNotFoundError:
            return None
        except OSError as error:
            raise InputError(source, f"{path} is {_kind(error)}") from None
    finally:
        os.close(dir_fd)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise InputError(source, f"{path} is not a regular file")
    return fd


def _kind(error: OSError) -> str:
    if error.errno in (errno.ELOOP, errno.ENOTDIR):
        return "a symlink or not a folder"
    return f"unreadable ({os.strerror(error.errno or 0)})"


def open_regular(path: str, source: str) -> int:
    """Open a file named on the command line: it must exist and be a regular file, not a link."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputError(source, "file not found") from None
    except OSError as error:
        raise InputError(source, f"cannot open: {_kind(error)}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputError(source, "not a regular file")
    return fd


def read_chunks(fd: int, limit: int | None, source: str) -> Iterator[bytes]:
    """Stream a file's bytes and close it; more than `limit` bytes is an input error."""
    with os.fdopen(fd, "rb", buffering=0) as stream:
        if limit is not None and os.fstat(fd).st_size > limit:
            raise InputError(source, f"larger than the cap of {limit} bytes")
        total = 0
        while chunk := stream.read(CHUNK):
            total += len(chunk)
            if limit is not None and total > limit:
                raise InputError(source, f"larger than the cap of {limit} bytes")
            yield chunk


def read_small(path: str, limit: int, source: str) -> bytes:
    """A whole small file named on the command line (lock, registry, freeze store, config)."""
    return b"".join(read_chunks(open_regular(path, source), limit, source))
