"""What `waiver init` writes, whatever the runner: each file with its text, what it is for
and how to write it again; the lock of the fixtures and of the runner's harness, the
registry of one real run, and the three workflows."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from waiver.init.collection import Ran
from waiver.read.lock.drift import HarnessOf, lock_text
from waiver.read.policy.policy_file import parse_policy
from waiver.read.stores.registry import format_registry
from waiver.write.files.setup_files import (
    HISTORY_WORKFLOW,
    LOCK,
    POLICY,
    REGISTRY,
    REPORT_WORKFLOW,
    WORKFLOW,
    Setup,
    render_history_workflow,
    render_report_workflow,
    render_workflow,
)
from waiver.write.words.lock_reasons import reason_lines

FAILED_SHOWN = 5  # failing tests init names; the rest are counted


LINKED = (
    "{links}: a symlink, which the lock cannot hold (it holds bytes, and a link points at "
    "what the gate would have to trust): its folder's other files are locked one by one, "
    "and the link is not. To lock what it points to, replace the link by a copy of it and "
    "run the refresh command"
)
NO_FIXTURES = (
    "no fixture folder found, so the lock holds the harness alone and waiver.yml says "
    "`fixtures: []`; name the folders your tests read with --fixtures DIR"
)


@dataclass(frozen=True)
class Planned:
    """A file init writes: its text, what it is for, and how to write it again."""

    path: str
    text: str
    purpose: str
    refresh: str
    note: str | None = None
    # Lines that say what is in it and why (the lock's harness files, each with why).
    details: tuple[str, ...] = ()


def _count(number: int, singular: str, plural: str) -> str:
    return f"{number} {singular if number == 1 else plural}"


def workflow_plans(
    setup: Setup, through: str, note: str | None = None, details: tuple[str, ...] = ()
) -> list[Planned]:
    """The three workflows init writes, for every runner: the gate's caller (`through` says
    where it runs the gate; `details`, what its commands keep of the project's own and leave
    out), the report workflow that posts the status and the comment, and the history writer
    both of them name."""
    return [
        Planned(
            WORKFLOW,
            render_workflow(setup),
            f"the gate on every pull request, {through}",
            "edit it by hand; to move to a newer waiver, change the commit in `uses:` and "
            "waiver-ref",
            note,
            details,
        ),
        Planned(
            REPORT_WORKFLOW,
            render_report_workflow(setup),
            "after every run of the gate, the commit status `waiver` (require it in the branch "
            "rule) and the pull-request comment, for forks too",
            "edit it by hand with the gate's workflow: the same inputs and the same commit",
        ),
        Planned(
            HISTORY_WORKFLOW,
            render_history_workflow(setup),
            f"after every run of the gate on a push to {setup.default_branch} or its schedule, "
            "the history of each test (the artifact waiver-history)",
            "edit it by hand with the gate's workflow: the same commit",
        ),
    ]


def lock_plan(
    setup: Setup,
    policy: str,
    suites: Sequence[str],
    fixture_folders: Sequence[str],
    data_files: Sequence[str],
    harness: str,
    harness_of: HarnessOf,
    linked: Sequence[str] = (),
) -> Planned:
    """The lock of the fixtures and of the harness the policy's runner names (`harness_of`,
    `waiver.runners.policy_harness`), with the property suites' folders, whatever
    the runner; `harness` says in words what it holds."""
    policy_file = parse_policy(policy.encode(), POLICY)
    lock = lock_text(".", setup.fixtures, (), suites, policy_file, harness_of)
    refresh = " ".join(
        [
            f"waiver lock --fixtures {shlex.quote(setup.fixtures)} --config {POLICY}",
            *(f"--property-suite {shlex.quote(suite)}" for suite in suites),
            f"--out {LOCK}",
        ]
    )
    held = [*fixture_folders]
    if data_files:
        held.append(_count(len(data_files), "data file", "data files") + " beside the tests")
    note = None if setup.reads_fixtures else NO_FIXTURES
    if linked:
        note = LINKED.format(links=", ".join(linked))
    return Planned(
        LOCK,
        lock.text,
        (f"the fixtures ({', '.join(held)}) and " if setup.reads_fixtures else "")
        + f"the test harness ({harness}), {lock.text.count(chr(10))} files by digest",
        refresh,
        note,
        tuple(f"locked: {line}" for line in reason_lines(lock.harness)),
    )


def registry_plan(
    property_run: Ran, test_run: Ran, suite: str, refresh: str, how_left_out: str
) -> Planned:
    """The registry of what ran, whatever the runner: a skipped test is left out, and the
    tests that failed are named, since a base with stable failures blocks every pull
    request. `how_left_out`: how a test leaves the written commands in this runner."""
    properties = len(property_run.test_ids)
    registry = sorted({*property_run.test_ids, *test_run.test_ids})
    skipped = len(property_run.skipped) + len(test_run.skipped)
    left_out = f"; {_count(skipped, 'skipped test', 'skipped tests')} left out" if skipped else ""
    failed = [*property_run.failed, *test_run.failed]
    note = None
    if failed:
        shown = ", ".join(failed[:FAILED_SHOWN]) + (
            f" and {len(failed) - FAILED_SHOWN} more" if len(failed) > FAILED_SHOWN else ""
        )
        note = (
            f"{_count(len(failed), 'test', 'tests')} failed in this run of your tree: {shown}. "
            "A base with stable failures blocks every pull request until they are fixed or "
            f"{how_left_out}"
        )
    return Planned(
        REGISTRY,
        format_registry(registry),
        f"the {len(registry)} test ids that ran in one run of the suite "
        f"({_count(len(registry) - properties, 'test', 'tests')}, "
        f"{_count(properties, 'property', 'properties')} in {suite}){left_out}",
        refresh,
        note,
    )
