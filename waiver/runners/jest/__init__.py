"""jest, with jest-junit as its JUnit reporter.

jest-junit writes the ids the gate reads when it is told to (docs/junit.md): the file as the
classname (`classNameTemplate: "{filepath}"`), the describe path and the title as the name
(`titleTemplate: "{classname} {title}"`), and the file on every testcase
(`addFileAttribute: "true"`). The id is then `<file>::<describe path> <title>`; the space
jest-junit leaves before the title of a test outside any `describe` is not part of it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from waiver.runners.node import Invocation, LeftOut, NodeRunner, words
from waiver.runners.node.js_tests import EMPTY_TITLE
from waiver.runners.node.node_harness import NodeRunnerFiles
from waiver.runners.node.node_test_tree import SpecKeys

FILES = NodeRunnerFiles(
    "jest",
    configs=("jest.config.*",),
    names_runner=("jest.config.*",),
    package_keys=("jest", "babel", "jest-junit"),
    mocks=True,
)
# jest's default `testMatch`, and the keys that set its own.
SPECS = SpecKeys(
    defaults=(
        "**/__tests__/**/*.?([mc])[jt]s?(x)",
        "**/?(*.)+(spec|test).?([mc])[jt]s?(x)",
    ),
    globs=frozenset({"testMatch"}),
    regexes=frozenset({"testRegex"}),
    package_key="jest",
    data_folders=frozenset({"__snapshots__", "__fixtures__", "__mocks__"}),
)
# The reporter's settings, as environment variables so that no file of the change sets them;
# and `--ci` as the variable jest reads it from, since a test that parses process.argv in a
# run in band sees every word of jest's command line.
REPORTER_ENVIRONMENT = (
    'JEST_JUNIT_OUTPUT_FILE="$WAIVER_JUNIT" JEST_JUNIT_CLASSNAME="{filepath}" '
    'JEST_JUNIT_TITLE="{classname} {title}" JEST_JUNIT_ADD_FILE_ATTRIBUTE=true CI=true'
)


def read_case(suite: str, classname: str, name: str, file: str, own: bool) -> str | None:
    """`<file>::<describe path> <title>` for a testcase that carries its file; a test whose
    own title is empty, which jest-junit ends with the space before it, is named so."""
    if not file:
        return None
    if not name.strip() or (name.endswith(" ") and not name.startswith(" ")):
        return f"{file}::{' '.join([name.strip(), EMPTY_TITLE]).strip()}"
    return f"{file}::{name.strip()}"


# jest's own ignore pattern, which one given on the command line replaces.
INSTALLS = "/node_modules/"
COVERAGE = "coverage decides no test's outcome, and its thresholds would fail a replay"
REPORTER = "the written commands report with jest-junit"
EVERY_TEST = "a replay runs every test, not those a change touches"
LEFT_OUT = {
    "--ci": LeftOut(False, "the written commands set CI=true, which jest reads as --ci"),
    "--coverage": LeftOut(False, COVERAGE),
    "--collectCoverage": LeftOut(False, COVERAGE),
    "--coverageReporters": LeftOut(True, COVERAGE),
    "--coverageDirectory": LeftOut(True, COVERAGE),
    "--coverageThreshold": LeftOut(True, COVERAGE),
    "--collectCoverageFrom": LeftOut(True, COVERAGE),
    "--watch": LeftOut(False, "a replay must end"),
    "--watchAll": LeftOut(False, "a replay must end"),
    "--reporters": LeftOut(True, REPORTER),
    "--json": LeftOut(False, REPORTER),
    "--outputFile": LeftOut(True, REPORTER),
    "--onlyChanged": LeftOut(False, EVERY_TEST),
    "-o": LeftOut(False, EVERY_TEST),
    "--changedSince": LeftOut(True, EVERY_TEST),
    "--lastCommit": LeftOut(False, EVERY_TEST),
    "--findRelatedTests": LeftOut(False, EVERY_TEST),
    "--bail": LeftOut(False, "a replay runs every test to its outcome"),
    "-b": LeftOut(False, "a replay runs every test to its outcome"),
}
VALUE_OPTIONS = frozenset(
    {"-c", "--config", "--testTimeout", "--maxWorkers", "-w", "--maxConcurrency"}
    | {"--testEnvironment", "--env", "--selectProjects", "--rootDir", "--roots", "-t"}
    | {"--testNamePattern", "--testPathPattern", "--testPathIgnorePatterns", "--seed"}
    | {"--setupFiles", "--setupFilesAfterEnv", "--shard", "--testSequencer", "--projects"}
    | {"--testRunner", "--workerIdleMemoryLimit", "--resolver", "--globalSetup"}
    | {"--globalTeardown", "--coverageProvider"}
)


def _start(invocation: Invocation, *before: str) -> str:
    return invocation.start("jest", *before, REPORTER_ENVIRONMENT)


def _reporters(invocation: Invocation) -> str:
    """Last: jest reads every word after `--reporters` as a reporter."""
    return f"--reporters=default {shlex.quote('--reporters=' + invocation.reporter)}"


def _pattern(path: str, folder: bool) -> str:
    """A regular expression of jest's for the file or the folder at `path`."""
    return re.escape(path) + ("/" if folder else "$")


def suite_commands(
    folders: Sequence[str], files: Sequence[str], invocation: Invocation
) -> tuple[str, str]:
    """The property suite's command (its folders and files, as jest's path patterns, which
    match the absolute path) and the tests' (every other test, by ignore patterns from
    `<rootDir>`, within the test script's own paths)."""
    patterns = [
        *(f"/{_pattern(f, True)}" for f in folders),
        *(f"/{_pattern(f, False)}" for f in files),
    ]
    ignored = [
        INSTALLS,
        *(f"<rootDir>/{_pattern(f, True)}" for f in folders),
        *(f"<rootDir>/{_pattern(f, False)}" for f in files),
    ]
    start, reporters = _start(invocation), _reporters(invocation)
    ignores = shlex.join(f"--testPathIgnorePatterns={p}" for p in ignored)
    return (
        words(start, shlex.join(patterns), reporters),
        words(start, invocation.paths(), ignores, reporters),
    )


def red_green(invocation: Invocation) -> str:
    """One file's tests by name (`-t` matches the titles joined by spaces); the file by its
    path, not as a pattern, so a name like `[id].test.js` means itself. jest-junit reports a
    file that failed to load only when asked: on the base, that is a test whose imports the
    base lacks, which is red there."""
    start = _start(invocation, "JEST_JUNIT_REPORT_TEST_SUITE_ERRORS=true")
    selected = '--runTestsByPath "$WAIVER_TEST_FILE" -t "$WAIVER_TEST_PATTERN"'
    return words(start, selected, _reporters(invocation))


SUITE_ERROR = "Test suite failed to run"


def failed_load(test_file: str) -> tuple[str, str]:
    """The case jest-junit writes for a file that failed to load."""
    return SUITE_ERROR, test_file


JEST = NodeRunner(
    "jest",
    FILES,
    SPECS,
    read_case,
    suite_commands,
    red_green,
    LEFT_OUT,
    VALUE_OPTIONS,
    failed_load,
)
