"""A repository's tree as one listing: every entry by folder, but `.git` and real virtualenvs.

The harness resolver looks a module name up at many import roots and a folder's entries many
times over; one walk lists the tree once, so that each look-up is a dictionary's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from waiver.read.trusted.trees import FILE, FOLDER, Entry, FileTree

# What `python -m venv` (or virtualenv) leaves in a virtualenv's folder, and nothing more.
VIRTUALENV_LAYOUT = frozenset(
    {"pyvenv.cfg", ".gitignore", "bin", "Scripts", "include", "Include", "lib", "Lib", "lib64"}
    | {"share", "etc", "CACHEDIR.TAG"}
)
INTERPRETER_FOLDER = re.compile(r"python3\.\d+\Z")
SKIPPED_FOLDERS = frozenset({".git"})


def join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def folder_of(path: str) -> str:
    return path.rpartition("/")[0]


def name_of(path: str) -> str:
    return path.rpartition("/")[2]


@dataclass
class Listing:
    """Every non-folder entry of the tree by folder, and every folder, as the walk found them."""

    kinds: dict[str, dict[str, str]] = field(default_factory=dict)
    folders: set[str] = field(default_factory=lambda: {""})
    children: dict[str, list[str]] = field(default_factory=dict)
    # The module files of a folder by the name they import as, built on first look: a
    # look-up then costs the same in a folder of ten files as in one of ten thousand.
    _modules: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)

    def module_files(self, folder: str, stem: str) -> tuple[str, ...]:
        """The files of `folder` that Python would import as module `stem`."""
        if folder not in self._modules:
            by_stem: dict[str, list[str]] = {}
            for name in self.kinds.get(folder, {}):
                found = name.partition(".")[0]
                if is_module_file(name, found):
                    by_stem.setdefault(found, []).append(join(folder, name))
            self._modules[folder] = {name: tuple(files) for name, files in by_stem.items()}
        return self._modules[folder].get(stem, ())

    def paths(self) -> Iterator[str]:
        for folder, names in self.kinds.items():
            for name in names:
                yield join(folder, name)

    def kind(self, path: str) -> str:
        """The kind of a path the walk found."""
        return self.kinds[folder_of(path)][name_of(path)]

    def files_under(self, folder: str) -> list[str]:
        """Every non-folder entry under `folder`, at any depth."""
        found, pending = [], [folder]
        while pending:
            current = pending.pop()
            found += [join(current, name) for name in self.kinds.get(current, {})]
            pending += [join(current, name) for name in self.children.get(current, [])]
        return found


def is_module_file(name: str, stem: str) -> bool:
    """Whether the file `name` is module `stem`: source, bytecode or an extension module."""
    if not name.startswith(stem + "."):
        return False
    suffix = name[len(stem) :]
    return suffix in (".py", ".pyc", ".pyw") or suffix.endswith((".so", ".pyd"))


def is_virtualenv(tree: FileTree, folder: str, entries: list[Entry]) -> bool:
    """A real virtualenv's folder: pytest collects nothing in it, so neither does the scan."""
    kinds = {entry.name: entry.kind for entry in entries}
    if kinds.get("pyvenv.cfg") != FILE or not kinds.keys() <= VIRTUALENV_LAYOUT:
        return False
    names = {entry.name for entry in tree.entries(join(folder, "bin"))}
    windows = {entry.name for entry in tree.entries(join(folder, "Scripts"))}
    if "python" in names:
        return any(
            INTERPRETER_FOLDER.match(entry.name)
            and _has_folder(tree, join(folder, f"lib/{entry.name}"), "site-packages")
            for entry in tree.entries(join(folder, "lib"))
        )
    return "python.exe" in windows and _has_folder(tree, join(folder, "Lib"), "site-packages")


def _has_folder(tree: FileTree, folder: str, name: str) -> bool:
    return any(entry.name == name and entry.kind == FOLDER for entry in tree.entries(folder))


def walk(tree: FileTree) -> Listing:
    """Every entry of the tree, but `.git` and real virtualenvs."""
    listing = Listing()
    pending = [""]
    while pending:
        folder = pending.pop()
        entries = tree.entries(folder)
        if folder and is_virtualenv(tree, folder, entries):
            entries = []  # pytest collects nothing in it, and neither does the scan
        names = listing.kinds.setdefault(folder, {})
        children = listing.children.setdefault(folder, [])
        for entry in entries:
            path = join(folder, entry.name)
            if entry.kind != FOLDER:
                names[entry.name] = entry.kind
            elif entry.name not in SKIPPED_FOLDERS:
                listing.folders.add(path)
                children.append(entry.name)
                pending.append(path)
    return listing
