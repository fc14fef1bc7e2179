"""The registered tests a change edited, with the kinds and the diff of each edit, worked
out in a process forked before the replays are read, while this one reads them.

Which ids to compare is known only once the replays are read (the registry's ids that
some replay reported, and the property ids the registry lists). The forked process
compares every id the registry lists instead, and the gate keeps the ids it compares:
each id's answer depends on its own definition alone, so the answers for the registry,
narrowed to some of its ids, are the answers for those ids. Whatever goes wrong in the
forked process, the gate works the answers out itself, and meets the same error in the
same place as without it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from waiver.read.definitions.diff import definition_diffs
from waiver.read.definitions.findings import EditFinding, edit_findings
from waiver.read.forked import Forked, fork
from waiver.read.registry import MAX_REGISTRY_BYTES, registry_blocks
from waiver.read.trusted.protected import Committed, ProtectedFiles
from waiver.runners.base import Runner


@dataclass(frozen=True)
class EditedFacts:
    """Each edited test id with what changed, the named kinds of each edit, and the diff
    of each edited Python test's definition."""

    edited: dict[str, tuple[str, ...]]
    findings: dict[str, tuple[EditFinding, ...]]
    diffs: dict[str, tuple[str, ...]]

    def only(self, test_ids: Iterable[str]) -> EditedFacts:
        """The facts of `test_ids` alone."""
        kept = [test_id for test_id in dict.fromkeys(test_ids) if test_id in self.edited]
        return EditedFacts(
            {test_id: self.edited[test_id] for test_id in kept},
            {test_id: self.findings[test_id] for test_id in kept if test_id in self.findings},
            {test_id: self.diffs[test_id] for test_id in kept if test_id in self.diffs},
        )


def edited_facts(runner: Runner, committed: Committed, test_ids: Iterable[str]) -> EditedFacts:
    edited = runner.edited(committed, test_ids)
    return EditedFacts(
        edited, edit_findings(committed, edited), definition_diffs(committed, edited)
    )


def _compare_registry(
    runner: Runner, committed: Committed, protected: ProtectedFiles, registry: str
) -> EditedFacts | None:
    """In the forked process: the facts of every id the registry lists, or None."""
    # Any error is met again by the gate itself, in its place: here it only means no answer.
    with contextlib.suppress(Exception):
        data = protected.read(registry, MAX_REGISTRY_BYTES)
        ids = [test_id for block in registry_blocks(data, registry) for test_id in block]
        return edited_facts(runner, committed, ids)
    return None


class EditedAhead:
    """The edited tests of the ids the gate compares: from the forked process when it
    started and answered, else worked out here."""

    def __init__(
        self, runner: Runner, committed: Committed, process: Forked[EditedFacts | None] | None
    ) -> None:
        self.runner = runner
        self.committed = committed
        self.process = process

    def facts(self, test_ids: Iterable[str]) -> EditedFacts:
        ids = list(test_ids)
        found = None
        if self.process is not None:
            with contextlib.suppress(EOFError):
                found = self.process.result()
        if found is None:
            return edited_facts(self.runner, self.committed, ids)
        return found.only(ids)


@contextlib.contextmanager
def edited_ahead(
    runner: Runner, committed: Committed | None, protected: ProtectedFiles, registry: str | None
) -> Iterator[EditedAhead | None]:
    """The edited tests, when there is a change's commit to compare (None otherwise):
    compared ahead in a forked process when there is a registry to compare. The process
    ends with the block."""
    if committed is None:
        yield None
        return
    process = (
        None
        if registry is None
        else fork(_compare_registry, runner, committed, protected, registry)
    )
    try:
        yield EditedAhead(runner, committed, process)
    finally:
        if process is not None:
            process.stop()
