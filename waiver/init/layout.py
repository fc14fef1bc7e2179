"""A repository's test layout as `waiver init` builds on it, whatever the runner: where the
tests, the property suite and the fixtures are (`Layout`), found by each runner's package
from the repository's files (`waiver.runners.pytest.setup.pytest_layout`,
`waiver.runners.node.setup.node_layout`); the folder names they look for, the fixture folders
that hold a symlink taken apart, and the default branch."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from dulwich.errors import NotGitRepository
from dulwich.refs import Ref
from dulwich.repo import Repo

from waiver.read.trusted.ignored import ignored_folders

TEST_FOLDERS = ("tests", "test", "testing")
PROPERTY_FOLDERS = frozenset({"properties", "property"})
FIXTURE_FOLDERS = frozenset(
    {"fixtures", "fixture", "data", "testdata", "test_data", "golden", "goldens", "snapshots"}
)
SKIPPED = frozenset(
    {".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".nox", "build", "dist"}
)


@dataclass(frozen=True)
class Layout:
    """Where a repository keeps its tests; paths are relative to the root, `/`-separated."""

    pytest_config: str | None  # the file pytest reads its configuration from, if any
    test_folders: tuple[str, ...]
    property_suites: tuple[str, ...]  # folders of their own; empty with a selection or none
    fixture_folders: tuple[str, ...]
    # Modules using hypothesis outside a property folder, when they could not be taken as one.
    scattered_properties: tuple[str, ...] = ()
    # The pytest words that select the property tests among the tests (`-m hypothesis`,
    # `-k EXPR` or test ids), when they share modules with other tests.
    property_selection: tuple[str, ...] = ()
    # Data files beside the tests, outside every fixture folder: fixtures file by file.
    data_files: tuple[str, ...] = ()
    # Symlinks in the fixture folders, which the lock cannot hold: their folders' other
    # files are among the data files instead.
    linked: tuple[str, ...] = ()

    @property
    def fixtures_root(self) -> str:
        """The folder the gate's --fixtures names: the one fixture folder, or the deepest
        folder holding all of them, whose files the policy's `fixtures:` globs then pick; the
        root when there is none, since the policy then says no file is a fixture."""
        if not self.fixture_folders and not self.data_files:
            return "."
        if len(self.fixture_folders) == 1 and not self.data_files:
            return self.fixture_folders[0]
        holders = [*self.fixture_folders, *(os.path.dirname(path) for path in self.data_files)]
        common = os.path.commonpath(holders).replace(os.sep, "/") if all(holders) else ""
        return common or "."

    @property
    def fixture_globs(self) -> tuple[str, ...]:
        """Globs over paths inside fixtures_root; none for a single folder (all its files).
        Each fixture folder's files, and each data file beside the tests by its name."""
        if len(self.fixture_folders) < 2 and not self.data_files:
            return ()
        root = self.fixtures_root

        def inner(path: str) -> str:
            return path if root == "." else path[len(root) + 1 :]

        folders = (f"{inner(folder)}/*" for folder in self.fixture_folders)
        return (*folders, *(literal_glob(inner(path)) for path in self.data_files))


def without_links(layout: Layout, root: str = ".") -> Layout:
    """The layout with each fixture folder that holds a symlink at any depth taken apart:
    its regular files are locked one by one, as data files, and its links are named. A lock
    holds bytes, and a link is a pointer the gate would have to trust."""
    folders: list[str] = []
    files: list[str] = []
    links: list[str] = []
    ignored = ignored_folders(root, None)
    for folder in layout.fixture_folders:
        regular, linked = [], []
        for current, names, found in os.walk(os.path.join(root, folder)):
            relative = os.path.relpath(current, root).replace(os.sep, "/")
            names[:] = [
                name for name in names if name not in SKIPPED and not ignored(f"{relative}/{name}")
            ]
            for name in [*names, *found]:
                path = f"{relative}/{name}"
                if os.path.islink(os.path.join(root, path)):
                    linked.append(path)
                elif name in found:
                    regular.append(path)
        if linked:
            files += regular
            links += linked
        else:
            folders.append(folder)
    if not links:
        return layout
    data = tuple(sorted({*layout.data_files, *files}))
    return replace(
        layout, fixture_folders=tuple(folders), data_files=data, linked=tuple(sorted(links))
    )


def literal_glob(path: str) -> str:
    """A glob that names `path` alone, whatever characters its name holds."""
    return "".join(f"[{char}]" if char in "*?[" else char for char in path)


def default_branch(root: str) -> str:
    """The branch the history is kept for: origin's default (its HEAD), else the branch
    checked out, else main."""
    try:
        refs = Repo.discover(root).refs
        for name in (b"refs/remotes/origin/HEAD", b"HEAD"):
            # A symbolic ref reads as `ref: refs/heads/main`.
            target = bytes(refs.read_ref(Ref(name)) or b"").removeprefix(b"ref: ")
            for prefix in (b"refs/remotes/origin/", b"refs/heads/"):
                if target.startswith(prefix):
                    return target[len(prefix) :].decode("utf-8")
    except (OSError, ValueError, KeyError, UnicodeDecodeError, NotGitRepository):
        pass
    return "main"


def inside(path: str, folder: str) -> bool:
    """Whether the repository path `path` is the folder `folder` or lies below it."""
    return path == folder or path.startswith(folder + "/")
