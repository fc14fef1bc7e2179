"""mocha, with mocha-junit-reporter as its JUnit reporter.

mocha-junit-reporter writes a test's full title (describe path and title) and its own
title, one as the classname and one as the name (`testCaseSwitchClassnameAndName` says
which), and the file on the suite, not on the testcase. The id is `<file>::<full title>`,
whichever way round the two were written; a test outside any `describe` carries no file, and
is read as any other report's testcase.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

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


MOCHA_RUN = (
    'MOCHA_FILE="$WAIVER_JUNIT" npx mocha --reporter mocha-junit-reporter '
    "--reporter-options testCaseSwitchClassnameAndName=true"
)


def suite_commands(folders: Sequence[str], files: Sequence[str]) -> tuple[str, str]:
    """The property suite's command (its folders, every module in them, and its files) and
    the tests' (the same excluded by globs). mocha adds a configuration's `spec` to the
    files given, so a configuration that names its own runs them in both."""
    excluded = [*(f"{folder}/**" for folder in folders), *files]
    return (
        f"{MOCHA_RUN} --recursive {shlex.join([*folders, *files])}",
        f"{MOCHA_RUN} {shlex.join(w for p in excluded for w in ('--exclude', p))}",
    )


MOCHA = NodeRunner("mocha", FILES, read_case, MOCHA_RUN, suite_commands)
