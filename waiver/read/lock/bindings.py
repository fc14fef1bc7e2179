"""Fixture bindings: the part of the fixture set each test is bound to, and its two digests.

A test that matches no binding is bound to the whole set, so any drift drifts it. A test
that matches several bindings is bound to the union of their subsets: it drifts when any
file it may read drifts. Every subset also holds the shared files: the test harness,
which every test runs under, and any locked file that no binding names, which is part of
the whole set. So no binding can exempt a test from their drift. A subset's digests are
`lock_digest` over its trusted lock entries and over its working-tree entries (which
include files not in the lock), computed once per binding and once per distinct
combination of bindings, never once per test.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fnmatch import translate

from waiver.decide.policy import Binding
from waiver.errors import InputError
from waiver.read.lock.lock_file import LockEntry, lock_digest
from waiver.read.policy.globs import path_glob


def _matcher(patterns: Sequence[str]) -> re.Pattern[str]:
    return re.compile("|".join(translate(path_glob(pattern)) for pattern in patterns))


@dataclass(frozen=True)
class Subset:
    binding: Binding
    lock: frozenset[LockEntry]
    tree: frozenset[LockEntry]
    expected: str  # digest of the subset's entries in the trusted lock
    current: str  # digest of the subset's entries in the working tree


def _subset(
    binding: Binding, lock: Sequence[LockEntry], tree: Sequence[LockEntry], shared: SharedEntries
) -> Subset:
    matches = _matcher(binding.fixtures).match
    locked = frozenset(entry for entry in lock if matches(entry.path)) | shared.lock
    found = frozenset(entry for entry in tree if matches(entry.path)) | shared.tree
    return Subset(binding, locked, found, lock_digest(locked), lock_digest(found))


@dataclass(frozen=True)
class SharedEntries:
    """The entries every binding's subset holds: harness files and files no binding names."""

    lock: frozenset[LockEntry]
    tree: frozenset[LockEntry]

    @classmethod
    def of(
        cls,
        bindings: Sequence[Binding],
        lock: Sequence[LockEntry],
        tree: Sequence[LockEntry],
        harness: Callable[[str], bool],
    ) -> SharedEntries:
        if not bindings:
            return cls(frozenset(), frozenset())
        named = _matcher([p for binding in bindings for p in binding.fixtures]).match

        def shared(entry: LockEntry) -> bool:
            return harness(entry.path) or not named(entry.path)

        return cls(frozenset(filter(shared, lock)), frozenset(filter(shared, tree)))


def check_binding_patterns(
    bindings: Sequence[Binding], lock: Sequence[LockEntry], source: str
) -> None:
    """A fixture pattern that matches nothing in the lock would bind tests to nothing, so
    they could never drift; that is a mistake in the policy file, not a binding."""
    for index, binding in enumerate(bindings):
        for number, pattern in enumerate(binding.fixtures):
            matches = _matcher([pattern]).match
            if not any(matches(entry.path) for entry in lock):
                raise InputError(
                    source,
                    f"bindings[{index}].fixtures[{number}]: {pattern!r} matches no file in the "
                    "lock (patterns match lock paths, relative to the repository root)",
                )


class FixtureBindings:
    """Maps a test id to the (expected, current) fixture digests of the subset it is bound to."""

    def __init__(
        self,
        bindings: Sequence[Binding],
        lock: Sequence[LockEntry],
        tree: Sequence[LockEntry],
        harness: Callable[[str], bool],
    ) -> None:
        self.whole = (lock_digest(lock), lock_digest(tree))
        shared = SharedEntries.of(bindings, lock, tree, harness)
        self.subsets = tuple(_subset(binding, lock, tree, shared) for binding in bindings)
        self._tests = tuple(_matcher(binding.tests).match for binding in bindings)
        self._digests: dict[tuple[int, ...], tuple[str, str]] = {
            (index,): (subset.expected, subset.current) for index, subset in enumerate(self.subsets)
        }

    def group(self, test_ids: list[str]) -> dict[tuple[str, str], list[str]]:
        """The ids by the (expected, current) digests of what they are bound to."""
        if not self._tests:
            return {self.whole: test_ids}
        groups: dict[tuple[str, str], list[str]] = {}
        for test_id in test_ids:
            groups.setdefault(self.digests(test_id), []).append(test_id)
        return groups

    def digests(self, test_id: str) -> tuple[str, str]:
        if not self._tests:
            return self.whole
        bound = tuple(index for index, matches in enumerate(self._tests) if matches(test_id))
        if not bound:
            return self.whole
        found = self._digests.get(bound)
        if found is None:
            locked = frozenset[LockEntry]().union(*(self.subsets[i].lock for i in bound))
            tree = frozenset[LockEntry]().union(*(self.subsets[i].tree for i in bound))
            found = self._digests[bound] = (lock_digest(locked), lock_digest(tree))
        return found
