"""One replay (a `run-<n>.xml` file or a `run-<n>/` folder of shards) as per-test outcomes.

One rule, fail-closed, for every way a test id can appear more than once in a replay: the
replay's outcome for the id is a pass only when every occurrence and every attempt of it
in that replay passed.

- Retry elements inside a testcase (`flakyFailure`, `flakyError`, `rerunFailure`,
  `rerunError`) are failed attempts, wherever they stand relative to the final result.
- Repeated `<testcase>` elements with one id, in one file or across the replay's shards,
  are merged whether the tool retried (Gradle test-retry, gotestsum `--rerun-fails`,
  pytest-rerunfailures) or ran the test again for another reason (`go test -count=N`,
  data providers with equal titles, Playwright projects, nextest stress runs): a fail in
  any occurrence fails the replay.
- Skipped occurrences are ignored when another occurrence of the id ran; a replay in
  which every occurrence was skipped has no outcome for the id.

`Tally.retries` counts, per id over all replays, the attempts beyond the first: every
retry element and every repeated occurrence.

`Tally.repeats` keeps, per id that more than one `<testcase>` of one replay read as, the
most testcases of it in one replay: for a runner whose ids name the file, two tests that
became one id, which the report names (`waiver.gate.replay_inputs.collapsed_ids`).

`Tally.messages` keeps, per id, its first failure message: the message of the first
failing occurrence that carries one (in file order, shards in name order) in the
lowest-numbered replay that has one. Replays are merged in replay order whatever order
they were read in, so it is the same for any number of workers.
"""

from __future__ import annotations

import itertools
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache

from waiver.decide.policy import Policy
from waiver.errors import InputError
from waiver.read.junit.started import Started
from waiver.read.junit.stream import FAIL, PASS, CaseFile, read_junit
from waiver.read.junit.testid import TestIdRule
from waiver.read.untrusted.files import open_regular, read_chunks

# How deep folders may nest inside a replay folder (run-<n>/a/b/… holds shards).
MAX_SHARD_DEPTH = 8
DEFAULT_POLICY = Policy()


SEEN = 8  # any occurrence of the id in this replay, so a state is never 0 once seen


@dataclass(frozen=True)
class Limits:
    """The caps of reading replays; the policy's `limits` (`waiver.decide.policy.Policy`) sets them."""

    max_report_bytes: int = DEFAULT_POLICY.max_report_bytes
    max_files_per_replay: int = DEFAULT_POLICY.max_files_per_replay


@dataclass(frozen=True)
class ReplayError:
    replay: int
    source: str
    problem: str


@dataclass(frozen=True, slots=True)
class ReplayCases:
    """One replay, read against the ids a tally already knew, in the form a worker sends back.

    Positions below `known` are the tally's; the ids the replay saw that the tally did not
    know are `new_ids`, at positions from `known` on. Replays of one suite rarely hold a
    new id, so a worker sends back little more than one byte per test.
    """

    known: int
    new_ids: list[str]
    states: bytearray  # one state byte per position
    retries: dict[int, int]  # position -> attempts beyond the first
    messages: dict[int, str]  # position -> first failure message, for the failing ids
    repeats: dict[int, int]  # position -> testcases of the id, where more than one
    testcases: int
    started: datetime | None  # the earliest zone-aware suite timestamp of the replay


@dataclass
class Tally:
    """Outcome bits per test id per replay, kept compact: one byte per id per replay."""

    index: dict[str, int] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)
    replays: list[bytearray] = field(default_factory=list)
    retries: dict[int, int] = field(default_factory=dict)
    messages: dict[int, str] = field(default_factory=dict)  # from the first replay with one
    repeats: dict[int, int] = field(default_factory=dict)  # the most testcases in one replay
    testcases: int = 0  # <testcase> elements read, over all replays
    started: list[datetime] = field(default_factory=list)  # each replay's, where it has one

    def add(self, replay: ReplayCases) -> None:
        """Merge one replay in; positions are the order in which ids were first seen.

        The replay's new ids may already be here, at the positions it gave them: a replay
        read in this process adds them as it reads, and a replay read before any id was
        known usually lists the first replay's ids in the same order.
        """
        index, ids, known = self.index, self.ids, replay.known
        new_ids = replay.new_ids
        if len(ids) == known + len(new_ids) and ids[known:] == new_ids:
            new_ids = []  # already here, in this order: nothing to look up
        positions = []
        moved = False
        for offset, test_id in enumerate(new_ids, start=known):
            position = index.get(test_id)
            if position is None:
                position = index[test_id] = len(ids)
                ids.append(test_id)
            moved = moved or position != offset
            positions.append(position)
        states, retries, messages = replay.states, replay.retries, replay.messages
        repeats = replay.repeats
        if moved:
            # Another replay, read at the same time, added ids first: the new ids of this
            # one are not at the positions it gave them.
            states = replay.states[:known] + bytearray(len(ids) - known)
            for local, position in enumerate(positions, start=known):
                states[position] = replay.states[local]

            def placed(local: int) -> int:
                return local if local < known else positions[local - known]

            retries = {placed(local): extra for local, extra in retries.items()}
            messages = {placed(local): message for local, message in messages.items()}
            repeats = {placed(local): count for local, count in repeats.items()}
        self.replays.append(states)
        self.testcases += replay.testcases
        if replay.started is not None:
            self.started.append(replay.started)
        for position, extra in retries.items():
            self.retries[position] = self.retries.get(position, 0) + extra
        for position, message in messages.items():
            self.messages.setdefault(position, message)
        for position, count in repeats.items():
            self.repeats[position] = max(self.repeats.get(position, 0), count)

    def forget(self, count: int) -> None:
        """Drop the ids from position `count` on, added by a replay that is not kept."""
        for test_id in self.ids[count:]:
            del self.index[test_id]
        del self.ids[count:]

    def first_messages(self) -> dict[str, str]:
        """Each failing id's first failure message, by test id."""
        ids = self.ids
        return {ids[position]: message for position, message in self.messages.items()}

    def outcomes(self, position: int) -> tuple[bool, ...]:
        """Pass/fail per replay that produced an outcome for the id, in replay order."""
        return outcomes_of(
            tuple(states[position] if position < len(states) else 0 for states in self.replays)
        )

    def state_rows(self) -> Iterator[tuple[int, ...]]:
        """Each id's states in every replay, in position order: one pass over all replays."""
        width = len(self.ids)
        # A replay's states end at the last id it saw; ids first seen later have no state there.
        columns = [states + bytes(width - len(states)) for states in self.replays]
        return zip(*columns, strict=True) if columns else itertools.repeat((), width)

    def all_outcomes(self) -> Iterator[tuple[int, str, tuple[bool, ...]]]:
        """(position, id, outcomes) for every id, fast: one pass over all replays at once."""
        for position, (test_id, states) in enumerate(zip(self.ids, self.state_rows(), strict=True)):
            yield position, test_id, outcomes_of(states)


@cache
def outcomes_of(states: tuple[int, ...]) -> tuple[bool, ...]:
    """The outcomes a row of per-replay states stands for; a few distinct rows recur, so cached."""
    return tuple(not state & FAIL for state in states if state & (PASS | FAIL))


def _shard_files(folder: str, limits: Limits) -> Iterator[str]:
    """Every *.xml below a replay folder, in a stable order, refusing links and oddities."""
    files: list[str] = []
    pending = [(folder, 0)]
    while pending:
        current, depth = pending.pop()
        try:
            entries = os.scandir(current)
        except OSError as error:
            raise InputError(current, f"cannot list the folder: {error.strerror}") from None
        with entries:
            for entry in entries:
                if entry.is_symlink():
                    raise InputError(entry.path, "a symlink among the replay's files")
                if entry.is_dir(follow_symlinks=False):
                    if depth == MAX_SHARD_DEPTH:
                        raise InputError(
                            entry.path,
                            f"shard folders nested more than {MAX_SHARD_DEPTH} deep",
                        )
                    pending.append((entry.path, depth + 1))
                elif entry.name.endswith(".xml"):
                    files.append(entry.path)
                if len(files) > limits.max_files_per_replay:
                    raise InputError(
                        folder,
                        f"more than {limits.max_files_per_replay} report files in one replay",
                    )
    yield from sorted(files)


def _report_files(path: str, limits: Limits) -> list[str]:
    mode = os.lstat(path).st_mode
    if stat.S_ISDIR(mode):
        files = list(_shard_files(path, limits))
        if not files:
            raise InputError(path, "the replay folder holds no *.xml report")
        return files
    return [path]


def check_shards(path: str, files: list[str], shards: int) -> None:
    """With an expected shard count, a replay is whole only as `shard-1.xml` … `shard-K.xml`.

    A missing shard drops the whole replay (an input error for it), not just that shard's
    tests: a shard missing from every replay would otherwise take its tests out of the
    report without a trace when no registry lists them.
    """
    if files == [path]:
        if shards != 1:
            raise InputError(path, f"one report file where {shards} shards are expected")
        return
    expected = [f"shard-{k}.xml" for k in range(1, shards + 1)]
    found = {os.path.relpath(file, path) for file in files}
    missing = [k for k, name in enumerate(expected, 1) if name not in found]
    if len(missing) == 1:
        raise InputError(
            os.path.join(path, expected[missing[0] - 1]),
            f"missing: shard {missing[0]} of {shards}, so the replay is not counted",
        )
    if missing:
        numbers = ", ".join(str(k) for k in missing)
        raise InputError(
            path, f"missing: shards {numbers} of {shards}, so the replay is not counted"
        )
    unexpected = sorted(found - set(expected))
    if unexpected:
        shown = ", ".join(unexpected[:5]) + (" …" if len(unexpected) > 5 else "")
        raise InputError(
            path, f"{len(unexpected)} report files beyond shard-1.xml … shard-{shards}.xml: {shown}"
        )


def read_cases(paths: list[str], rule: TestIdRule, limits: Limits, tally: Tally) -> ReplayCases:
    """One replay, every shard file of it, read against the ids of `tally`.

    Ids the tally does not know are added to its index and ids as they are read (a second
    index of every id would cost tens of MB at 500,000 tests), and dropped again if the
    replay cannot be read. Its states, retries and messages are left for `Tally.add`.
    """
    index, ids = tally.index, tally.ids
    base = len(ids)
    states = bytearray(base)
    retries: dict[int, int] = {}
    messages: dict[int, str] = {}
    repeats: dict[int, int] = {}
    prefixes = rule.prefixes
    # A runner that reads the `file` of a case (`TestIdRule.case_id`) is asked for every one.
    files = None if rule.case_id is None else CaseFile()

    def sink(suite: str, classname: str, name: str, outcome: int, extra: int, message: str) -> None:
        if files is not None:
            test_id = rule.with_file(suite, classname, name, files.path, files.own)
        else:
            prefix = prefixes.get(classname)  # the rule's own cache, without a call per case
            test_id = rule(suite, classname, name) if prefix is None else prefix + name
        position = index.get(test_id)
        if position is None:
            position = index[test_id] = len(ids)
            ids.append(test_id)
            states.append(0)
        state = states[position]
        if state:  # seen before in this replay: a repeated occurrence is one more attempt
            extra += 1
            repeats[position] = repeats.get(position, 1) + 1
        if extra:
            retries[position] = retries.get(position, 0) + extra
        states[position] = state | outcome | SEEN
        if message and position not in messages:
            messages[position] = message

    testcases = 0
    started = Started()
    try:
        for path in paths:
            testcases += read_junit(
                read_chunks(open_regular(path, path), limits.max_report_bytes, path),
                path,
                sink,
                started,
                files,
            )
    except InputError:
        tally.forget(base)
        raise
    return ReplayCases(
        base, ids[base:], states, retries, messages, repeats, testcases, started.earliest
    )


def read_replay(paths: list[str], rule: TestIdRule, tally: Tally, limits: Limits) -> None:
    """Add one replay to the tally; on an input error, nothing of it reaches the tally."""
    tally.add(read_cases(paths, rule, limits, tally))


@dataclass(frozen=True)
class ReplayReader:
    """Reads one replay of a reports folder, or says why it cannot be counted."""

    reports: str
    rule: TestIdRule
    limits: Limits
    shards: int | None
    tally: Tally

    def __call__(self, replay: tuple[int, str]) -> ReplayCases | ReplayError:
        number, name = replay
        try:
            path = os.path.join(self.reports, name)
            files = _report_files(path, self.limits)
            if self.shards is not None:
                check_shards(path, files, self.shards)
            return read_cases(files, self.rule, self.limits, self.tally)
        except InputError as error:
            return ReplayError(number, error.source, error.problem)


def read_single(path: str, rule: TestIdRule, limits: Limits) -> Tally:
    """One report file or folder read as a single replay (the property suite, `inspect`)."""
    tally = Tally()
    try:
        files = _report_files(path, limits)
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    except OSError as error:  # a name longer than the system allows, most often
        raise InputError(path[:200], f"cannot be read: {error.strerror}") from None
    read_replay(files, rule, tally, limits)
    return tally
