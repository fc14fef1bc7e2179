"""The evidence of every test id, grouped: one case per distinct evidence (its states in
each replay, its registry entry, its retries, its base states and its fixture binding),
so that the decision classifies a few dozen cases, not one per test."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import repeat

from waiver.gate.change_test_replays import ChangeTests, change_cases
from waiver.model import BaseEvidence, Case, Evidence
from waiver.read.junit.replay_reports import Tally, outcomes_of
from waiver.read.junit.replay_set import ReplaySet
from waiver.read.lock.drift import Fixtures
from waiver.read.stores.registry import Registry

# What an id's evidence depends on, apart from its fixtures: its states in each replay,
# whether the registry lists it, its retries, and its states in the base replays.
GroupKey = tuple[tuple[int, ...], int, int, tuple[int, ...] | None]


@dataclass(frozen=True)
class BaseStates:
    """Where each row's base evidence comes from: a test id's states in the base's replays
    (None when the base never ran it), and how many of those replays could not be read. Base
    replays read like the change's give them, and so does the default branch's recorded run
    of the base commit (`waiver.gate.history_evidence.history_base`)."""

    of: Callable[[str], tuple[int, ...] | None]
    unreadable: int


def replayed_base(base: ReplaySet) -> BaseStates:
    """The base replays read like the change's, as base evidence."""
    rows = list(base.tally.state_rows())
    index = base.tally.index

    def states(test_id: str) -> tuple[int, ...] | None:
        position = index.get(test_id)
        return None if position is None else rows[position]

    return BaseStates(states, len(base.errors))


def base_evidence(base: BaseStates | None, states: tuple[int, ...] | None) -> BaseEvidence | None:
    if base is None:
        return None
    if states is None:
        return BaseEvidence((), on_base=False, unreadable_replays=base.unreadable)
    return BaseEvidence(outcomes_of(states), unreadable_replays=base.unreadable)


def build_cases(
    replays: ReplaySet,
    registry: Registry | None,
    property_ok: bool,
    fixtures: Fixtures,
    skipped: list[str],
    base: BaseStates | None = None,
    edited: frozenset[str] = frozenset(),
    change: ChangeTests | None = None,
) -> list[Case]:
    """One case per distinct evidence, holding every test id seen or expected that has it.

    Ids skipped in every replay and not expected by the registry are not cases: they are
    appended to `skipped`. Each case carries the digests of the fixtures its tests are
    bound to (the whole set unless a policy binding says otherwise), and with base evidence
    the id's states on the base. An id in `edited` is a test whose definition the change
    edited: its case says so. With the change's own tests (`change`), the replays ran the
    base's test tree, and an edited id's case, and a new id's that only the change's tests
    ran, come from `waiver.gate.change_test_replays`.
    """
    tally: Tally = replays.tally
    extras = [0] * len(tally.ids)
    for position, extra in tally.retries.items():
        extras[position] = extra
    listed = registry.expected if registry is not None else b"\x01" * len(tally.ids)
    # Keyed on the raw states, so that per id this is one tuple and one dict lookup.
    groups: defaultdict[GroupKey, list[str]] = defaultdict(list)
    on_base = base.of if base is not None else None
    bases = repeat(None, len(tally.ids)) if on_base is None else map(on_base, tally.ids)
    keys = zip(tally.state_rows(), listed, extras, bases, strict=True)
    apart = edited if change is not None and registry is not None else frozenset()
    for test_id, key in zip(tally.ids, keys, strict=True):
        if test_id not in apart:
            groups[key].append(test_id)
    if registry is not None:
        # Known from the registry, in no replay of the change; the base may still have them.
        for test_id in registry.vanished:
            if test_id not in apart:
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
            cases += _split_edited(bound_ids, evidence, edited)
    if change is not None and registry is not None:
        cases += change_cases(replays, registry, property_ok, fixtures, edited, change)
    return cases


def _split_edited(ids: list[str], evidence: Evidence, edited: frozenset[str]) -> list[Case]:
    """One case for the ids whose definition the change edited, one for the others."""
    if not edited or edited.isdisjoint(ids):
        return [Case(tuple(ids), evidence)]
    parts = [
        (tuple(i for i in ids if i not in edited), evidence),
        (tuple(i for i in ids if i in edited), replace(evidence, edited=True)),
    ]
    return [Case(part, part_evidence) for part, part_evidence in parts if part]


def failed_property_cases(failed_properties: list[str], fixtures: Fixtures) -> list[Case]:
    """With no replay and no registry to name the tests, the failed property cases are the
    rows, so the report blocks on property_violation instead of being empty and clean."""
    return [
        Case((test_id,), Evidence(False, current_hash, expected_hash, (), known_test=True))
        for test_id in failed_properties
        for expected_hash, current_hash in [fixtures.bound.digests(test_id)]
    ]
