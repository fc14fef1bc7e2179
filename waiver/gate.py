"""`waiver gate`: read every input, decide, and write the report and the summary.

The order is the seed's: fixtures against the lock, then properties, then replays, then
the decision. A failed property means the freeze store is not even read.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from waiver.decide import check_policy, decide
from waiver.errors import InputError, UsageError
from waiver.model import Case, Decision, FreezeRecord, Policy
from waiver.read.freezes import MAX_STORE_BYTES, parse_freezes
from waiver.read.junit import FAIL, PASS
from waiver.read.lock import (
    MAX_LOCK_BYTES,
    FixtureState,
    LockEntry,
    fixtures_folder,
    hash_tree,
    lock_digest,
    parse_lock,
    scan_fixtures,
)
from waiver.read.protected import ProtectedFiles
from waiver.read.registry import MAX_REGISTRY_BYTES, parse_registry
from waiver.read.replays import Limits, ReplaySet, Tally, read_replays, read_single
from waiver.read.testid import TestIdRule
from waiver.write.atomic import write_atomic
from waiver.write.report import Context, Json, error_report_json, render_json, report_json
from waiver.write.summary import render_summary


@dataclass(frozen=True)
class GateOptions:
    reports: str
    properties: str
    fixtures: str
    lock: str
    out: str
    root: str
    policy: Policy
    known_tests: str | None = None
    freezes: str | None = None
    summary: str | None = None
    patterns: Sequence[str] = ()
    replays: int | None = None
    limits: Limits = field(default_factory=Limits)


@dataclass(frozen=True)
class Fixtures:
    lock: tuple[LockEntry, ...]
    state: FixtureState
    expected: str
    current: str


def read_fixtures(options: GateOptions, protected: ProtectedFiles) -> Fixtures:
    lock = parse_lock(protected.read(options.lock, MAX_LOCK_BYTES), options.lock)
    folder = fixtures_folder(options.root, options.fixtures)
    paths = scan_fixtures(options.root, folder, options.patterns)
    state = hash_tree(options.root, lock, paths, options.lock)
    return Fixtures(lock, state, lock_digest(lock), lock_digest(state.tree))


def read_properties(options: GateOptions, rule: TestIdRule) -> tuple[int, list[str]]:
    """How many property cases ran, and which failed; zero cases protects nothing."""
    tally = read_single(options.properties, rule, options.limits)
    states = tally.replays[0]
    ran = sum(1 for state in states if state & (PASS | FAIL))
    if ran == 0:
        raise InputError(options.properties, "the property report executed zero cases")
    failed = sorted(tally.ids[i] for i, state in enumerate(states) if state & FAIL)
    return ran, failed


def build_cases(
    replays: ReplaySet,
    registry: frozenset[str] | None,
    property_ok: bool,
    fixtures: Fixtures,
) -> tuple[list[Case], list[str]]:
    """One case per test id seen or expected; ids skipped everywhere and not expected are set aside."""
    tally: Tally = replays.tally
    cases: list[Case] = []
    skipped: list[str] = []
    for position, test_id in enumerate(tally.ids):
        outcomes = tally.outcomes(position)
        expected = registry is None or test_id in registry
        if not outcomes and not (registry is not None and expected):
            skipped.append(test_id)
            continue
        cases.append(
            Case(
                test_id=test_id,
                property_ok=property_ok,
                fixture_hash=fixtures.current,
                expected_fixture_hash=fixtures.expected,
                outcomes=outcomes,
                known_test=expected,
                retries=tally.retries.get(position, 0),
                unreadable_replays=len(replays.errors),
            )
        )
    for test_id in sorted((registry or frozenset()) - tally.index.keys()):
        cases.append(
            Case(
                test_id,
                property_ok,
                fixtures.current,
                fixtures.expected,
                (),
                known_test=True,
                unreadable_replays=len(replays.errors),
            )
        )
    return cases, skipped


def _gate(options: GateOptions, protected: ProtectedFiles, now: datetime) -> Json:
    check_policy(options.policy)
    rule = TestIdRule(options.root)
    fixtures = read_fixtures(options, protected)
    property_cases, failed_properties = read_properties(options, rule)
    replays = read_replays(options.reports, rule, options.limits, options.replays)
    registry = None
    if options.known_tests is not None:
        registry = parse_registry(
            protected.read(options.known_tests, MAX_REGISTRY_BYTES), options.known_tests
        )
    property_ok = not failed_properties
    records: tuple[FreezeRecord, ...] = ()
    if property_ok and options.freezes is not None:
        records = parse_freezes(protected.read(options.freezes, MAX_STORE_BYTES), options.freezes)
    cases, skipped = build_cases(replays, registry, property_ok, fixtures)
    decision: Decision = decide(cases, options.policy, now, records)
    context = Context(
        fixtures={
            "lock": options.lock,
            "lock_source": protected.description,
            "lock_digest": fixtures.expected,
            "tree_digest": fixtures.current,
            "files": len(fixtures.lock),
            "drift": [{"path": d.path, "kind": d.kind} for d in fixtures.state.drift],
        },
        properties={
            "report": options.properties,
            "cases": property_cases,
            "failed": failed_properties,
        },
        replays={
            "count": replays.replay_count,
            "read": len(replays.tally.replays),
            "errors": [
                {"replay": e.replay, "source": e.source, "problem": e.problem}
                for e in replays.errors
            ],
        },
        registry={"used": registry is not None, "path": options.known_tests},
        skipped=skipped,
    )
    return report_json(decision, options.policy, context, now)


@contextlib.contextmanager
def _report_on_failure(options: GateOptions, now: datetime) -> Iterator[None]:
    """Whatever ends the run early, leave a blocked report, never a stale green one."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(options.out)
    try:
        yield
    except (InputError, UsageError) as error:
        source, problem = (
            (error.source, error.problem)
            if isinstance(error, InputError)
            else ("usage", str(error))
        )
        _write(options, error_report_json(source, problem, options.policy, now))
        raise


def _write(options: GateOptions, document: Json) -> None:
    write_atomic(options.out, render_json(document))
    if options.summary is not None:
        with open(options.summary, "a", encoding="utf-8") as stream:
            stream.write(render_summary(document))


def run_gate(options: GateOptions, protected: ProtectedFiles, now: datetime) -> Json:
    with _report_on_failure(options, now):
        document = _gate(options, protected, now)
        _write(options, document)
    return document
