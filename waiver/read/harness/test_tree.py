"""The trusted test tree: which files of a repository the base treats as test code or test
data, decided from the base's configuration alone.

The replays that decide a registered test's class run the base's test tree against the
change's code (SPEC 3.11): every file the base classifies as test code or data is put back
as the base holds it, and one the change added is taken out. A runner says what its test
tree is (`waiver.runners.base.Runner.test_tree`); the rules are the same for every runner:

- a test file the base's runner collects, by the base's configuration (pytest's
  `python_files` and `testpaths`, jest's `testMatch`, a `.mocharc`'s `spec`), and its
  configuration and setup files, which are its harness;
- every file under a folder named as tests are (`tests/`, `test/`, `__tests__/`, ...) that
  holds a test file the base collects, the innermost such folder above it: helpers,
  fixtures and data files beside the tests included. A configured test path is no test
  folder by itself: `testpaths = src tests` (doctests) would make the code under test
  test data;
- every file under a folder whose name makes it test data wherever it lies
  (`__snapshots__`, `__mocks__`).

A path is classified by these rules whichever commit holds it, so a test file the change
adds where the base's runner would collect it is test code, and is taken out. The folders
come from the base's tree alone: a change cannot make a folder of code into a test folder
by adding a test to it, and so hide its edits of that code from the replays. A file no
rule names is code, and the change's version of it runs. One named as the runner names
test files, but where the base's runner would not collect it, is said
(`TestTree.uncollected`), never run as evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class TestTree:
    """Which repository paths the trusted base treats as test code or test data."""

    __test__ = False  # not a pytest test class, despite its name

    # Whether the base's runner collects the path as a test file.
    collects: Callable[[str], bool]
    # Whether the path is test code beside the test files: under a folder that holds the
    # base's tests, or a file the runner loads with them wherever it lies (a conftest).
    in_test_folder: Callable[[str], bool]
    # Folder names whose files are test data wherever they lie.
    data_folders: frozenset[str]
    # Whether the path is named as the runner names test files, whatever the configuration.
    named_as_test: Callable[[str], bool]

    def holds(self, path: str) -> bool:
        """Whether `path` is test code or test data of the base's test tree."""
        if self.data_folders & set(path.split("/")[:-1]):
            return True
        return self.collects(path) or self.in_test_folder(path)

    def uncollected(self, path: str) -> bool:
        """Whether `path` is named as a test file but lies where the base's runner would not
        collect it: code, whose tests no replay runs."""
        return self.named_as_test(path) and not self.holds(path)


def test_folders(
    paths: Iterable[str], collects: Callable[[str], bool], names: frozenset[str]
) -> frozenset[str]:
    """The folders named as tests are (`names`) that hold a collected test file at any
    depth: the innermost such folder above each, so that `pkg/testing/tests/test_x.py`
    makes `pkg/testing/tests` a test folder and leaves the code of `pkg/testing/` alone."""
    found = set()
    for path in paths:
        parts = path.split("/")[:-1]
        depths = [depth for depth, part in enumerate(parts) if part in names]
        if depths and collects(path):
            found.add("/".join(parts[: depths[-1] + 1]))
    return frozenset(found)


def in_folders(folders: frozenset[str]) -> Callable[[str], bool]:
    """Whether a path lies under one of `folders`."""

    def holds(path: str) -> bool:
        parts = path.split("/")
        return any("/".join(parts[:depth]) in folders for depth in range(1, len(parts)))

    return holds
