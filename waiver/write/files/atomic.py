"""Atomic file replacement: a reader sees the old file or the whole new one, never a part."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from typing import IO, Any


def write_atomic(path: str, content: str | bytes | Iterable[str]) -> None:
    """Write `content` (bytes, one string, or chunks of it) to `path` through a renamed
    temporary file."""
    put_in_place(write_temporary(path, content), path)


def write_temporary(path: str, content: str | bytes | Iterable[str]) -> str:
    """Write `content` to a new temporary file beside `path`, synced; its path, for
    `put_in_place`. Nothing is left behind when the writing fails."""
    with _temporary(path) as (fd, temporary):
        stream: IO[Any] = (
            os.fdopen(fd, "wb")
            if isinstance(content, bytes)
            else os.fdopen(fd, "w", encoding="utf-8", newline="\n")
        )
        with stream:
            if isinstance(content, str | bytes):
                stream.write(content)
            else:
                stream.writelines(content)
            stream.flush()
            os.fsync(stream.fileno())
    return temporary


def put_in_place(temporary: str, path: str) -> None:
    """Replace `path` with the temporary file written for it, which is removed if it cannot."""
    try:
        os.replace(temporary, path)
    except BaseException:
        discard(temporary)
        raise


def discard(temporary: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)


@contextlib.contextmanager
def _temporary(path: str) -> Iterator[tuple[int, str]]:
    """A temporary file beside `path`, open for writing, readable like the file it will
    replace once the block ends, and removed if the block fails."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".waiver-", suffix=".tmp", dir=folder)
    try:
        yield fd, temporary
        os.chmod(temporary, 0o644)
    except BaseException:
        discard(temporary)
        raise
