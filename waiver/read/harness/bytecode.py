"""Bytecode in a change: Python may run it without ever reading the source it stands for.

The lock hashes sources. A `__pycache__/name.cpython-XY.pyc` built with an unchecked hash
(PEP 552) is loaded in place of `name.py` without being compared with it, and a sourceless
`name.pyc` is importable on its own. So any bytecode the change's commit adds or edits is
drift of the harness, whatever its name stands for, and the replays run with a cache
folder outside the tree (`waiver.replay.command_run`), so that the tree's bytecode is never read.
Bytecode the replays themselves leave in the work tree is not the commit's and counts for
nothing: only the two commits are compared here.
"""

from __future__ import annotations

from typing import Literal

from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import FileTree

BYTECODE_SUFFIXES = (".pyc", ".pyo")
CACHE_FOLDER = "__pycache__"


def is_bytecode(path: str) -> bool:
    """Whether a repository path is bytecode: a `*.pyc` or `*.pyo`, or anything in (or
    named) a `__pycache__` folder."""
    parts = path.split("/")
    return parts[-1].endswith(BYTECODE_SUFFIXES) or CACHE_FOLDER in parts


def _present(tree: FileTree, path: str) -> bool:
    """Whether the tree has an entry of any kind (file, symlink, submodule) at `path`."""
    folder, _, name = path.rpartition("/")
    return any(entry.name == name for entry in tree.entries(folder))


def committed_bytecode(committed: Committed) -> list[tuple[str, Literal["added", "edited"]]]:
    """Each bytecode path the change's commit adds or edits, with `added` or `edited`.

    A deleted one is not listed: without it, Python compiles the source the lock hashes.
    """
    found: list[tuple[str, Literal["added", "edited"]]] = []
    for path in sorted(committed.changed):
        if is_bytecode(path) and _present(committed.head, path):
            found.append((path, "edited" if _present(committed.trusted, path) else "added"))
    return found
