"""The test ids of one real run of a suite, by the gate's id rule, whatever the runner.

`waiver init` is run by a person on their own tree, so here, unlike in the gate, the runner
itself is run (`waiver.runners.pytest.setup.pytest_run`, `waiver.runners.node.setup.node_run`), with a
JUnit report read as the gate reads a replay. A test that skips, by a mark or while it runs
(`pytest.skip` in its body), has no outcome there and is not registered: listed, it would be
an `unknown_test` (vanished) in every gate. A test that fails is registered, and named to
the person.
"""

from __future__ import annotations

from dataclasses import dataclass

from waiver.read.junit.replay_reports import Limits, read_single
from waiver.read.junit.testid import TestIdRule

OUTPUT_TAIL = 2000


@dataclass(frozen=True)
class Ran:
    """The ids of one real run of a suite: those that ran, those it skipped, those that
    failed (among the ran)."""

    test_ids: tuple[str, ...]  # ran, passed or failed: the registry's
    skipped: tuple[str, ...]  # skipped by a mark or while running: no outcome in a replay
    failed: tuple[str, ...]  # the base's own failures, listed for the person running init


def read_ran(junit: str, rule: TestIdRule) -> Ran:
    """The ids of a run's JUnit report, as the gate reads them from a replay."""
    tally = read_single(junit, rule, Limits())
    ran: list[str] = []
    skipped: list[str] = []
    failed: list[str] = []
    for _, test_id, outcomes in tally.all_outcomes():
        (ran if outcomes else skipped).append(test_id)
        if outcomes and not all(outcomes):
            failed.append(test_id)
    return Ran(tuple(sorted(ran)), tuple(sorted(skipped)), tuple(sorted(failed)))


# How long the fresh environment's install and each written command may take.
PROVE_SECONDS = 1800
