"""vitest, with its own JUnit reporter.

vitest's reporter writes the file, relative to the project root, as the classname and the
describe path and title (joined by ` > `) as the name, so the id is
`<file>::<describe> > <title>` by the rule every report is read by; a test whose own title
is empty is `<file>::<describe> > (empty title)`.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from waiver.runners.node import Invocation, LeftOut, NodeRunner, words
from waiver.runners.node.js_tests import EMPTY_TITLE
from waiver.runners.node.node_harness import NodeRunnerFiles
from waiver.runners.node.node_test_tree import SpecKeys

FILES = NodeRunnerFiles(
    "vitest",
    configs=("vitest.config.*", "vitest.workspace.*", "vite.config.*"),
    names_runner=("vitest.config.*", "vitest.workspace.*"),
    package_keys=("babel",),
    mocks=True,
)
# vitest's default `test.include`, and the key that sets its own.
SPECS = SpecKeys(
    defaults=("**/*.{test,spec}.?(c|m)[jt]s?(x)",),
    globs=frozenset({"include"}),
    within="test",
    data_folders=frozenset({"__snapshots__", "__fixtures__", "__mocks__"}),
)

REPORTERS = '--reporter=default --reporter=junit --outputFile.junit="$WAIVER_JUNIT"'
COVERAGE = "coverage decides no test's outcome, and its thresholds would fail a replay"
REPORTER = "the written commands report with vitest's junit reporter"
EVERY_TEST = "a replay runs every test, not those a change touches"
LEFT_OUT = {
    "--coverage": LeftOut(False, COVERAGE),
    "--coverage.": LeftOut(False, COVERAGE),
    "--watch": LeftOut(False, "a replay must end"),
    "-w": LeftOut(False, "a replay must end"),
    "--ui": LeftOut(False, "a replay runs without a browser of yours"),
    "--open": LeftOut(False, "a replay runs without a browser of yours"),
    "--reporter": LeftOut(True, REPORTER),
    "--outputFile": LeftOut(True, REPORTER),
    "--outputFile.": LeftOut(False, REPORTER),
    "--changed": LeftOut(False, EVERY_TEST),
    "--related": LeftOut(True, EVERY_TEST),
    "--bail": LeftOut(True, "a replay runs every test to its outcome"),
    "--run": LeftOut(False, "the written commands run the tests once already"),
}
VALUE_OPTIONS = frozenset(
    {"-c", "--config", "-r", "--root", "--dir", "--project", "--environment", "--pool"}
    | {"--testTimeout", "--hookTimeout", "--maxWorkers", "--minWorkers", "--shard"}
    | {"--mode", "--workspace", "-t", "--testNamePattern", "--retry", "--exclude"}
)


def _start(invocation: Invocation) -> str:
    return invocation.start("vitest", command="run")


def suite_commands(
    folders: Sequence[str], files: Sequence[str], invocation: Invocation
) -> tuple[str, str]:
    """The property suite's command (its folders and files as vitest's filters) and the
    tests' (the same excluded by globs, which add to the configuration's, within the test
    script's own filters)."""
    filters = [*(f"{folder}/" for folder in folders), *files]
    excluded = [*(f"{folder}/**" for folder in folders), *files]
    exclusions = shlex.join(w for p in excluded for w in ("--exclude", p))
    return (
        words(_start(invocation), shlex.join(filters), REPORTERS),
        words(_start(invocation), invocation.paths(), exclusions, REPORTERS),
    )


def red_green(invocation: Invocation) -> str:
    """One file's tests by name: `-t` matches the titles joined by spaces (the ids join them
    with " > ")."""
    selected = '"$WAIVER_TEST_FILE" -t "$WAIVER_TEST_PATTERN"'
    return words(_start(invocation), selected, REPORTERS)


def read_case(suite: str, classname: str, name: str, file: str, own: bool) -> str | None:
    """A test whose own title is empty, which the reporter ends with ` > ` (or writes as
    nothing), named so; any other by the rule every report is read by."""
    if name == "" or name.endswith(" > "):
        return f"{classname}::{name}{EMPTY_TITLE}"
    return None


def failed_load(test_file: str) -> tuple[str, str]:
    """The case vitest's junit reporter writes for a file that failed to load: the file is
    its classname and its name."""
    return test_file, test_file


VITEST = NodeRunner(
    "vitest",
    FILES,
    SPECS,
    read_case,
    suite_commands,
    red_green,
    LEFT_OUT,
    VALUE_OPTIONS,
    failed_load,
    title_separator=" > ",
)
