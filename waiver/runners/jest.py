"""jest, with jest-junit as its JUnit reporter.

jest-junit writes the ids the gate reads when it is told to (docs/junit.md): the file as the
classname (`classNameTemplate: "{filepath}"`), the describe path and the title as the name
(`titleTemplate: "{classname} {title}"`), and the file on every testcase
(`addFileAttribute: "true"`). The id is then `<file>::<describe path> <title>`; the space
jest-junit leaves before the title of a test outside any `describe` is not part of it.
"""

from __future__ import annotations

from waiver.runners.node import NodeRunner
from waiver.runners.node_harness import NodeRunnerFiles

FILES = NodeRunnerFiles(
    configs=("jest.config.*",),
    package_keys=("jest", "babel", "jest-junit"),
    mocks=True,
)
# The reporter's settings, as environment variables so that no file of the change sets them.
REPORTER_ENVIRONMENT = (
    'JEST_JUNIT_OUTPUT_FILE="$WAIVER_JUNIT" JEST_JUNIT_CLASSNAME="{filepath}" '
    'JEST_JUNIT_TITLE="{classname} {title}" JEST_JUNIT_ADD_FILE_ATTRIBUTE=true'
)


def read_case(suite: str, classname: str, name: str, file: str) -> str | None:
    """`<file>::<describe path> <title>` for a testcase that carries its file."""
    return f"{file}::{name.strip()}" if file else None


JEST = NodeRunner(
    "jest",
    FILES,
    read_case,
    f"{REPORTER_ENVIRONMENT} npx jest --ci --reporters=default --reporters=jest-junit",
)
