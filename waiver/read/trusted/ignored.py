"""The folders the lock and the gate never walk: those git ignores and the change tracks
nothing in, such as `node_modules` or a virtualenv.

A `harness:` glob `package.json` must lock the project's file, not the copies an install
left under `node_modules`. Which folders git ignores is written in `.gitignore` files, and
the change controls its own: a `.gitignore` that ignores `tests/` must not hide a new
`conftest.py` from drift detection. So the rules are read as follows:

- with a trusted revision, only the `.gitignore` files committed at it count, each for its
  own folder as git reads them, from the repository's top down; the change's, the work
  tree's `.git/info/exclude` and a global excludes file do not;
- without one (the work tree is trusted, as for `waiver lock` on the base), the work
  tree's `.gitignore` files count, the same files read from disk;
- a folder the change's commit (HEAD) tracks anything in is walked whatever the rules
  say: git never ignores a tracked file, and every file of the change is tracked;
- outside a git clone nothing is ignored.

Only folders are skipped: an ignored file in a walked folder (a stray `pytest.pyc`) is
still seen. A `.gitignore` that cannot be read holds no rule, so the walk errs towards
walking more.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable

from dulwich.ignore import IgnoreFilter, read_ignore_patterns
from dulwich.objects import Commit, ObjectID
from dulwich.repo import Repo

from waiver.errors import InputError
from waiver.read.trusted.git import UNREADABLE, head_commit, repository_prefix
from waiver.read.trusted.trees import CommitTree, DiskTree, FileTree, no_folder

GITIGNORE = ".gitignore"
MAX_GITIGNORE_BYTES = 1 << 20
Rules = tuple[
    tuple[str, IgnoreFilter], ...
]  # (folder of the .gitignore, its filter), deepest first


def _parent(path: str) -> str:
    return path.rpartition("/")[0]


class IgnoredFolders:
    """Whether the walk skips a folder (a path relative to the gate's root)."""

    def __init__(self, rules: FileTree, tracked: FileTree | None, prefix: str) -> None:
        self._rules = rules
        self._tracked = tracked
        self._prefix = prefix  # the gate's root inside the repository: "" or "sub/"
        self._stacks: dict[str, Rules] = {}

    def __call__(self, folder: str) -> bool:
        path = self._prefix + folder
        if not self._ignored(path):
            return False
        if self._tracked is None:
            return True
        name = path.rpartition("/")[2]
        return not any(entry.name == name for entry in self._tracked.entries(_parent(path)))

    def _ignored(self, path: str) -> bool:
        for base, rules in self._stack(_parent(path)):
            decision = rules.is_ignored(path[len(base) + 1 :] + "/" if base else path + "/")
            if decision is not None:
                return decision
        return False

    def _stack(self, folder: str) -> Rules:
        """The rules that apply to the entries of `folder` (a repository path)."""
        if folder not in self._stacks:
            above = self._stack(_parent(folder)) if folder else ()
            own = self._read(f"{folder}/{GITIGNORE}" if folder else GITIGNORE)
            self._stacks[folder] = above if own is None else ((folder, own), *above)
        return self._stacks[folder]

    def _read(self, path: str) -> IgnoreFilter | None:
        try:
            data = self._rules.read(path, MAX_GITIGNORE_BYTES)
        except InputError:
            return None  # a symlink, a folder or an oversized file: git reads no rule there
        return None if data is None else IgnoreFilter(read_ignore_patterns(io.BytesIO(data)))


def ignored_folders(root: str, trusted: str | None) -> Callable[[str], bool]:
    """The folders under `root` that the walk skips, by the rules of the trusted commit
    (its full id) or, without one, of the work tree."""
    try:
        repository = Repo.discover(root)
    except UNREADABLE:
        return no_folder  # outside a git clone nothing is ignored
    top = os.path.realpath(repository.path)
    prefix = repository_prefix(repository, root) or ""  # found from the root: it is inside
    try:
        head: FileTree | None = CommitTree(repository, head_commit(repository, root).tree, "")
    except InputError:
        head = None  # no commit yet: nothing is tracked
    if trusted is None:
        return IgnoredFolders(DiskTree(top), head, prefix)
    commit = repository.object_store[ObjectID(trusted.encode("ascii"))]
    if not isinstance(commit, Commit):
        raise InputError(f"--trusted-ref {trusted}", "not a commit")
    return IgnoredFolders(CommitTree(repository, commit.tree, ""), head, prefix)
