"""pytest's trusted test tree: the modules the base's configuration collects, every conftest,
and the test folders that hold collected modules, by the rules every runner's test tree
keeps (`waiver.read.harness.test_tree`)."""

from __future__ import annotations

from fnmatch import fnmatchcase

from waiver.read.harness.listing import Listing, name_of, walk
from waiver.read.harness.test_tree import TestTree, in_folders, test_folders
from waiver.read.trusted.trees import FileTree
from waiver.runners.pytest.harness.collected import CONFTEST, TEST_MODULES, collection

# Folders named as a project's tests are: one that holds a collected test file is a test
# folder, with all it holds.
PYTEST_FOLDERS = frozenset({"tests", "test", "testing"})
# Folders of test data wherever they lie: snapshot plugins write `__snapshots__` beside the
# test modules.
PYTEST_DATA_FOLDERS = frozenset({"__snapshots__"})


def _named_as_pytest_test(path: str) -> bool:
    return any(fnmatchcase(name_of(path), pattern) for pattern in TEST_MODULES)


def pytest_test_tree(tree: FileTree, listing: Listing | None = None) -> TestTree:
    """pytest's test tree in the base `tree`: the modules its configuration collects and
    every conftest (`waiver.runners.pytest.harness.collected`), and the test folders that hold
    collected modules."""
    listing = listing or walk(tree)
    found = collection(tree, listing.folders)
    modules = [path for path in listing.paths() if path.endswith(".py")]
    folders = in_folders(test_folders(modules, found.collects, PYTEST_FOLDERS))

    def beside(path: str) -> bool:
        return name_of(path) == CONFTEST or folders(path)

    return TestTree(found.collects, beside, PYTEST_DATA_FOLDERS, _named_as_pytest_test)
