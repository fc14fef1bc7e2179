"""The property suite's one report: which cases ran, failed or were only skipped, and
whether it is a report of this run at all."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from waiver.errors import InputError, UsageError
from waiver.read.harness.named import property_modules
from waiver.read.junit.replay_reports import Limits, read_single
from waiver.read.junit.replay_set import RUN_NAME, ReplaySet
from waiver.read.junit.stream import FAIL, PASS
from waiver.read.junit.testid import TestIdRule

# How long the property run may start before the first replay: a job's wait in a queue.
MAX_PROPERTY_LEAD = timedelta(hours=24)


def check_properties_path(properties: str, reports: str) -> None:
    """The property report is one file of its own, never a folder or one of the replays.

    Either mistake would read assertion tests as property cases: a green property suite
    that never ran.
    """
    if os.path.isdir(properties):
        raise UsageError(
            f"--properties {properties} is a folder; give the property suite's JUnit file"
        )
    inside = os.path.relpath(os.path.realpath(properties), os.path.realpath(reports))
    first = inside.split(os.sep, 1)[0]
    if not inside.startswith("..") and RUN_NAME.fullmatch(first):
        raise UsageError(
            f"--properties {properties} is a replay report ({first} of --reports {reports}); "
            "give the property suite's own JUnit file"
        )


@dataclass(frozen=True)
class PropertyRun:
    """The property report: the ids that ran, those that failed, those only skipped, and
    the modules its ids name (locked with the harness).

    A skipped property case proved nothing, so it does not count as run.
    """

    ran: frozenset[str]
    failed: list[str]
    skipped: list[str]
    modules: frozenset[str]
    started: datetime | None  # the earliest zone-aware suite timestamp, where there is one
    # Each failed case's first failure message, where it gave one.
    messages: Mapping[str, str] = field(default_factory=dict)


def read_properties(path: str, reports: str, limits: Limits, rule: TestIdRule) -> PropertyRun:
    """The property cases; zero cases run protects nothing."""
    check_properties_path(path, reports)
    tally = read_single(path, rule, limits)
    states = tally.replays[0]
    ran = frozenset(tally.ids[i] for i, state in enumerate(states) if state & (PASS | FAIL))
    if not ran:
        raise InputError(path, "the property report executed zero cases")
    failed = sorted(tally.ids[i] for i, state in enumerate(states) if state & FAIL)
    skipped = sorted(set(tally.ids) - ran)
    return PropertyRun(
        ran,
        failed,
        skipped,
        property_modules(tally.ids),
        min(tally.started, default=None),
        tally.first_messages(),
    )


def check_property_age(path: str, properties: PropertyRun, replays: ReplaySet) -> None:
    """A property run that started long before the replays is a copy of an older report.

    The property suite runs just before the replays (`waiver replay --properties-first`,
    or the reusable workflow's first job), so its start may lead theirs by the time a job
    waits in a queue, never by days. Only reports whose suites carry a zone-aware
    timestamp are compared.
    """
    if properties.started is None or not replays.tally.started:
        return
    first_replay = min(replays.tally.started)
    if properties.started < first_replay - MAX_PROPERTY_LEAD:
        hours = MAX_PROPERTY_LEAD // timedelta(hours=1)
        raise InputError(
            path,
            f"the property run started at {properties.started.isoformat()}, more than "
            f"{hours} h before the first replay ({first_replay.isoformat()}): a property "
            "report older than the replays' run is refused",
        )
