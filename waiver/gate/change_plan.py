"""Which of a change's tests run apart from the verdict replays, from files alone, before
any replay.

The verdict replays run the base's test tree against the change's code (SPEC 3.11), so the
change's own tests run in jobs of their own, planned beside the replays from the two
commits as the gate reads them. Nothing of the change runs: its files are read as git
blobs and parsed, never imported.

- Its test files: every file of its commit that the base's runner would collect, added or
  edited, and the file of each new or edited test. Each runs whole, on the change's own
  tree: a new test the change's registry does not list shows up too (and is said, for
  review), and a registered test its file no longer holds is deleted.
- Its red-green tests: the ids the change's own registry adds to the trusted one (a new
  test an approval may admit) and the registered ids whose definition it edited, each run
  on the base's code with the change's test files. The plan cannot wait for the change's
  replays, so it takes every such test and leaves it to the gate to use an outcome only
  for a row that passed every replay of the change (`waiver.gate.red_green.annotate`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from waiver.errors import InputError
from waiver.gate.review import change_registry
from waiver.read.policy.settings import Settings
from waiver.read.registry import MAX_REGISTRY_BYTES, registry_blocks
from waiver.read.trusted.git import GitRevision
from waiver.read.trusted.protected import Committed
from waiver.runners import runner_named
from waiver.runners.base import Runner

MAX_TEST_FILE_BYTES = 64 << 20


@dataclass(frozen=True)
class ChangePlan:
    """The change's tests to run apart: its test files, each whole, on its own tree, and
    the ids to replay on the base's code (red-green)."""

    files: list[str]
    red_green: list[str]


def red_green_tests(revision: GitRevision, settings: Settings, root: str) -> list[str]:
    """The new ids the change's registry lists and the registered ids it edited, sorted."""
    if settings.registry is None:
        return []
    committed = revision.committed()
    registered: list[str] = []
    for block in registry_blocks(
        revision.read(settings.registry, MAX_REGISTRY_BYTES), settings.registry
    ):
        registered += block
    listed = change_registry(committed, settings.registry, root) or frozenset()
    new = listed.difference(registered)
    edited = runner_named(settings.policy.runner).edited(committed, registered)
    return sorted(new.union(edited))


def change_test_files(committed: Committed, runner: Runner, tests: Iterable[str]) -> list[str]:
    """The test files the change's own tests run from, sorted: each file of its commit that
    the base's runner would collect, added or edited, and the file of each of `tests` (its
    new and edited tests), where its commit holds one."""
    tree = runner.test_tree(committed.trusted)
    named = (runner.test_file(test_id) for test_id in tests)
    found = {path for path in committed.changed if tree.collects(path)}
    found.update(path for path in named if path is not None)
    return sorted(path for path in found if _in_head(committed, path))


def _in_head(committed: Committed, path: str) -> bool:
    """Whether the change's commit holds a regular file at `path` that a test command may
    be given: one that reads as an option never is."""
    if path.startswith("-"):
        return False
    try:
        return committed.head.read(path, MAX_TEST_FILE_BYTES) is not None
    except InputError:
        return False  # a symlink, or another kind of entry: no test file to run


def change_plan(revision: GitRevision, settings: Settings, root: str) -> ChangePlan:
    """The change's tests to run apart; none without a registry, which alone tells a new
    test from a known one (the gate then counts every reported id as known)."""
    if settings.registry is None:
        return ChangePlan([], [])
    candidates = red_green_tests(revision, settings, root)
    runner = runner_named(settings.policy.runner)
    return ChangePlan(change_test_files(revision.committed(), runner, candidates), candidates)
