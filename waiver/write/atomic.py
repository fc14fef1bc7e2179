"""Atomic file replacement: a reader sees the old file or the whole new one, never a part."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator


def write_atomic(path: str, text: str | Iterable[str]) -> None:
    """Write `text` (one string, or chunks of it) to `path` through a renamed temporary file."""
    with _replacing(path) as fd, os.fdopen(fd, "w", encoding="utf-8", newline="\n") as stream:
        if isinstance(text, str):
            stream.write(text)
        else:
            stream.writelines(text)
        stream.flush()
        os.fsync(stream.fileno())


def write_atomic_bytes(path: str, data: bytes) -> None:
    """Write `data` to `path` through a renamed temporary file."""
    with _replacing(path) as fd, os.fdopen(fd, "wb") as stream:
        stream.write(data)
        stream.flush()
        os.fsync(stream.fileno())


@contextlib.contextmanager
def _replacing(path: str) -> Iterator[int]:
    """A temporary file beside `path`, open for writing, that replaces it when the block ends."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".waiver-", suffix=".tmp", dir=folder)
    try:
        yield fd
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
