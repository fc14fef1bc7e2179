"""The test ids of one real run of a suite, by the gate's id rule.

`waiver init` is run by a person on their own tree, so here, unlike in the gate, pytest
itself is run: the property suite and the tests once each, with a JUnit report read as the
gate reads a replay. A test that skips, by a mark or while it runs (`pytest.skip` in its
body), has no outcome there and is not registered: listed, it would be an `unknown_test`
(vanished) in every gate. A test that fails is registered, and named to the person.

`junit_address` gives the `classname` and `name` pytest's junitxml writes for a node id.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

from waiver.errors import InputError
from waiver.read.junit.replay import Limits, read_single
from waiver.read.junit.testid import TestIdRule

# pytest's exit code when it collected nothing.
NO_TESTS_COLLECTED = 5
OUTPUT_TAIL = 2000


def junit_address(nodeid: str) -> tuple[str, str]:
    """The `classname` and `name` pytest's junitxml writes for a node id."""
    path, bracket, params = nodeid.partition("[")
    names = path.split("::")
    module = names[0].replace("/", ".")
    names[0] = module[: -len(".py")] if module.endswith(".py") else module
    names[-1] += bracket + params
    return ".".join(names[:-1]), names[-1]


@dataclass(frozen=True)
class Ran:
    """The ids of one real run of a suite: those that ran, those it skipped, those that
    failed (among the ran)."""

    test_ids: tuple[str, ...]  # ran, passed or failed: the registry's
    skipped: tuple[str, ...]  # skipped by a mark or while running: no outcome in a replay
    failed: tuple[str, ...]  # the base's own failures, listed for the person running init


# pytest's exit codes for a run that ran: every test passed, or some failed.
RAN_CODES = (0, 1)


def run_suite(root: str, arguments: Sequence[str]) -> Ran:
    """The ids one real run of pytest with `arguments` gives under `root`, read from its
    JUnit report as the gate reads a replay: a test that skips itself while it runs has no
    outcome there, so it is not registered to vanish from every gate after. An error when
    pytest could not run the tests (no report, a collection or internal error)."""
    rule = TestIdRule(root)
    with tempfile.TemporaryDirectory(prefix="waiver-init-") as scratch:
        junit = os.path.join(scratch, "run.xml")
        env = {**os.environ, "PYTHONPYCACHEPREFIX": os.path.join(scratch, "pycache")}
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments,
                   f"--junitxml={junit}"]  # fmt: skip
        completed = subprocess.run(
            command, cwd=root, env=env, capture_output=True, text=True, check=False
        )
        source = " ".join(word for word in arguments if word and not word.startswith("-"))
        if completed.returncode == NO_TESTS_COLLECTED:
            raise InputError(source, "pytest collected no tests here")
        if completed.returncode not in RAN_CODES or not os.path.isfile(junit):
            tail = (completed.stdout + completed.stderr)[-OUTPUT_TAIL:]
            raise InputError(
                source,
                f"pytest could not run the tests (exit {completed.returncode}): {tail}",
            )
        tally = read_single(junit, rule, Limits())
    ran: list[str] = []
    skipped: list[str] = []
    failed: list[str] = []
    for _, test_id, outcomes in tally.all_outcomes():
        (ran if outcomes else skipped).append(test_id)
        if outcomes and not all(outcomes):
            failed.append(test_id)
    return Ran(tuple(sorted(ran)), tuple(sorted(skipped)), tuple(sorted(failed)))
