"""The test runners the gate protects, one package each behind one interface
(`waiver.runners.base.Runner`): pytest, jest, vitest and mocha, with what the JavaScript
runners share in `waiver.runners.node`. The policy file names the runner (`runner:`,
default pytest, among `waiver.decide.policy.RUNNER_NAMES`); `RUNNERS` holds each under that
name; the harness of the one a policy names, and the tables every runner's lock may hold
(`LOCK_TABLES`), are handed from here to the readers and writers below the runners."""

from __future__ import annotations

import operator
from dataclasses import replace
from functools import reduce

from waiver.decide.policy import Policy
from waiver.read.harness.named import Harness
from waiver.read.lock.lock_file import LockTables, script_tables
from waiver.runners.base import Runner
from waiver.runners.jest import JEST
from waiver.runners.mocha import MOCHA
from waiver.runners.node import NodeRunner
from waiver.runners.pytest import PYTEST
from waiver.runners.vitest import VITEST

RUNNERS: dict[str, Runner] = {runner.name: runner for runner in (PYTEST, JEST, VITEST, MOCHA)}
# The JavaScript runners, whose commands `waiver init` writes from their packages.
NODE_RUNNERS: dict[str, NodeRunner] = {
    name: runner for name, runner in RUNNERS.items() if isinstance(runner, NodeRunner)
}
# Every runner's tables: a lock stays readable when the policy names another runner than
# the one it was written for.
LOCK_TABLES: LockTables = reduce(operator.or_, (runner.lock_tables for runner in RUNNERS.values()))


def runner_named(name: str) -> Runner:
    """The runner the policy names; the policy schema allows no other name."""
    return RUNNERS[name]


def policy_harness(policy: Policy, modules: frozenset[str]) -> Harness:
    """The harness of the runner the policy names, with its `harness:` globs, the
    property-suite `modules`, the package scripts the test command runs by name, and the
    tables a lock may hold (`LOCK_TABLES`)."""
    harness = runner_named(policy.runner).harness(policy.harness, modules)
    return replace(harness, tables=script_tables(policy.package_scripts), lock_tables=LOCK_TABLES)
