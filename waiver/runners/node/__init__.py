"""What jest, vitest and mocha share behind the runner interface: a harness that is resolved
from their configuration (`waiver.runners.node.node_harness`), and ids read from a report's
`file` attribute, which their JUnit reporters write where they are told to.

An id is `<file path>::<describe path> <title>`: the file as a path relative to the
repository root, so that the gate can map a test to its file, and two tests with one title
in two files are two ids.
"""

from __future__ import annotations

import os
import posixpath
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from waiver.read.definitions.edit_kinds import EditFinding
from waiver.read.harness.named import Harness, Pair, Why
from waiver.read.harness.reach_in import ReachIn
from waiver.read.harness.test_tree import TestTree
from waiver.read.junit.testid import CaseId, TestIdRule
from waiver.read.lock.lock_file import LockTables
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import FileTree
from waiver.runners.installs import node_install_edits
from waiver.runners.node.js_definitions import declared_scripts, edited_scripts, script_ids
from waiver.runners.node.js_diff import script_diffs
from waiver.runners.node.js_findings import script_findings
from waiver.runners.node.js_reach import new_script_reach_ins
from waiver.runners.node.js_tests import EMPTY_TITLE
from waiver.runners.node.node_harness import NodeRunnerFiles, node_harness
from waiver.runners.node.node_test_tree import SpecKeys, node_test_tree
from waiver.runners.pytest.diff import definition_diffs
from waiver.runners.pytest.edited import edited_tests
from waiver.runners.pytest.findings import edit_findings
from waiver.runners.pytest.harness.finder import PYTEST_FINDER
from waiver.runners.pytest.harness.plugin_options import PYTEST_LOCK_TABLES
from waiver.runners.pytest.python_reach import new_reach_ins

# How a runner reads one testcase, given where the report's `file` is in the repository
# ("" when it cannot be placed) and whether the testcase carried it itself: its id, or None
# to read it as any other report's.
ReadCase = Callable[[str, str, str, str, bool], str | None]
# The local binary every package manager links, but Plug'n'Play: the written commands never
# download a runner (`npx jest` fetches one when the project's is missing).
BINARY = "node_modules/.bin/{runner}"
JEST_JUNIT = "jest-junit"


@dataclass(frozen=True)
class Invocation:
    """How the written commands start the runner: its local binary, with the environment,
    options and arguments the project's own test script gives it, and the module jest
    loads its JUnit reporter from."""

    environment: tuple[tuple[str, str], ...] = ()  # (name, value) before the binary
    options: tuple[str, ...] = ()  # the script's options, in both commands
    arguments: tuple[str, ...] = ()  # the script's own test paths: the test command's
    reporter: str = JEST_JUNIT

    def start(self, runner: str, *before: str, command: str = "") -> str:
        """The shell words that start `runner`: `before` (the reporter's settings, as
        they are), the script's environment, the binary, its `command` (vitest's `run`)
        and the script's options."""
        variables = [f"{name}={shlex.quote(value)}" for name, value in self.environment]
        binary = BINARY.format(runner=runner)
        return words(*before, *variables, binary, command, shlex.join(self.options))

    def paths(self) -> str:
        """The script's own test paths, as shell words."""
        return shlex.join(self.arguments)


def words(*parts: str) -> str:
    """Shell text of `parts` joined by spaces, the empty ones left out."""
    return " ".join(part for part in parts if part)


@dataclass(frozen=True)
class LeftOut:
    """An option of a test script the written commands leave out: whether it takes a
    value, and why it is left out."""

    takes_value: bool
    why: str


# The commands `waiver init` writes, given the property suite's folders and files and how
# the project starts the runner: the property suite's alone, and every other test's.
SuiteCommands = Callable[[Sequence[str], Sequence[str], Invocation], tuple[str, str]]


def repository_file(root: str | None, file: str) -> str:
    """A report's `file` as a path relative to the repository root; "" when it names no
    file there.

    A relative path is taken as it is. An absolute one is cut at the root; the replays may
    have run in another checkout of the repository (another job, a container), so failing
    that, the longest tail of it that names a file under the root is taken. Only plain
    names are looked up, and only with `stat`.
    """
    path = file.replace("\\", "/")
    if not path:
        return ""
    if not posixpath.isabs(path) and path[1:3] != ":/":
        normal = posixpath.normpath(path)
        return "" if normal.startswith("../") or normal == ".." else normal
    if root is None:
        return ""
    top = os.path.realpath(root).replace("\\", "/").rstrip("/") + "/"
    if path.startswith(top):
        return path[len(top) :]
    parts = path.split("/")
    for start in range(1, len(parts)):
        tail = parts[start:]
        if any(part in ("", ".", "..") for part in tail):
            continue
        candidate = "/".join(tail)
        if os.path.isfile(os.path.join(root, *tail)):
            return candidate
    return ""


def case_id(root: str | None, read_case: ReadCase) -> CaseId:
    """The rule's `case_id` for a runner: each distinct `file` is placed once."""
    placed: dict[str, str] = {}

    def read(suite: str, classname: str, name: str, file: str, own: bool) -> str | None:
        where = placed.get(file)
        if where is None:
            where = placed[file] = repository_file(root, file)
        return read_case(suite, classname, name, where, own)

    return read


@dataclass(frozen=True)
class NodeRunner:
    """A JavaScript runner: its harness names, how it names its spec files, how it reads a
    testcase, and the commands `waiver init` writes."""

    runner: str
    harness_files: NodeRunnerFiles
    spec_keys: SpecKeys
    read_case: ReadCase | None
    suite_commands: SuiteCommands
    # The red-green command: one test file's tests, chosen by the runner's name filter.
    red_green: Callable[[Invocation], str]
    # The options of a test script the written commands leave out, by name (a name
    # ending in `.` is every option it begins), and those that take a value.
    left_out: Mapping[str, LeftOut]
    value_options: frozenset[str]
    # The (classname, name) of the case a report gives a test file that failed to load.
    failed_load: Callable[[str], tuple[str, str]] | None = None
    # What joins the describe titles and the test's title in an id.
    title_separator: str = " "

    @property
    def name(self) -> str:
        return self.runner

    @property
    def lock_tables(self) -> LockTables:
        """pytest's, which every runner's lock holds, and the runner's own."""
        return PYTEST_LOCK_TABLES | self.harness_files.lock_tables()

    def harness(self, patterns: Sequence[str], modules: frozenset[str]) -> Harness:
        """pytest's harness, which every runner's lock holds, and the runner's own."""
        globs = tuple(patterns)
        return Harness(
            PYTEST_FINDER,
            globs,
            modules,
            lambda tree: node_harness(tree, self.harness_files, globs),
            lock_tables=self.lock_tables,
        )

    def files(self, tree: FileTree) -> Mapping[Pair, Why]:
        return node_harness(tree, self.harness_files)

    def test_tree(self, tree: FileTree) -> TestTree:
        return node_test_tree(tree, self.spec_keys, self.harness_files.configs)

    def test_ids(self, root: str | None) -> TestIdRule:
        if self.read_case is None:
            return TestIdRule(root)
        return TestIdRule(root, case_id(root, self.read_case))

    def test_file(self, test_id: str) -> str | None:
        path, separator, _ = test_id.partition("::")
        return path if separator and path else None

    def declared(self, tree: FileTree, path: str) -> list[str]:
        """A JavaScript or TypeScript file's, by its syntax tree."""
        return declared_scripts(tree, path, self.title_separator)

    def edited(self, committed: Committed, test_ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """Tests of JavaScript and TypeScript files by their syntax tree, per test
        (`waiver.runners.node.js_definitions`); any other id as pytest's rule has it."""
        ids = list(test_ids)
        scripts = list(script_ids(ids))
        listed = set(scripts)
        others = [test_id for test_id in ids if test_id not in listed]
        return {
            **edited_tests(committed, others),
            **edited_scripts(committed, scripts, self.title_separator),
        }

    def findings(
        self, committed: Committed, edited: Mapping[str, Sequence[str]]
    ) -> dict[str, tuple[EditFinding, ...]]:
        """Python tests' kinds of edit as pytest's, and JavaScript and TypeScript tests'
        tautologies and assertions that never run (`waiver.runners.node.js_findings`)."""
        return {
            **edit_findings(committed, edited),
            **script_findings(committed, edited, self.title_separator),
        }

    def diffs(
        self, committed: Committed, edited: Mapping[str, Sequence[str]]
    ) -> dict[str, tuple[str, ...]]:
        """Python tests' diffs as pytest's, and JavaScript and TypeScript tests' from their
        source (`waiver.runners.node.js_diff`)."""
        return {
            **definition_diffs(committed, edited),
            **script_diffs(committed, edited, self.title_separator),
        }

    def reach_ins(self, committed: Committed) -> list[ReachIn]:
        """Python sources' reach-ins as pytest's, the JavaScript and TypeScript sources'
        (`waiver.runners.node.js_reach`), and the edits of what npm installs
        (`waiver.runners.installs`)."""
        found = [
            *new_reach_ins(committed),
            *new_script_reach_ins(committed),
            *node_install_edits(committed),
        ]
        return sorted(found, key=lambda reach: (reach.path, reach.line, reach.what))

    def title(self, test_id: str) -> str:
        titles = test_id.partition("::")[2].removesuffix(EMPTY_TITLE)
        return titles.replace(self.title_separator, " ").rstrip()

    def load_failure(self, test_file: str) -> tuple[str, str] | None:
        return None if self.failed_load is None else self.failed_load(test_file)

    def red_green_command(self) -> str:
        return self.red_green(Invocation())
