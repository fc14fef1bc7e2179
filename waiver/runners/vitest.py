"""vitest, with its own JUnit reporter.

vitest's reporter writes the file, relative to the project root, as the classname and the
describe path and title (joined by ` > `) as the name, so the id is
`<file>::<describe> > <title>` by the rule every report is read by.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from waiver.runners.node import NodeRunner
from waiver.runners.node_harness import NodeRunnerFiles
from waiver.runners.node_test_tree import SpecKeys

FILES = NodeRunnerFiles(
    configs=("vitest.config.*", "vitest.workspace.*", "vite.config.*"),
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

VITEST_RUN = "npx vitest run"
REPORTERS = '--reporter=default --reporter=junit --outputFile.junit="$WAIVER_JUNIT"'


def suite_commands(folders: Sequence[str], files: Sequence[str]) -> tuple[str, str]:
    """The property suite's command (its folders and files as vitest's filters) and the
    tests' (the same excluded by globs, which add to the configuration's)."""
    filters = [*(f"{folder}/" for folder in folders), *files]
    excluded = [*(f"{folder}/**" for folder in folders), *files]
    return (
        f"{VITEST_RUN} {shlex.join(filters)} {REPORTERS}",
        f"{VITEST_RUN} {shlex.join(w for p in excluded for w in ('--exclude', p))} {REPORTERS}",
    )


# One file's tests by name: `-t` matches the titles joined by spaces (the ids join them
# with " > ").
RED_GREEN = f'{VITEST_RUN} "$WAIVER_TEST_FILE" -t "$WAIVER_TEST_PATTERN" {REPORTERS}'


def failed_load(test_file: str) -> tuple[str, str]:
    """The case vitest's junit reporter writes for a file that failed to load: the file is
    its classname and its name."""
    return test_file, test_file


VITEST = NodeRunner(
    "vitest",
    FILES,
    SPECS,
    None,
    suite_commands,
    RED_GREEN,
    failed_load,
    title_separator=" > ",
)
