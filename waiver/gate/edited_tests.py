"""The registered tests a change edited, with the kinds and the diff of each edit, worked
out in a process forked before the replays are read, while this one reads them.

Which ids to compare is known only once the replays are read (the registry's ids that
some replay reported, and the property ids the registry lists). The forked process
compares every id the registry lists instead, and the gate keeps the ids it compares:
each id's answer depends on its own definition alone, so the answers for the registry,
narrowed to some of its ids, are the answers for those ids.

The registry's ids are compared in parts. The forked process takes the next part left,
and so does the gate once its replays are read, until none is left: when every
test module has to be parsed, the gate's core does half of it rather than wait. Whatever
goes wrong in either, the gate works the answers out itself, and meets the same error in
the same place as without the forked process.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from waiver.read.definitions.edit_kinds import EditFinding
from waiver.read.forked import Claims, Forked, fork, forking
from waiver.read.stores.registry import MAX_REGISTRY_BYTES, registry_blocks
from waiver.read.trusted.protected import Committed, ProtectedFiles
from waiver.runners.base import Runner

# How many parts the registry's ids are compared in: enough that neither process is left
# with much of the other's share when it runs out, few enough that each part's own
# costs (listing the trees, the modules its ids share with its neighbours) stay small.
PARTS = 16


@dataclass(frozen=True)
class EditedFacts:
    """Each edited test id with what changed, the named kinds of each edit, and the diff
    of each edited test's definition."""

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
    return EditedFacts(edited, runner.findings(committed, edited), runner.diffs(committed, edited))


def registry_parts(runner: Runner, data: bytes, source: str) -> list[list[str]]:
    """The registry's ids in PARTS parts of about the same size, in file order; a part
    ends where a test file does, so that a module is parsed for one part only."""
    ids = [test_id for block in registry_blocks(data, source) for test_id in block]
    parts: list[list[str]] = []
    start = 0
    for number in range(1, PARTS + 1):
        end = max(start, len(ids) * number // PARTS)
        last = runner.test_file(ids[end - 1]) if 0 < end < len(ids) else None
        while last is not None and end < len(ids) and runner.test_file(ids[end]) == last:
            end += 1
        parts.append(ids[start:end])
        start = end
    return parts


def _read_parts(runner: Runner, protected: ProtectedFiles, registry: str) -> list[list[str]]:
    return registry_parts(runner, protected.read(registry, MAX_REGISTRY_BYTES), registry)


def _compare_parts(
    runner: Runner,
    committed: Committed,
    protected: ProtectedFiles,
    registry: str,
    claims: Claims,
) -> list[EditedFacts] | None:
    """In the forked process: the facts of each part it takes, or None."""
    # Any error is met again by the gate itself, in its place: here it only means no answer.
    with contextlib.suppress(Exception):
        parts = _read_parts(runner, protected, registry)
        return [edited_facts(runner, committed, parts[i]) for i in claims.taken()]
    return None


def merged(facts: Iterable[EditedFacts]) -> EditedFacts:
    """The facts of several parts as one."""
    edited: dict[str, tuple[str, ...]] = {}
    findings: dict[str, tuple[EditFinding, ...]] = {}
    diffs: dict[str, tuple[str, ...]] = {}
    for part in facts:
        edited.update(part.edited)
        findings.update(part.findings)
        diffs.update(part.diffs)
    return EditedFacts(edited, findings, diffs)


@dataclass(frozen=True)
class Shared:
    """The forked process that compares parts of the registry, and the claims on them."""

    process: Forked[list[EditedFacts] | None]
    claims: Claims
    protected: ProtectedFiles
    registry: str


class EditedAhead:
    """The edited tests of the ids the gate compares: the parts of the registry the forked
    process and this one compared, when both answered, else worked out here."""

    def __init__(self, runner: Runner, committed: Committed, shared: Shared | None) -> None:
        self.runner = runner
        self.committed = committed
        self.shared = shared

    def facts(self, test_ids: Iterable[str]) -> EditedFacts:
        ids = list(test_ids)
        found = None if self.shared is None else self._shared(self.shared)
        if found is None:
            return edited_facts(self.runner, self.committed, ids)
        return found.only(ids)

    def _shared(self, shared: Shared) -> EditedFacts | None:
        mine: list[EditedFacts] | None = None
        with contextlib.suppress(Exception):
            found, parts = [], None
            # The registry is read again only when a part is left to compare here.
            for part in shared.claims.taken():
                parts = parts or _read_parts(self.runner, shared.protected, shared.registry)
                found.append(edited_facts(self.runner, self.committed, parts[part]))
            mine = found
        theirs = None
        with contextlib.suppress(EOFError):
            theirs = shared.process.result()
        if mine is None or theirs is None:
            return None
        return merged([*theirs, *mine])


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
    shared = None
    if registry is not None and forking():
        claims = Claims(PARTS)
        process = fork(_compare_parts, runner, committed, protected, registry, claims)
        if process is None:
            claims.close()
        else:
            shared = Shared(process, claims, protected, registry)
    try:
        yield EditedAhead(runner, committed, shared)
    finally:
        if shared is not None:
            shared.process.stop()
            shared.claims.close()
