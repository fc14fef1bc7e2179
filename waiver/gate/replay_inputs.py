"""The change's replays and the base's, as the gate reads them: through the one replay reader,
with the run's limits, and empty where the replays were skipped because no replay was needed.
"""

from __future__ import annotations

import os
from operator import attrgetter

from waiver.errors import InputError
from waiver.gate.options import GateOptions
from waiver.gate.skip import Skip, replays_were_skipped
from waiver.model import CollapsedId
from waiver.read.junit.replay import Tally
from waiver.read.junit.replay_set import (
    PROPERTY_REPORT,
    ReplaySet,
    read_replays,
    report_and_log,
)
from waiver.read.junit.testid import TestIdRule
from waiver.read.policy.settings import Settings
from waiver.runners import NODE_RUNNERS
from waiver.runners.base import Runner
from waiver.write.report_sections import ReplayFacts


def read_assertion_replays(
    options: GateOptions, settings: Settings, rule: TestIdRule, skip: Skip | None
) -> ReplaySet:
    """The replays; when they were skipped (see `replays_were_skipped`), an empty set.

    `waiver replay` runs no replay once a property fails or the lock drifts, and the
    reusable workflow runs no replay job, so the report names the cause instead of
    stopping at the missing replays.
    """
    others = report_and_log(options.reports, options.properties)
    try:
        return read_replays(
            options.reports,
            rule,
            settings.limits,
            options.replays,
            options.shards,
            others=others,
        )
    except InputError:
        if not replays_were_skipped(options.reports, skip, others):
            raise
        return ReplaySet(Tally(), 0, ())


def read_base_replays(
    options: GateOptions, settings: Settings, rule: TestIdRule, skip: Skip | None
) -> ReplaySet | None:
    """The base revision's replays, read like the change's, with the same limits and errors.

    A folder that cannot be read as replays at all is an input error, as it is for the
    change; a single base replay that cannot be read leaves every row's base evidence short.
    When the replays were skipped, a folder that was skipped too is no input error, by the
    same rule as the change's replays.
    """
    if options.base_reports is None:
        return None
    try:
        return read_replays(
            options.base_reports,
            rule,
            settings.limits,
            options.base_replays,
            options.shards,
            # The property report and its log, as `waiver replay --properties-first` leaves them.
            others=report_and_log(
                options.base_reports, os.path.join(options.base_reports, PROPERTY_REPORT)
            ),
            folder="base reports",
        )
    except InputError:
        if not replays_were_skipped(options.base_reports, skip):
            raise
        return None


def collapsed_ids(tally: Tally, runner: Runner, root: str) -> tuple[CollapsedId, ...]:
    """The ids that more than one testcase of one replay read as, by id, under a runner whose
    ids name their file; pytest's repeated testcases are its rerun plugins' attempts.

    Two testcases are one id only when the file the runner read for them is one too (the
    id holds it), or when the report named no file in the repository for either: the file
    is the id's where it is one in the repository.
    """
    if runner.name not in NODE_RUNNERS:
        return ()
    found = []
    for position, testcases in tally.repeats.items():
        test_id = tally.ids[position]
        path = runner.test_file(test_id) or ""
        # The id is the report's text: only a plain relative path is looked up.
        plain = path and not os.path.isabs(path) and ".." not in path.split("/")
        named = path if plain and os.path.isfile(os.path.join(root, path)) else None
        found.append(CollapsedId(test_id, testcases, named))
    return tuple(sorted(found, key=attrgetter("test_id")))


def replay_facts(
    replays: ReplaySet, skip: Skip | None, runner: Runner, root: str
) -> ReplayFacts | None:
    """What the report keeps of the replays; when none was read because they were
    skipped, which cause and why."""
    if replays.replay_count:
        return read_facts(replays, collapsed_ids(replays.tally, runner, root))
    if skip is None:
        return None
    return ReplayFacts(0, 0, (), (skip.test_class, skip.reason))


def read_facts(replays: ReplaySet, collapsed: tuple[CollapsedId, ...] = ()) -> ReplayFacts:
    return ReplayFacts(
        replays.replay_count, len(replays.tally.replays), tuple(replays.errors), None, collapsed
    )
