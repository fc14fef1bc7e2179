"""The files a change must not be able to rewrite for its own gate run.

The lock, the registry, the freeze store and the policy file are read through one of
these: from the working tree, or from a trusted git revision (`waiver.read.trusted.git`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from waiver.read.trusted.trees import FileTree
from waiver.read.untrusted.files import read_small

# How the working tree differs from a protected file's trusted bytes.
WorkingTreeChange = Literal["modified", "deleted", "not a regular file"]


@dataclass(frozen=True)
class Committed:
    """The trusted revision's files, the change's commit's (HEAD), and the paths (relative
    to the gate's root) whose entries differ between the two."""

    trusted: FileTree
    head: FileTree
    changed: frozenset[str]
    head_commit: str | None = None  # the change's commit id
    # When HEAD merges exactly one commit into another (as GitHub's refs/pull/N/merge merges
    # the pull request's head into its base), the commit merged in: the one people review.
    merged_head: str | None = None


class ProtectedFiles(Protocol):
    @property
    def description(self) -> str:
        """Where the files come from, for the report: "working tree" or the revision."""

    @property
    def revision(self) -> str | None:
        """The trusted commit id, or None for the working tree."""

    @property
    def given(self) -> str | None:
        """The trusted revision as it was given, before it is read; None for the working tree."""

    def read(self, path: str, limit: int) -> bytes: ...

    def changes(self) -> dict[str, WorkingTreeChange]:
        """The files read so far that the working tree changes, and how."""

    def committed(self) -> Committed | None:
        """The change's commit beside the trusted revision; None for the working tree."""


class FromWorkingTree:
    description = "working tree"
    revision = None
    given = None

    def read(self, path: str, limit: int) -> bytes:
        return read_small(path, limit, path)

    def changes(self) -> dict[str, WorkingTreeChange]:
        return {}

    def committed(self) -> None:
        return None
