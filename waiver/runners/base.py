"""What the gate asks of a test runner: the same few questions, whichever runner it is.

The gate reads JUnit from any producer, but what protects a verdict is the runner's: which
files are its harness, which are its test tree, how a report's testcase becomes a test id and which file that id
names, how a test's definition is compared between two commits, and what `waiver init`
writes to run it. Each runner answers these in a package of its own (`waiver.runners`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from waiver.read.definitions.edit_kinds import EditFinding
from waiver.read.harness.named import Harness, Pair, Why
from waiver.read.harness.reach_in import ReachIn
from waiver.read.harness.test_tree import TestTree
from waiver.read.junit.testid import TestIdRule
from waiver.read.lock.lock_file import LockTables
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import FileTree


class Runner(Protocol):
    """One test runner, as the gate sees it."""

    @property
    def name(self) -> str:
        """The runner's name, as the policy file's `runner:` key spells it."""

    @property
    def lock_tables(self) -> LockTables:
        """The tables of a file its harness locks each on a line of its own, and how each
        is read (`LockTables`): pytest's, which every runner's lock holds, and its own."""

    def harness(self, patterns: Sequence[str], modules: frozenset[str]) -> Harness:
        """Which files of a tree are its harness: the built-in names and what they load, the
        policy's `harness:` globs (`patterns`) and the property-suite `modules`."""

    def files(self, tree: FileTree) -> Mapping[Pair, Why]:
        """The files this runner loads beyond pytest's built-in harness, found in `tree`,
        each with why it is harness."""

    def test_tree(self, tree: FileTree) -> TestTree:
        """Which files of a repository are test code or test data, by the configuration in
        `tree` (the trusted base's): what the verdict replays take from the base."""

    def test_ids(self, root: str | None) -> TestIdRule:
        """The rule that turns a report's testcase into a test id, for reports and the
        registry alike."""

    def test_file(self, test_id: str) -> str | None:
        """The repository file a test id names; None when it names none."""

    def declared(self, tree: FileTree, path: str) -> list[str]:
        """The ids of the tests the test file at `path` of `tree` declares, where its text
        spells them whole (a parametrization or a computed title is decided by the run)."""

    def edited(self, committed: Committed, test_ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """Each of `test_ids` whose definition the change's commit edited, with what changed."""

    def findings(
        self, committed: Committed, edited: Mapping[str, Sequence[str]]
    ) -> dict[str, tuple[EditFinding, ...]]:
        """The named kinds of each edit in `edited` (as `edited` found them), by test id:
        loosened assertions, added marks, tautologies (`waiver.runners.pytest.findings`)."""

    def diffs(
        self, committed: Committed, edited: Mapping[str, Sequence[str]]
    ) -> dict[str, tuple[str, ...]]:
        """A short diff of each test in `edited` (as `edited` found them), by test id: each
        changed part on the trusted revision against the change's; none where no part has
        lines to show."""

    def reach_ins(self, committed: Committed) -> list[ReachIn]:
        """What the change's code under test newly does that reaches into this runner."""

    def title(self, test_id: str) -> str:
        """The test's name as the runner's own name filter matches it (jest's `-t`, vitest's
        `-t`, mocha's `--grep`): the id without its file, its titles joined by spaces."""

    def load_failure(self, test_file: str) -> tuple[str, str] | None:
        """The (classname, name) of the failed testcase by which the runner's report says
        `test_file` could not be loaded (pytest's collection error, jest's "Test suite
        failed to run", vitest's case named by the file); None where it writes none."""

    def red_green_command(self) -> str:
        """The shell command `waiver init` writes for the red-green job: it runs the tests of
        one test file, "$WAIVER_TEST_FILE", listed by id in the file "$WAIVER_TESTS" (one a
        line) and matched by their names by "$WAIVER_TEST_PATTERN", once, and writes their
        JUnit report to "$WAIVER_JUNIT"."""
