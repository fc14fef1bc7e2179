"""mocha, with mocha-junit-reporter as its JUnit reporter.

mocha-junit-reporter writes a test's full title (describe path and title) and its own
title, one as the classname and one as the name (`testCaseSwitchClassnameAndName` says
which), and the file on the suite, not on the testcase. The id is `<file>::<full title>`,
whichever way round the two were written; a test outside any `describe` carries no file, and
is read as any other report's testcase.
"""

from __future__ import annotations

from waiver.runners.node import NodeRunner
from waiver.runners.node_harness import NodeRunnerFiles

FILES = NodeRunnerFiles(
    configs=(".mocharc", ".mocharc.*", "mocha.opts"),
    package_keys=("mocha", "babel"),
    mocks=False,
)


def read_case(suite: str, classname: str, name: str, file: str) -> str | None:
    """`<file>::<full title>`: the longer of the two titles, which ends with the other."""
    if not file:
        return None
    full = name if len(name) >= len(classname) and name.endswith(classname) else classname
    return f"{file}::{full}"


MOCHA = NodeRunner(
    "mocha",
    FILES,
    read_case,
    'MOCHA_FILE="$WAIVER_JUNIT" npx mocha --reporter mocha-junit-reporter '
    "--reporter-options testCaseSwitchClassnameAndName=true",
)
