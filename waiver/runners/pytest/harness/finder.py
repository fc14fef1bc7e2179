"""pytest's harness finder (`waiver.read.harness.named.HarnessFinder`): what the lock, the
drift and the restore ask of pytest, which every runner's lock holds.

By name, a conftest and pytest's configuration files are harness wherever they lie; what
they load is resolved from files alone (`waiver.runners.pytest.harness.resolve`); and the
data beside the tests lies under the folders the trusted configuration collects from
(`waiver.runners.pytest.harness.collected`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from waiver.read.harness.listing import name_of, walk
from waiver.read.harness.named import Harness, Pair, Why
from waiver.read.trusted.trees import FileTree
from waiver.runners.pytest.harness.collected import (
    CONFIG_FILES,
    CONFTEST,
    PYPROJECT,
    collection,
    is_data_file,
    suite_folders,
)
from waiver.runners.pytest.harness.plugin_options import ENTRY_POINTS_TABLES, PYTEST_TABLE
from waiver.runners.pytest.harness.resolve import resolution


class PytestFinder:
    def by_name(self, path: str) -> bool:
        name = name_of(path)
        return name in CONFIG_FILES or name in (CONFTEST, PYPROJECT)

    def resolve(
        self, tree: FileTree, harness: Harness, may_set_plugins: Callable[[str], bool]
    ) -> dict[Pair, Why]:
        """Whole files, and of a `pyproject.toml` only pytest's two tables (unless a policy
        glob names it whole)."""
        found = resolution(tree, harness, may_set_plugins)
        pairs: dict[Pair, Why] = {}
        for path in sorted(found.files):
            why = found.why[path]
            if name_of(path) == PYPROJECT:
                pairs |= {(path, table): why for table in (PYTEST_TABLE, *ENTRY_POINTS_TABLES)}
                if not harness.names(path):
                    continue
            pairs[(path, None)] = why
        return pairs

    def test_data(self, tree: FileTree, paths: Sequence[str]) -> list[str]:
        """Beside the tests means under a folder of the configuration's `testpaths`, or the
        top folder of its test modules; a data file is any file but Python's, documentation
        and git's (`waiver.runners.pytest.harness.collected`)."""
        candidates = [path for path in paths if is_data_file(path)]
        if not candidates:
            return []
        listing = walk(tree)
        folders = suite_folders(collection(tree, listing.folders), listing)
        return [path for path in candidates if folders.holds(path)]


PYTEST_FINDER = PytestFinder()
