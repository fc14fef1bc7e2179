"""Protected files read as blobs from a trusted git revision (the pull request's base).

A change can edit the fixtures *and* the lock, the registry and the freeze store; read
from the base commit, those cannot vouch for the change. The objects are read by
dulwich, a git object reader in pure Python: no git program runs, so no hook, filter,
fsmonitor, credential helper or other command that a repository's config names can
run, and no GIT_* variable can point the read at another repository. A path must be a
regular file (mode 100644) at that revision: symlinks and submodules are refused.
Nothing is fetched; whatever cannot be read fails closed.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import zlib
from collections.abc import Iterable

from dulwich import errors as git_errors
from dulwich.diff_tree import tree_changes
from dulwich.objects import Blob, Commit, ObjectID, Tree
from dulwich.repo import Repo

from waiver.errors import InputError
from waiver.read.trusted.protected import Committed, WorkingTreeChange
from waiver.read.trusted.trees import FOLDER, CommitTree
from waiver.read.untrusted.files import split_relative

REGULAR_FILE = 0o100644
EXECUTABLE_FILE = 0o100755
FOLDER_MODE = 0o040000
MODES = {
    0o120000: "a symlink",
    0o160000: "a submodule",
    FOLDER_MODE: "a folder",
    EXECUTABLE_FILE: "an executable file",
}
# A full commit id (SHA-1 or SHA-256). A branch, tag or short id is refused: the change
# could create a ref or an object that takes the name over.
COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
FETCH_ADVICE = (
    "check out with `fetch-depth: 0` (actions/checkout) or fetch the base commit "
    "before the gate runs"
)
# What a missing, corrupt or unreadable object store raises while it is read.
UNREADABLE = (
    KeyError,
    ValueError,
    OSError,
    zlib.error,
    git_errors.NotGitRepository,
    git_errors.ObjectFormatException,
    git_errors.ChecksumMismatch,
    git_errors.FileFormatException,
    git_errors.ApplyDeltaError,
    git_errors.WrongObjectException,
)


class GitRevision:
    """The protected files as they are at `ref`, resolved to a commit on first use.

    Resolution is lazy so that a revision that cannot be read fails inside the gate,
    which then leaves a blocked report behind rather than a stale one.
    """

    def __init__(self, root: str, ref: str) -> None:
        self._root = root
        self._ref = ref
        self._read: dict[str, bytes] = {}
        self._committed: Committed | None = None

    @functools.cached_property
    def _repository(self) -> Repo:
        try:
            return Repo.discover(self._root)
        except UNREADABLE:
            raise InputError(
                f"--trusted-ref {self._ref}", f"{self._root} is not inside a git clone"
            ) from None

    @functools.cached_property
    def _commit(self) -> Commit:
        source = f"--trusted-ref {self._ref}"
        if not COMMIT_ID.fullmatch(self._ref):
            raise InputError(
                source,
                "not a full commit id (40 or 64 lowercase hex digits); a branch, "
                "tag or short id is refused",
            )
        store = self._repository.object_store
        try:
            found = store[ObjectID(self._ref.encode("ascii"))]
        except UNREADABLE as error:
            raise InputError(
                source,
                f"the revision is not in this clone or cannot be read ({_said(error)}); "
                f"{FETCH_ADVICE}",
            ) from None
        if not isinstance(found, Commit):
            raise InputError(source, f"names a {found.type_name.decode()}, not a commit")
        return found

    @property
    def commit(self) -> str:
        """The full commit id of the revision."""
        return self._commit.id.decode("ascii")

    @functools.cached_property
    def _prefix(self) -> str:
        """Where the gate's root sits inside the repository, as git spells it (the
        repository was found from the root, so the root is inside it)."""
        return repository_prefix(self._repository, self._root) or ""

    def _repository_path(self, path: str) -> str:
        """`path` (as given on the command line) relative to the repository's top level.

        Worked out from the names alone: a symlink in the working tree must not get to
        choose which blob of the trusted revision is read.
        """
        relative = os.path.relpath(os.path.abspath(path), os.path.abspath(self._root))
        if relative == ".." or relative.startswith("../") or os.path.isabs(relative):
            raise InputError(path, "a protected file must lie inside the repository root")
        repository_path = self._prefix + relative.replace(os.sep, "/")
        split_relative(repository_path, path)
        return repository_path

    def located(self, path: str) -> tuple[Repo, Commit, str]:
        """The clone, the revision's commit and `path` as git spells it there: where a
        reader of the file's history (store_history.py) starts."""
        return self._repository, self._commit, self._repository_path(path)

    @property
    def description(self) -> str:
        return f"trusted revision {self.commit}"

    @property
    def revision(self) -> str:
        return self.commit

    @property
    def given(self) -> str:
        return self._ref

    def read(self, path: str, limit: int) -> bytes:
        data, _ = self._read_file(path, limit, (REGULAR_FILE,))
        self._read[path] = data
        return data

    def read_file(self, path: str, limit: int) -> tuple[bytes, bool]:
        """A file's bytes and whether it is executable: what the restore writes back of a
        harness file (a runner's script is one). A symlink or submodule is still refused."""
        data, mode = self._read_file(path, limit, (REGULAR_FILE, EXECUTABLE_FILE))
        return data, mode == EXECUTABLE_FILE

    def _read_file(self, path: str, limit: int, modes: tuple[int, ...]) -> tuple[bytes, int]:
        commit = self._commit
        repository_path = self._repository_path(path)
        where = f"at trusted revision {self.commit}"
        try:
            data, mode = self._blob(commit, repository_path, path, where, modes)
        except UNREADABLE as error:
            raise InputError(
                path, f"{repository_path} {where} cannot be read: {_said(error)}"
            ) from None
        if len(data) > limit:
            raise InputError(
                path, f"{repository_path} {where} is larger than the cap of {limit} bytes"
            )
        return data, mode

    def _blob(
        self, commit: Commit, repository_path: str, path: str, where: str, modes: tuple[int, ...]
    ) -> tuple[bytes, int]:
        """The bytes and mode of the file at `repository_path`, if its mode is one of `modes`,
        walking one folder at a time, so that a symlink or submodule on the way is refused
        rather than followed."""
        store = self._repository.object_store
        tree = store[commit.tree]
        parts = repository_path.split("/")
        for depth, part in enumerate(parts):
            if not isinstance(tree, Tree):
                raise InputError(path, f"{repository_path} {where}: a folder is not a tree")
            try:
                mode, object_id = tree[part.encode("utf-8", "surrogateescape")]
            except KeyError:
                raise InputError(path, f"{repository_path} does not exist {where}") from None
            named = "/".join(parts[: depth + 1])
            if depth < len(parts) - 1:
                if mode != FOLDER_MODE:
                    found = MODES.get(mode, f"mode {mode:o}")
                    raise InputError(path, f"{named} is {found} {where}, not a folder")
                tree = store[object_id]
                continue
            if mode not in modes:
                found = MODES.get(mode, f"mode {mode:o}")
                raise InputError(path, f"{repository_path} is {found} {where}, not a regular file")
            blob = store[object_id]
            if not isinstance(blob, Blob):
                raise InputError(path, f"{repository_path} {where} is not a blob")
            return blob.as_raw_string(), mode
        raise InputError(path, f"{repository_path} does not exist {where}")

    def committed(self) -> Committed:
        """The change's commit (HEAD of the clone) beside the trusted revision, compared
        once however many readers ask."""
        if self._committed is None:
            self._committed = self._compare()
        return self._committed

    def _compare(self) -> Committed:
        repository = self._repository
        head = head_commit(repository, self._root)
        store = repository.object_store
        changed = set()
        try:
            for change in tree_changes(store, self._commit.tree, head.tree):
                for entry in (change.old, change.new):
                    if entry is not None and entry.path is not None:
                        path = entry.path.decode("utf-8", "surrogateescape")
                        if path.startswith(self._prefix):
                            changed.add(path[len(self._prefix) :])
        except UNREADABLE as error:
            raise InputError(
                "HEAD", f"the change's commit cannot be read: {_said(error)}"
            ) from None
        return Committed(
            CommitTree(repository, self._commit.tree, self._prefix),
            CommitTree(repository, head.tree, self._prefix),
            frozenset(changed),
            head.id.decode("ascii"),
            head.parents[1].decode("ascii") if len(head.parents) == 2 else None,
        )

    def changes(self) -> dict[str, WorkingTreeChange]:
        """Each protected file read so far whose working-tree bytes differ from the
        trusted blob: `modified`, `deleted`, or `not a regular file`."""
        found = {}
        for path, trusted in self._read.items():
            change = working_tree_change(path, trusted)
            if change is not None:
                found[path] = change
        return found


def repository_prefix(repository: Repo, folder: str) -> str | None:
    """Where `folder` sits in the repository's work tree, as git spells a path there: ""
    at the top, "sub/" below it, None outside it. Symlinks on the way are resolved."""
    top = os.path.realpath(repository.path)
    relative = os.path.relpath(os.path.realpath(folder), top).replace(os.sep, "/")
    if relative == ".." or relative.startswith("../"):
        return None
    return "" if relative == "." else relative + "/"


def head_commit(repository: Repo, root: str) -> Commit:
    """The commit checked out in the clone: the change's."""
    try:
        head = repository.object_store[repository.head()]
    except UNREADABLE as error:
        raise InputError(
            "HEAD", f"the commit checked out at {root} cannot be read: {_said(error)}"
        ) from None
    if not isinstance(head, Commit):
        raise InputError("HEAD", f"names a {head.type_name.decode()}, not a commit")
    return head


def tracked_in(root: str, path: str) -> list[str]:
    """The files at `path` (a file, or a folder as it is on disk) that the commit checked
    out at `root` tracks; nothing when `root` is not in a git clone or `path` lies outside."""
    try:
        repository = Repo.discover(root)
    except UNREADABLE:
        return []
    folder, only = (path, None) if os.path.isdir(path) else os.path.split(path)
    prefix = repository_prefix(repository, folder or ".")
    if prefix is None:
        return []
    tree = CommitTree(repository, head_commit(repository, root).tree, prefix)
    tracked = []
    pending = [""]
    while pending:
        current = pending.pop()
        for entry in tree.entries(current):
            name = f"{current}/{entry.name}" if current else entry.name
            if only is not None:
                if name == only and entry.kind != FOLDER:
                    tracked.append(path)
            elif entry.kind == FOLDER:
                pending.append(name)
            elif os.path.lexists(os.path.join(folder, name)):
                tracked.append(os.path.join(folder, name))
    return sorted(tracked)


def check_untracked(root: str, paths: Iterable[str | None]) -> None:
    """A report the change's commit tracks was not written by this run: code under test, or
    the change itself, can commit passing reports where the replays would write theirs."""
    for path in paths:
        tracked = [] if path is None else tracked_in(root, path)
        if tracked:
            raise InputError(
                tracked[0],
                "the change's commit tracks this file in the reports: every report must be "
                "written by this run (the reports folders start empty)",
            )


def working_tree_change(path: str, trusted: bytes) -> WorkingTreeChange | None:
    """How the file at `path` in the working tree differs from `trusted`, if it does."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return "deleted"
    except OSError:
        return "not a regular file"
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return "not a regular file"
    with os.fdopen(fd, "rb") as stream:
        current = stream.read(len(trusted) + 1)
    return None if current == trusted else "modified"


def _said(error: BaseException, limit: int = 300) -> str:
    if isinstance(error, KeyError):
        return "a git object is missing"
    text = " ".join(str(error).split()) or type(error).__name__
    return (text[:limit] + "…") if len(text) > limit else text
