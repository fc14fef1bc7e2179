"""mocha, with its built-in `xunit` reporter, or mocha-junit-reporter.

mocha's `xunit` reporter (mocha 10.4 and later) writes on every testcase, a test outside
any `describe` included, the file (`file`), the describe path (`classname`, "" outside any
`describe`) and the test's own title (`name`). mocha-junit-reporter writes a test's full
title (describe path and title) and its own title, one as the classname and one as the name
(`testCaseSwitchClassnameAndName` says which), and the file on the suite, not on the
testcase; a test outside any `describe` lands in its root suite, which carries no file.

Which of the two wrote a testcase is told by where its file is: its own attribute is
`xunit`'s. Either way the id is `<file>::<describe path> <title>`, one text for a test inside
a `describe` whichever reporter wrote it, so a registry written from one reads the other's
replays. A testcase that carries no file is read as any other report's.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from waiver.runners.node import Invocation, LeftOut, NodeRunner, words
from waiver.runners.node.js_tests import EMPTY_TITLE
from waiver.runners.node.node_harness import NodeRunnerFiles
from waiver.runners.node.node_test_tree import SpecKeys

FILES = NodeRunnerFiles(
    "mocha",
    configs=(".mocharc", ".mocharc.*", "mocha.opts"),
    names_runner=(".mocharc", ".mocharc.*"),
    package_keys=("mocha", "babel"),
    mocks=False,
)
# mocha's default `spec` (`./test`, its JavaScript files, not its subfolders), and the key
# that sets its own.
SPECS = SpecKeys(defaults=("test/*.{js,cjs,mjs}",), globs=frozenset({"spec"}), package_key="mocha")
# What `xunit` writes as the file of a failed root-level hook: the root suite has none,
# and the reporter writes JavaScript's `undefined` as text.
NO_FILE = "undefined"


def read_case(suite: str, classname: str, name: str, file: str, own: bool) -> str | None:
    """`<file>::<describe path> <title>`, from either reporter's testcase."""
    if not file or file == NO_FILE:
        return None
    if own:
        title = name or EMPTY_TITLE
        return f"{file}::{classname} {title}" if classname else f"{file}::{title}"
    # mocha-junit-reporter: one title is the full one, which ends with the other.
    full = name if len(name) >= len(classname) and name.endswith(classname) else classname
    return f"{file}::{full}"


# `--reporter-option` splits its value at `,` and `=`, so the report's path must hold
# neither: under a GitHub workspace it cannot, as a repository's name cannot. mocha
# refuses a path with `=`, and writes none at the path with `,` (the replay then has no
# report).
REPORTER = '--reporter xunit --reporter-option output="$WAIVER_JUNIT"'
REPORTS = "the written commands report with mocha's xunit reporter"
LEFT_OUT = {
    "--reporter": LeftOut(True, REPORTS),
    "-R": LeftOut(True, REPORTS),
    "--reporter-option": LeftOut(True, REPORTS),
    "--reporter-options": LeftOut(True, REPORTS),
    "-O": LeftOut(True, REPORTS),
    "--watch": LeftOut(False, "a replay must end"),
    "-w": LeftOut(False, "a replay must end"),
    "--bail": LeftOut(False, "a replay runs every test to its outcome"),
    "-b": LeftOut(False, "a replay runs every test to its outcome"),
}
VALUE_OPTIONS = frozenset(
    {"-r", "--require", "-t", "--timeout", "-s", "--slow", "--ui", "-u", "--extension"}
    | {"--spec", "--ignore", "--exclude", "--file", "--config", "--package", "-g"}
    | {"--grep", "-f", "--fgrep", "-j", "--jobs", "--retries", "-n", "--node-option"}
)


def _start(invocation: Invocation) -> str:
    return words(invocation.start("mocha"), REPORTER)


def suite_commands(
    folders: Sequence[str], files: Sequence[str], invocation: Invocation
) -> tuple[str, str]:
    """The property suite's command (its folders, every module in them, and its files) and
    the tests' (the test script's own paths, or the configuration's, the same excluded by
    globs). mocha adds a configuration's `spec` to the files given, so a configuration that
    names its own runs them in both."""
    excluded = [*(f"{folder}/**" for folder in folders), *files]
    exclusions = shlex.join(w for p in excluded for w in ("--exclude", p))
    return (
        words(_start(invocation), "--recursive", shlex.join([*folders, *files])),
        words(_start(invocation), invocation.paths(), exclusions),
    )


def red_green(invocation: Invocation) -> str:
    """One file's tests by name: `--grep` matches the titles joined by spaces."""
    return words(_start(invocation), '--grep "$WAIVER_TEST_PATTERN" "$WAIVER_TEST_FILE"')


MOCHA = NodeRunner(
    "mocha", FILES, SPECS, read_case, suite_commands, red_green, LEFT_OUT, VALUE_OPTIONS
)
