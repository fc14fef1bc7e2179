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

from waiver.runners.node import NodeRunner
from waiver.runners.node_harness import NodeRunnerFiles
from waiver.runners.node_test_tree import SpecKeys

FILES = NodeRunnerFiles(
    configs=("jest.config.*",),
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
# The reporter's settings, as environment variables so that no file of the change sets them.
REPORTER_ENVIRONMENT = (
    'JEST_JUNIT_OUTPUT_FILE="$WAIVER_JUNIT" JEST_JUNIT_CLASSNAME="{filepath}" '
    'JEST_JUNIT_TITLE="{classname} {title}" JEST_JUNIT_ADD_FILE_ATTRIBUTE=true'
)


def read_case(suite: str, classname: str, name: str, file: str, own: bool) -> str | None:
    """`<file>::<describe path> <title>` for a testcase that carries its file."""
    return f"{file}::{name.strip()}" if file else None


JEST_CI = f"{REPORTER_ENVIRONMENT} npx jest --ci"
# Last: jest reads every word after `--reporters` as a reporter.
REPORTERS = "--reporters=default --reporters=jest-junit"
# jest's own ignore pattern, which one given on the command line replaces.
INSTALLS = "/node_modules/"


def _pattern(path: str, folder: bool) -> str:
    """A regular expression of jest's for the file or the folder at `path`."""
    return re.escape(path) + ("/" if folder else "$")


def suite_commands(folders: Sequence[str], files: Sequence[str]) -> tuple[str, str]:
    """The property suite's command (its folders and files, as jest's path patterns, which
    match the absolute path) and the tests' (every other test, by ignore patterns from
    `<rootDir>`)."""
    patterns = [
        *(f"/{_pattern(f, True)}" for f in folders),
        *(f"/{_pattern(f, False)}" for f in files),
    ]
    ignored = [
        INSTALLS,
        *(f"<rootDir>/{_pattern(f, True)}" for f in folders),
        *(f"<rootDir>/{_pattern(f, False)}" for f in files),
    ]
    return (
        f"{JEST_CI} {shlex.join(patterns)} {REPORTERS}",
        f"{JEST_CI} {shlex.join(f'--testPathIgnorePatterns={p}' for p in ignored)} {REPORTERS}",
    )


# One file's tests by name (`-t` matches the titles joined by spaces); the file by its
# path, not as a pattern, so a name like `[id].test.js` means itself. jest-junit reports a
# file that failed to load only when asked: on the base, that is a test whose imports the
# base lacks, which is red there.
RED_GREEN = (
    f"JEST_JUNIT_REPORT_TEST_SUITE_ERRORS=true {JEST_CI} --runTestsByPath "
    f'"$WAIVER_TEST_FILE" -t "$WAIVER_TEST_PATTERN" {REPORTERS}'
)
SUITE_ERROR = "Test suite failed to run"


def failed_load(test_file: str) -> tuple[str, str]:
    """The case jest-junit writes for a file that failed to load."""
    return SUITE_ERROR, test_file


JEST = NodeRunner("jest", FILES, SPECS, read_case, suite_commands, RED_GREEN, failed_load)
