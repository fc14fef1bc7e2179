"""The tree red-green replays run in: the trusted base's files, with the test code the
change's commit adds or edits laid over them.

The harness stays the base's, as in every replay (`conftest.py`, pytest's configuration,
modules that would be imported in pytest's place, and another runner's harness files), so
the change's own hooks cannot decide what its tests do on the base. Everything is written
from git blobs as regular files. Run where the project is installed (`waiver red-green`
on a developer's machine), the tree is given the packages installed in the work tree
(`link_installs`), which git does not track: without them no JavaScript runner starts.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from waiver.read.harness.named import Harness
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import FILE, FOLDER, FileTree
from waiver.runners.pytest.reach import TEST_FOLDERS, is_test_code
from waiver.write.tree.restore import write_beneath

MAX_FILE_BYTES = 64 << 20
# Where npm, pnpm and yarn install a package's dependencies, beside its package.json.
INSTALLS = "node_modules"
# Modules that would be imported in pytest's place: harness, never taken from the change.
SHADOWS = frozenset({"pytest.py", "sitecustomize.py", "usercustomize.py"})


def _walk(tree: FileTree, folder: str = "") -> Iterator[str]:
    for entry in tree.entries(folder):
        path = f"{folder}/{entry.name}" if folder else entry.name
        if entry.kind == FOLDER:
            yield from _walk(tree, path)
        elif entry.kind == FILE:
            yield path


def is_harness(path: str, harness: Harness) -> bool:
    name = path.rsplit("/", 1)[-1]
    return harness.covers(path) or name in SHADOWS or name.endswith(".pth")


def laid_files(committed: Committed, modules: frozenset[str], harness: Harness) -> list[str]:
    """The files of the change's commit to lay over the base: the test code it adds or
    edits (and the modules of the tests replayed), never the harness: pytest's, the
    policy's globs, and the files another runner loads, found in either commit."""
    loaded: set[str] = set()
    if harness.runner_files is not None:
        for tree in (committed.trusted, committed.head):
            loaded.update(path for path, _ in harness.runner_files(tree))
    return sorted(
        path
        for path in committed.changed
        if (is_test_code(path) or path in modules or _under_test_folder(path))
        and not is_harness(path, harness)
        and path not in loaded
        and committed.head.read(path, MAX_FILE_BYTES) is not None
    )


def _under_test_folder(path: str) -> bool:
    return bool(TEST_FOLDERS & set(path.split("/")[:-1]))


def lay_out(
    committed: Committed, modules: frozenset[str], folder: str, harness: Harness
) -> list[str]:
    """The base's files in `folder`, the change's test files over them; what was laid over.
    `harness` (the runner's, with the policy's globs) stays the base's."""
    for path in _walk(committed.trusted):
        data = committed.trusted.read(path, MAX_FILE_BYTES)
        if data is not None:
            write_beneath(folder, path, data, False)
    laid = laid_files(committed, modules, harness)
    for path in laid:
        data = committed.head.read(path, MAX_FILE_BYTES)
        if data is not None:
            write_beneath(folder, path, data, False)
    return laid


def link_installs(committed: Committed, root: str, folder: str) -> list[str]:
    """Each `node_modules` the work tree at `root` holds beside a package.json of the base,
    linked at its place in `folder`: the runner and the packages the code imports are the
    project's installed ones. Files the base itself tracks there stay the base's; each
    installed entry beside them is linked. The folders linked, in the base's order."""
    linked = []
    for path in _walk(committed.trusted):
        parent, _, name = path.rpartition("/")
        if name != "package.json" or INSTALLS in path.split("/"):
            continue
        place = f"{parent}/{INSTALLS}" if parent else INSTALLS
        installed = os.path.join(os.path.abspath(root), place)
        if os.path.isdir(installed):
            _link_missing(installed, os.path.join(folder, place))
            linked.append(place)
    return linked


def _link_missing(installed: str, laid: str) -> None:
    """`laid` as a link to `installed` where the tree has nothing there; inside a folder of
    tracked files, the same for each installed entry."""
    if not os.path.lexists(laid):
        os.symlink(installed, laid)
    elif os.path.isdir(installed) and os.path.isdir(laid) and not os.path.islink(laid):
        for name in sorted(os.listdir(installed)):
            _link_missing(os.path.join(installed, name), os.path.join(laid, name))
