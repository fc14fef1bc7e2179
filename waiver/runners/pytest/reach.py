"""Which test modules a change can reach: the ones it edits, those in a package whose
`__init__.py` it edits, and the ones whose text names a module it edits, followed through
the test code that names those in turn.

Edited-test detection parses a test module on both commits only when the change can have
edited a definition in it. A module can only use another module's names by naming it, so
a test module whose text names no changed module, directly or through test code that does,
needs no parsing: a change that edits no test code costs a listing of the tree and no more.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from fnmatch import fnmatchcase

from waiver.errors import InputError
from waiver.read.harness.listing import walk
from waiver.read.harness.named import MAX_MODULE_BYTES
from waiver.read.trusted.trees import CommitTree, FileTree

TEST_FOLDERS = frozenset({"tests", "test", "testing"})
# Test code by its file name: pytest's default test modules (resolve.TEST_MODULES) and
# conftest.py.
TEST_CODE_FILES = ("test_*.py", "*_test.py", "conftest.py")


def is_test_code(path: str) -> bool:
    """Whether a module is test code that a test's definition follows into: under a test
    folder, or named like a test module."""
    parts = path.split("/")
    name = parts[-1]
    return bool(TEST_FOLDERS & set(parts[:-1])) or any(
        fnmatchcase(name, p) for p in TEST_CODE_FILES
    )


def module_stem(path: str) -> str:
    """The last part of the name a module is imported by: `tests/helpers/__init__.py` is
    `helpers`, `tests/test_x.py` is `test_x`."""
    folder, _, name = path.rpartition("/")
    return folder.rpartition("/")[2] if name == "__init__.py" else name.removesuffix(".py")


class Texts:
    """Modules' bytes, each blob read once: a file the change left alone has the same blob
    on both commits, and a commit's folder gives a file's blob id without reading it."""

    def __init__(self) -> None:
        self._blobs: dict[bytes, bytes | None] = {}

    def read(self, tree: FileTree, path: str) -> bytes | None:
        """`tree.read` of a module (an input error as it raises one)."""
        blob = tree.blob_id(path) if isinstance(tree, CommitTree) else None
        if blob is None:
            return tree.read(path, MAX_MODULE_BYTES)
        if blob not in self._blobs:
            self._blobs[blob] = tree.read(path, MAX_MODULE_BYTES)
        return self._blobs[blob]


def _text(tree: FileTree, path: str, texts: Texts) -> bytes:
    try:
        return texts.read(tree, path) or b""
    except InputError:
        return b""


def reached_modules(
    tree: FileTree, changed: Iterable[str], test_modules: Iterable[str]
) -> set[str]:
    """The test modules (of `test_modules`) whose definitions a change of `changed` can
    reach in the commit `tree`."""
    modules = set(test_modules)
    tops = frozenset(module.partition("/")[0] for module in modules if "/" in module)
    return modules & _affected(tree, frozenset(changed), tops)


# The registry is compared in parts (`waiver.gate.edited_tests`), each asking of the same two
# trees: what a change reaches is worked out once for each.
@functools.lru_cache(maxsize=4)
def _affected(tree: FileTree, changed: frozenset[str], tops: frozenset[str]) -> frozenset[str]:
    """The test code (and the code under the test modules' top folders) a change of
    `changed` can reach in `tree`: what it changes, and what names it, followed."""
    texts = Texts()
    code = [
        path
        for path in walk(tree).paths()
        if path.endswith(".py") and (is_test_code(path) or path.partition("/")[0] in tops)
    ]
    changed_code = {path for path in changed if path.endswith(".py")}
    # Importing a module runs the `__init__` of each package it lies in, unnamed.
    packages = [
        path[: -len("/__init__.py")] for path in changed_code if path.endswith("/__init__.py")
    ]
    changed_code |= {path for path in code if any(path.startswith(p + "/") for p in packages)}
    stems = {module_stem(path) for path in changed_code}
    affected = set(changed_code)
    pending = [path for path in code if path not in affected]
    while stems:
        pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(s.encode()) for s in stems) + rb")\b")
        stems = set()
        still = []
        for path in pending:
            if pattern.search(_text(tree, path, texts)):
                affected.add(path)
                stems.add(module_stem(path))
            else:
                still.append(path)
        pending = still
    return frozenset(affected)
