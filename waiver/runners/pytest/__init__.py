"""pytest behind the runner interface, and all else waiver knows of pytest alone.

Its harness is the one `waiver.runners.pytest.harness` finds and every runner's lock
holds (conftests, configuration files, plugin modules, shadowing modules: [the
harness](../../../docs/harness.md)); its test tree is what its configuration collects and
the test folders that hold it (`waiver.runners.pytest.pytest_tree`); its ids are the rule of
`waiver.read.junit.testid`; its edited tests are compared by Python's syntax tree
(`waiver.runners.pytest.edited`), their kinds named (`waiver.runners.pytest.findings`) and
shown as a diff (`waiver.runners.pytest.diff`); what code under test does to reach into it
is `waiver.runners.pytest.python_reach`; and `waiver init` finds its layout and writes its
commands (`waiver.runners.pytest.setup.pytest_plan`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from waiver.read.definitions.edit_kinds import EditFinding
from waiver.read.harness.named import Harness, Pair, Why
from waiver.read.harness.reach_in import ReachIn
from waiver.read.harness.test_tree import TestTree
from waiver.read.junit.testid import TestIdRule
from waiver.read.lock.lock_file import LockTables
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import FileTree
from waiver.runners.installs import python_install_edits
from waiver.runners.pytest.declared import declared_tests
from waiver.runners.pytest.diff import definition_diffs
from waiver.runners.pytest.edited import edited_tests
from waiver.runners.pytest.findings import edit_findings
from waiver.runners.pytest.harness.finder import PYTEST_FINDER
from waiver.runners.pytest.harness.plugin_options import PYTEST_LOCK_TABLES
from waiver.runners.pytest.pytest_tree import pytest_test_tree
from waiver.runners.pytest.python_reach import new_reach_ins

# The ids go to pytest as arguments, one a line of the file (`-r`: an empty file runs
# nothing rather than the whole suite); `--rootdir=.` reads them from the repository root.
RED_GREEN_COMMAND = (
    "xargs -r -d '\\n' -a \"$WAIVER_TESTS\" python -m pytest -p no:cacheprovider --rootdir=. "
    '--junitxml="$WAIVER_JUNIT"'
)


class Pytest:
    @property
    def name(self) -> str:
        return "pytest"

    @property
    def lock_tables(self) -> LockTables:
        return PYTEST_LOCK_TABLES

    def harness(self, patterns: Sequence[str], modules: frozenset[str]) -> Harness:
        return Harness(PYTEST_FINDER, tuple(patterns), modules, lock_tables=self.lock_tables)

    def files(self, tree: FileTree) -> Mapping[Pair, Why]:
        return {}  # pytest's harness is the built-in one

    def test_tree(self, tree: FileTree) -> TestTree:
        return pytest_test_tree(tree)

    def test_ids(self, root: str | None) -> TestIdRule:
        return TestIdRule(root)

    def test_file(self, test_id: str) -> str | None:
        path, separator, _ = test_id.partition("::")
        return path if separator and path.endswith(".py") else None

    def declared(self, tree: FileTree, path: str) -> list[str]:
        return declared_tests(tree, path) if path.endswith(".py") else []

    def edited(self, committed: Committed, test_ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
        return edited_tests(committed, test_ids)

    def findings(
        self, committed: Committed, edited: Mapping[str, Sequence[str]]
    ) -> dict[str, tuple[EditFinding, ...]]:
        return edit_findings(committed, edited)

    def diffs(
        self, committed: Committed, edited: Mapping[str, Sequence[str]]
    ) -> dict[str, tuple[str, ...]]:
        return definition_diffs(committed, edited)

    def reach_ins(self, committed: Committed) -> list[ReachIn]:
        found = [*new_reach_ins(committed), *python_install_edits(committed)]
        return sorted(found, key=lambda reach: (reach.path, reach.line, reach.what))

    def title(self, test_id: str) -> str:
        return test_id.partition("::")[2]

    def load_failure(self, test_file: str) -> tuple[str, str]:
        return "", test_file.removesuffix(".py").replace("/", ".")

    def red_green_command(self) -> str:
        return RED_GREEN_COMMAND


PYTEST = Pytest()
