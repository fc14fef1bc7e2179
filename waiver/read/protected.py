"""The files a change must not be able to rewrite for its own gate run.

The lock, the registry, the freeze store and the policy file are read through one of
these: from the working tree, or from a trusted git revision.
"""

from __future__ import annotations

from typing import Protocol

from waiver.read.files import read_small


class ProtectedFiles(Protocol):
    description: str

    def read(self, path: str, limit: int) -> bytes: ...


class WorkingTree:
    description = "working tree"

    def read(self, path: str, limit: int) -> bytes:
        return read_small(path, limit, path)
