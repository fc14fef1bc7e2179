"""The trusted lock against the fixtures and the test harness in the working tree, and the
lock the working tree would have.

One function for every command that asks whether the locked files drifted: the gate,
`waiver check-lock` and `waiver replay --lock`. Each must reach the same answer from the
same files, or a replay could be skipped that the gate then misses; the lock that `waiver
lock` and `waiver init` write lists those files too (`lock_text`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from waiver.decide.policy import Policy
from waiver.read.harness.bytecode import is_bytecode
from waiver.read.harness.named import Harness, Pair, Why, harness_in_tree, suite_modules
from waiver.read.lock.bindings import FixtureBindings, check_binding_patterns
from waiver.read.lock.committed import (
    CommittedChange,
    committed_changes,
    committed_test_data,
    with_committed,
)
from waiver.read.lock.fixture_set import fixtures_folder, scan_fixtures
from waiver.read.lock.lock_file import (
    MAX_LOCK_BYTES,
    FixtureState,
    LockEntry,
    build_lock_text,
    hash_tree,
    lock_digest,
    parse_lock,
)
from waiver.read.lock.unmatched import check_globs_match
from waiver.read.policy.settings import Flags, PolicyFile, Settings, effective
from waiver.read.trusted.ignored import ignored_folders
from waiver.read.trusted.protected import ProtectedFiles

# Which locked part a path belongs to, as the report names it.
Part = Literal["fixtures", "harness", "test_data"]
# The harness of the runner a policy names, with the property-suite modules: the runners
# answer it (`waiver.runners.policy_harness`), and the readers here take it as given.
HarnessOf = Callable[[Policy, frozenset[str]], Harness]


@dataclass(frozen=True)
class LockedSet:
    """What the lock protects: the fixture set under `folder` (None: the policy says there
    are no fixtures), and the test harness; and the data files beside the tests, outside
    the lock, that the change's commit adds or edits."""

    folder: str | None
    harness: Harness
    test_data: frozenset[str] = field(default_factory=frozenset)

    def part(self, path: str) -> Part:
        """`fixtures` for a file of the fixture set, `harness` for anything else locked and
        for bytecode, which can stand in for any module (so every row drifts), `test_data`
        for a data file beside the tests that no lock names (any test may read it)."""
        if path in self.test_data:
            return "test_data"
        if self.folder is None or is_bytecode(path):
            return "harness"
        inside = not self.folder or path.startswith(self.folder + "/")
        return "fixtures" if inside and not self.harness.covers(path) else "harness"

    def shared(self, path: str) -> bool:
        """Whether every test is bound to `path`: all but a file of the fixture set."""
        return self.part(path) != "fixtures"


@dataclass(frozen=True)
class LockPaths:
    """Where the lock and the fixture folder are, as given on the command line."""

    root: str
    fixtures: str
    lock: str


@dataclass(frozen=True)
class Fixtures:
    lock: tuple[LockEntry, ...]
    state: FixtureState
    expected: str
    current: str
    bound: FixtureBindings
    locked_set: LockedSet
    # With a trusted revision: what the change's commit adds, edits or deletes of them.
    committed: tuple[CommittedChange, ...] = ()

    @property
    def drifted(self) -> bool:
        return bool(self.state.drift)


def read_fixtures(
    paths: LockPaths,
    settings: Settings,
    protected: ProtectedFiles,
    modules: frozenset[str],
    harness_of: HarnessOf,
) -> Fixtures:
    """The trusted lock against the fixture set and the harness in the working tree, and
    with a trusted revision against what the change's commit holds (see `read.committed`).

    `modules` are the property-suite modules the property report names: they must be
    locked like any other harness file.
    """
    harness = harness_of(settings.policy, modules)
    lock = parse_lock(protected.read(paths.lock, MAX_LOCK_BYTES), paths.lock, harness.lock_tables)
    if settings.config is not None:
        check_binding_patterns(settings.policy.bindings, lock, settings.config)
    folder = fixtures_folder(paths.root, paths.fixtures) if settings.fixture_set else None
    locked_set = LockedSet(folder, harness)
    skipped = ignored_folders(paths.root, protected.revision)
    fixture_paths = (
        []
        if folder is None
        else scan_fixtures(paths.root, folder, settings.policy.fixtures, skipped)
    )
    harness_found = harness_in_tree(paths.root, harness, skipped)
    locked_paths = [entry.path for entry in lock]
    check_globs_match(
        settings,
        locked_set.folder,
        [*fixture_paths, *locked_paths],
        [*(path for path, _ in harness_found), *locked_paths],
    )
    found = [*((path, None) for path in fixture_paths), *harness_found]
    committed = protected.committed()
    changes = [] if committed is None else committed_changes(committed, harness, lock)
    if committed is not None:
        listed = {change.path for change in changes}
        unlocked = settings.policy.unlocked_data
        data = committed_test_data(committed, lock, unlocked, listed, harness.finder)
        changes = sorted([*changes, *data], key=lambda c: (c.path, c.table or ""))
        locked_set = replace(locked_set, test_data=frozenset(change.path for change in data))
    state = with_committed(
        hash_tree(paths.root, lock, found, paths.lock, harness.lock_tables), lock, changes
    )
    bound = FixtureBindings(settings.policy.bindings, lock, state.tree, locked_set.shared)
    return Fixtures(
        lock, state, lock_digest(lock), lock_digest(state.tree), bound, locked_set, tuple(changes)
    )


@dataclass(frozen=True)
class LockText:
    """The lock `waiver lock` and `waiver init` write, and why each harness file is in it."""

    text: str
    harness: Mapping[Pair, Why]


def lock_text(
    root: str,
    fixtures: str,
    patterns: Sequence[str],
    property_suites: Sequence[str],
    policy_file: PolicyFile | None,
    harness_of: HarnessOf,
) -> LockText:
    """The lock of the fixtures under `fixtures` (those matching `patterns`, else the policy
    file's globs; none when the policy says `fixtures: []`) and of the harness,
    property-suite modules included."""
    settings = effective(policy_file, replace(Flags(), fixtures=tuple(patterns) or None), ".")
    modules = frozenset(
        module for suite in property_suites for module in suite_modules(root, suite)
    )
    skipped = ignored_folders(root, None)
    harness = harness_of(settings.policy, modules)
    pairs = harness_in_tree(root, harness, skipped)
    folder = fixtures_folder(root, fixtures) if settings.fixture_set else None
    found = [] if folder is None else scan_fixtures(root, folder, settings.policy.fixtures, skipped)
    check_globs_match(settings, folder, found, [path for path, _ in pairs])
    named = None if folder is None else fixtures
    return LockText(build_lock_text(root, named, found, pairs, harness.lock_tables), pairs)
