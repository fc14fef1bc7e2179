"""Which tests of a change need red-green replays, from files alone, before any replay.

The reusable workflow plans its red-green job beside the change's replays, so it cannot
wait for them: it takes every test that can become a new or edited review row, read from
the two commits as the gate reads them, and leaves it to the gate to use an outcome only
for a row that passed every replay of the change (`waiver.gate.red_green.annotate`).
Those tests are the ids the change's own registry adds to the trusted one (a new test an
approval may admit) and the registered ids whose definition the change edited. Nothing of
the change runs: its files are read as git blobs and parsed, never imported.
"""

from __future__ import annotations

from waiver.errors import UsageError
from waiver.gate.review import change_registry
from waiver.read.policy.settings import Settings
from waiver.read.registry import MAX_REGISTRY_BYTES, registry_blocks
from waiver.read.trusted.git import GitRevision
from waiver.runners import runner_named


def red_green_tests(revision: GitRevision, settings: Settings, root: str) -> list[str]:
    """The new ids the change's registry lists and the registered ids it edited, sorted."""
    if settings.registry is None:
        raise UsageError(
            "red-green replays are planned from the known-tests registry: give --known-tests "
            "or the policy's registry"
        )
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
