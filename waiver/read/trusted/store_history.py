"""Every version of the freeze store in the git history of a trusted revision: what `git
log -- freezes.json` lists, read as blobs through dulwich like every trusted file
(git.py), so no git program, hook or repository config runs and the working tree is never
read.

Every commit the revision reaches counts, merges' other parents included, as `git log`
walks them. A version that cannot be used (it does not parse, it is a symlink, it is too
large) is skipped and named: one bad commit in the past must not hide the rest of the
history, nor pass for an empty one. A clone whose history stops short (a shallow clone)
is said, since freezes before the cut cannot be counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from dulwich.object_store import BaseObjectStore
from dulwich.objects import Blob, Commit, ObjectID, Tree

from waiver.decide.renewals import StoreVersion
from waiver.errors import InputError
from waiver.read.stores.freeze_store import MAX_STORE_BYTES, parse_freezes
from waiver.read.trusted.git import FOLDER_MODE, MODES, REGULAR_FILE, UNREADABLE, GitRevision

# The entry a commit holds at the store's path: its mode, object and the path it names,
# which is a folder on the way when that is not a folder.
Entry = tuple[int, bytes, str]


@dataclass(frozen=True)
class Skipped:
    """A version of the store that could not be read: the earliest commit holding it."""

    commit: str
    reason: str


@dataclass(frozen=True)
class StoreHistory:
    path: str  # the store's path in the repository
    revision: str
    versions: tuple[StoreVersion, ...]  # each after the versions its commit descends from
    skipped: tuple[Skipped, ...]
    cut: tuple[str, ...]  # commits whose parents the clone lacks


def _entry(store: BaseObjectStore, tree_id: ObjectID, parts: list[str]) -> Entry | None:
    tree = store[tree_id]
    for depth, part in enumerate(parts):
        if not isinstance(tree, Tree):
            return None
        try:
            mode, object_id = tree[part.encode("utf-8", "surrogateescape")]
        except KeyError:
            return None
        if depth == len(parts) - 1 or mode != FOLDER_MODE:
            return mode, object_id, "/".join(parts[: depth + 1])
        tree = store[object_id]
    return None


def _walk(store: BaseObjectStore, tip: Commit) -> tuple[list[Commit], list[str]]:
    """Every commit `tip` reaches, each after its parents, and the commits whose parents
    the clone lacks."""
    order: list[Commit] = []
    cut: list[str] = []
    entered: set[bytes] = set()
    stack: list[tuple[Commit, bool]] = [(tip, False)]
    while stack:
        commit, parents_done = stack.pop()
        if parents_done:
            order.append(commit)
            continue
        if commit.id in entered:
            continue
        entered.add(commit.id)
        stack.append((commit, True))
        for parent in reversed(commit.parents):
            if parent in entered:
                continue
            try:
                found = store[parent]
            except KeyError:
                found = None
            if isinstance(found, Commit):
                stack.append((found, False))
            elif commit.id.decode("ascii") not in cut:
                cut.append(commit.id.decode("ascii"))
    return order, cut


def _holders(
    store: BaseObjectStore, commits: list[Commit], parts: list[str]
) -> dict[Entry, Commit]:
    """Each distinct entry at the store's path with the first of `commits` that holds it."""
    first: dict[Entry, Commit] = {}
    for commit in commits:
        entry = _entry(store, commit.tree, parts)
        if entry is not None and entry not in first:
            first[entry] = commit
    return first


def _author(commit: Commit) -> str:
    name = commit.author.split(b" <", 1)[0].decode("utf-8", "replace").strip()
    return name or "an unnamed author"


def _version(store: BaseObjectStore, entry: Entry, commit: Commit, path: str) -> StoreVersion:
    mode, object_id, named = entry
    if mode != REGULAR_FILE:
        found = MODES.get(mode, f"mode {mode:o}")
        raise InputError(path, f"{named} is {found}, not a regular file")
    blob = store[ObjectID(object_id)]
    if not isinstance(blob, Blob):
        raise InputError(path, "not a blob")
    data = blob.as_raw_string()
    if len(data) > MAX_STORE_BYTES:
        raise InputError(path, f"larger than the cap of {MAX_STORE_BYTES} bytes")
    records = parse_freezes(data, path)
    return StoreVersion(
        commit.id.decode("ascii"),
        _author(commit),
        datetime.fromtimestamp(commit.commit_time, UTC),
        tuple(record.fields for record in records),
    )


def read_store_history(revision: GitRevision, path: str) -> StoreHistory:
    """The versions of the store at `path` that `revision` reaches, oldest first."""
    repository, tip, repository_path = revision.located(path)
    store = repository.object_store
    try:
        commits, cut = _walk(store, tip)
        holders = _holders(store, commits, repository_path.split("/"))
    except UNREADABLE:
        raise InputError(
            path, f"the git history of {repository_path} at {revision.commit} cannot be read"
        ) from None
    versions, skipped = [], []
    for entry, commit in holders.items():
        try:
            versions.append(_version(store, entry, commit, repository_path))
        except InputError as error:
            skipped.append(Skipped(commit.id.decode("ascii"), error.problem))
        except UNREADABLE:
            skipped.append(Skipped(commit.id.decode("ascii"), "its blob cannot be read"))
    return StoreHistory(
        repository_path, revision.commit, tuple(versions), tuple(skipped), tuple(sorted(cut))
    )
