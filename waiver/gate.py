"""`waiver gate`: read every input, decide, and write the report and the summary.

The order is the seed's: fixtures against the lock, then properties, then replays, then
the decision. A failed property means the freeze store is not even read.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from itertools import repeat

from waiver.decide import check_policy, decide
from waiver.errors import InputError, UsageError
from waiver.model import BaseEvidence, Case, Decision, Evidence, FreezeRecord
from waiver.read.bindings import FixtureBindings, check_binding_patterns
from waiver.read.config import Flags, Settings, effective, read_config
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
from waiver.read.registry import MAX_REGISTRY_BYTES, Registry, match_registry
from waiver.read.replays import ReplaySet, Tally, outcomes_of, read_replays, read_single
from waiver.read.testid import TestIdRule
from waiver.write.atomic import write_atomic
from waiver.write.report import Context, Json, error_report_json, json_chunks, report_json
from waiver.write.summary import render_summary


@dataclass(frozen=True)
class GateOptions:
    reports: str
    properties: str
    fixtures: str
    lock: str
    out: str
    root: str
    flags: Flags = field(default_factory=Flags)
    config: str | None = None
    summary: str | None = None
    replays: int | None = None
    shards: int | None = None
    base_reports: str | None = None
    base_replays: int | None = None


@dataclass(frozen=True)
class Fixtures:
    lock: tuple[LockEntry, ...]
    state: FixtureState
    expected: str
    current: str
    bound: FixtureBindings


def read_fixtures(options: GateOptions, settings: Settings, protected: ProtectedFiles) -> Fixtures:
    lock = parse_lock(protected.read(options.lock, MAX_LOCK_BYTES), options.lock)
    if settings.config is not None:
        check_binding_patterns(settings.bindings, lock, settings.config)
    folder = fixtures_folder(options.root, options.fixtures)
    paths = scan_fixtures(options.root, folder, settings.fixtures)
    state = hash_tree(options.root, lock, paths, options.lock)
    bound = FixtureBindings(settings.bindings, lock, state.tree)
    return Fixtures(lock, state, lock_digest(lock), lock_digest(state.tree), bound)


def read_properties(
    options: GateOptions, settings: Settings, rule: TestIdRule
) -> tuple[int, list[str]]:
    """How many property cases ran, and which failed; zero cases protects nothing."""
    tally = read_single(options.properties, rule, settings.limits)
    states = tally.replays[0]
    ran = sum(1 for state in states if state & (PASS | FAIL))
    if ran == 0:
        raise InputError(options.properties, "the property report executed zero cases")
    failed = sorted(tally.ids[i] for i, state in enumerate(states) if state & FAIL)
    return ran, failed


# What an id's evidence depends on, apart from its fixtures: its states in each replay,
# whether the registry lists it, its retries, and its states in the base replays.
GroupKey = tuple[tuple[int, ...], int, int, tuple[int, ...] | None]


def base_lookup(base: ReplaySet) -> Callable[[str], tuple[int, ...] | None]:
    """A test id's states in the base replays, or None when the base never saw the id."""
    rows = list(base.tally.state_rows())
    index = base.tally.index

    def states(test_id: str) -> tuple[int, ...] | None:
        position = index.get(test_id)
        return None if position is None else rows[position]

    return states


def base_evidence(base: ReplaySet | None, states: tuple[int, ...] | None) -> BaseEvidence | None:
    if base is None:
        return None
    unreadable = len(base.errors)
    if states is None:
        return BaseEvidence((), on_base=False, unreadable_replays=unreadable)
    return BaseEvidence(outcomes_of(states), unreadable_replays=unreadable)


def build_cases(
    replays: ReplaySet,
    registry: Registry | None,
    property_ok: bool,
    fixtures: Fixtures,
    skipped: list[str],
    base: ReplaySet | None = None,
) -> list[Case]:
    """One case per distinct evidence, holding every test id seen or expected that has it.

    Ids skipped in every replay and not expected by the registry are not cases: they are
    appended to `skipped`. Each case carries the digests of the fixtures its tests are
    bound to (the whole set unless a policy binding says otherwise), and with base replays
    the id's states there.
    """
    tally: Tally = replays.tally
    extras = [0] * len(tally.ids)
    for position, extra in tally.retries.items():
        extras[position] = extra
    listed = registry.expected if registry is not None else b"\x01" * len(tally.ids)
    # Keyed on the raw states, so that per id this is one tuple and one dict lookup.
    groups: defaultdict[GroupKey, list[str]] = defaultdict(list)
    on_base = base_lookup(base) if base is not None else None
    bases = repeat(None, len(tally.ids)) if on_base is None else map(on_base, tally.ids)
    keys = zip(tally.state_rows(), listed, extras, bases, strict=True)
    for test_id, key in zip(tally.ids, keys, strict=True):
        groups[key].append(test_id)
    if registry is not None:
        # Known from the registry, in no replay of the change; the base may still have them.
        for test_id in registry.vanished:
            groups[(), 1, 0, None if on_base is None else on_base(test_id)].append(test_id)
    unreadable = len(replays.errors)
    cases = []
    for (states, listed_here, extra, states_on_base), ids in groups.items():
        outcomes = outcomes_of(states)
        known = registry is None or bool(listed_here)
        if not outcomes and not (registry is not None and known):
            skipped.extend(ids)
            continue
        base_here = base_evidence(base, states_on_base)
        for (expected_hash, current_hash), bound_ids in fixtures.bound.group(ids).items():
            evidence = Evidence(
                property_ok,
                current_hash,
                expected_hash,
                outcomes,
                known,
                extra,
                unreadable,
                base_here,
            )
            cases.append(Case(tuple(bound_ids), evidence))
    return cases


def failed_property_cases(failed_properties: list[str], fixtures: Fixtures) -> list[Case]:
    """With no replay and no registry to name the tests, the failed property cases are the
    rows, so the report blocks on property_violation instead of being empty and clean."""
    return [
        Case((test_id,), Evidence(False, current_hash, expected_hash, (), known_test=True))
        for test_id in failed_properties
        for expected_hash, current_hash in [fixtures.bound.digests(test_id)]
    ]


def read_assertion_replays(
    options: GateOptions, settings: Settings, rule: TestIdRule, property_ok: bool
) -> ReplaySet:
    """The replays; after a failed property suite, a folder without any is no input error.

    `waiver replay --properties-first` runs no replay once a property fails, and every row
    is property_violation whatever the replays hold, so the report names the violation
    instead of stopping at the missing replays.
    """
    if options.shards is not None and options.shards < 1:
        raise UsageError(f"--shards must be at least 1, got {options.shards}")
    try:
        return read_replays(options.reports, rule, settings.limits, options.replays, options.shards)
    except InputError:
        if property_ok:
            raise
        return ReplaySet(Tally(), 0, ())


def trusted_changes(options: GateOptions, settings: Settings, protected: ProtectedFiles) -> Json:
    """With a trusted revision: which protected files the change edits in its working tree.

    Only files that were read count (after a failed property the freeze store is not).
    """
    if protected.revision is None:
        return {}
    changes = protected.changes()
    named = [
        ("lock", options.lock),
        ("known-tests", settings.registry),
        ("freezes", settings.freezes),
        ("config", options.config),
    ]
    return {
        "working_tree_lock_differs": options.lock in changes,
        "protected_changes": [
            {"file": role, "path": path, "change": changes[path]}
            for role, path in named
            if path is not None and path in changes
        ],
    }


def read_base_replays(
    options: GateOptions, settings: Settings, rule: TestIdRule, property_ok: bool
) -> ReplaySet | None:
    """The base revision's replays, read like the change's, with the same limits and errors.

    A folder that cannot be read as replays at all is an input error, as it is for the
    change; a single base replay that cannot be read leaves every row's base evidence short.
    After a failed property suite every row is property_violation whatever the base says,
    so, as for the change's replays, a folder without any is no input error then.
    """
    if options.base_reports is None:
        return None
    try:
        return read_replays(
            options.base_reports, rule, settings.limits, options.base_replays, options.shards
        )
    except InputError:
        if property_ok:
            raise
        return None


def replays_json(replays: ReplaySet) -> Json:
    return {
        "count": replays.replay_count,
        "read": len(replays.tally.replays),
        "errors": [
            {"replay": e.replay, "source": e.source, "problem": e.problem} for e in replays.errors
        ],
    }


@dataclass(frozen=True)
class Classified:
    """The decision and the little the report keeps of the replays that fed it."""

    decision: Decision
    replays: Json | None
    skipped: list[str]
    base: Json | None = None


def classify_replays(
    options: GateOptions,
    settings: Settings,
    protected: ProtectedFiles,
    rule: TestIdRule,
    fixtures: Fixtures,
    failed_properties: list[str],
    now: datetime,
) -> Classified:
    """Replays, registry and freeze store in, decision out.

    A function of its own so that the per-test tally is freed before the report is built:
    at 500,000 tests its index alone is some 40 MB.
    """
    property_ok = not failed_properties
    replays = read_assertion_replays(options, settings, rule, property_ok)
    base = read_base_replays(options, settings, rule, property_ok)
    registry = None
    if settings.registry is not None:
        registry = match_registry(
            protected.read(settings.registry, MAX_REGISTRY_BYTES),
            settings.registry,
            replays.tally.index,
        )
    records: tuple[FreezeRecord, ...] = ()
    if property_ok and settings.freezes is not None:
        records = parse_freezes(protected.read(settings.freezes, MAX_STORE_BYTES), settings.freezes)
    skipped: list[str] = []
    cases = build_cases(replays, registry, property_ok, fixtures, skipped, base)
    if not cases and not property_ok:
        cases = failed_property_cases(failed_properties, fixtures)
    return Classified(
        decision=decide(cases, settings.policy, now, records),
        replays=replays_json(replays) if replays.replay_count else None,
        skipped=skipped,
        base=None if base is None else {"reports": options.base_reports, **replays_json(base)},
    )


def _gate(
    options: GateOptions, settings: Settings, protected: ProtectedFiles, now: datetime
) -> Json:
    check_policy(settings.policy)
    rule = TestIdRule(options.root)
    fixtures = read_fixtures(options, settings, protected)
    property_cases, failed_properties = read_properties(options, settings, rule)
    classified = classify_replays(
        options, settings, protected, rule, fixtures, failed_properties, now
    )
    context = Context(
        fixtures={
            "lock": options.lock,
            "lock_source": protected.description,
            "lock_digest": fixtures.expected,
            "tree_digest": fixtures.current,
            "files": len(fixtures.lock),
            "drift": [{"path": d.path, "kind": d.kind} for d in fixtures.state.drift],
            "bindings": [
                {
                    "tests": list(subset.binding.tests),
                    "fixtures": list(subset.binding.fixtures),
                    "files": len(subset.lock),
                    "lock_digest": subset.expected,
                    "tree_digest": subset.current,
                }
                for subset in fixtures.bound.subsets
            ],
            **trusted_changes(options, settings, protected),
        },
        properties={
            "report": options.properties,
            "cases": property_cases,
            "failed": failed_properties,
        },
        replays=classified.replays,
        registry={"used": settings.registry is not None, "path": settings.registry},
        skipped=classified.skipped,
        trusted_revision=protected.revision,
        base=classified.base,
    )
    return report_json(classified.decision, settings, context, now)


@contextlib.contextmanager
def _report_on_failure(options: GateOptions, settings: Settings, now: datetime) -> Iterator[None]:
    """Whatever ends the run early, leave a blocked report, never a stale green one."""
    try:
        yield
    except (InputError, UsageError) as error:
        source, problem = (
            (error.source, error.problem)
            if isinstance(error, InputError)
            else ("usage", str(error))
        )
        write_report(
            options.out, options.summary, error_report_json(source, problem, settings, now)
        )
        raise


def write_report(out: str, summary: str | None, document: Json) -> None:
    """waiver.json, atomically, and the Markdown summary appended to `summary` if given."""
    write_atomic(out, json_chunks(document))
    if summary is not None:
        with open(summary, "a", encoding="utf-8") as stream:
            stream.write(render_summary(document))


def read_settings(options: GateOptions, protected: ProtectedFiles) -> Settings:
    """The effective policy: the policy file (read like the lock) under the flags."""
    policy_file = None if options.config is None else read_config(protected, options.config)
    return effective(policy_file, options.flags, options.root)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while the gate builds its per-test objects.

    Every test leaves long-lived rows and dicts behind, so the collector's full passes
    rescan a heap that only grows: a fifth of a 500,000-test run. The gate makes no
    reference cycles worth collecting before it exits.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def run_gate(options: GateOptions, protected: ProtectedFiles, now: datetime) -> Json:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(options.out)
    # Until the policy file is read, an error report can only show the flags and defaults.
    with _report_on_failure(options, effective(None, options.flags, options.root), now):
        settings = read_settings(options, protected)
    with _report_on_failure(options, settings, now), _collector_paused():
        document = _gate(options, settings, protected, now)
        write_report(options.out, options.summary, document)
    return document
