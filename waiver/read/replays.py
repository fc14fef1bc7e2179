"""A folder of replays (`run-<n>.xml` files or `run-<n>/` folders of shards) as per-test outcomes.

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
retry element and every repeated occurrence. A replay that cannot be read is dropped
whole and recorded, so its tests end up with a short replay list.

With more than one core, replays are read by forked worker processes, one replay each
(see `read_replays`); the tally is the same whatever the number of workers.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from operator import attrgetter
from typing import TYPE_CHECKING

from waiver.errors import InputError
from waiver.read.files import open_regular, read_chunks
from waiver.read.junit import FAIL, PASS, read_junit
from waiver.read.started import Started
from waiver.read.testid import TestIdRule

if TYPE_CHECKING:
    from concurrent.futures import Executor
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

RUN_NAME = re.compile(r"run-([0-9]{1,6})(\.xml|\.log)?")
# The highest replay number: a name like run-999999.xml must not make the gate list (and
# write into the report) every replay below it as missing.
MAX_REPLAYS = 1000
# How deep folders may nest inside a replay folder (run-<n>/a/b/… holds shards).
MAX_SHARD_DEPTH = 8
SEEN = 8  # any occurrence of the id in this replay, so a state is never 0 once seen


@dataclass(frozen=True)
class Limits:
    max_report_bytes: int = 512 << 20
    max_files_per_replay: int = 10_000


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
    testcases: int
    started: datetime | None  # the earliest zone-aware suite timestamp of the replay


@dataclass
class Tally:
    """Outcome bits per test id per replay, kept compact: one byte per id per replay."""

    index: dict[str, int] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)
    replays: list[bytearray] = field(default_factory=list)
    retries: dict[int, int] = field(default_factory=dict)
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
        states, retries = replay.states, replay.retries
        if moved:
            # Another replay, read at the same time, added ids first: the new ids of this
            # one are not at the positions it gave them.
            states = replay.states[:known] + bytearray(len(ids) - known)
            for local, position in enumerate(positions, start=known):
                states[position] = replay.states[local]
            retries = {
                position if position < known else positions[position - known]: extra
                for position, extra in retries.items()
            }
        self.replays.append(states)
        self.testcases += replay.testcases
        if replay.started is not None:
            self.started.append(replay.started)
        for position, extra in retries.items():
            self.retries[position] = self.retries.get(position, 0) + extra

    def forget(self, count: int) -> None:
        """Drop the ids from position `count` on, added by a replay that is not kept."""
        for test_id in self.ids[count:]:
            del self.index[test_id]
        del self.ids[count:]

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


@dataclass(frozen=True)
class ReplaySet:
    tally: Tally
    replay_count: int
    errors: tuple[ReplayError, ...]


def _replay_sources(reports: str, expected: int | None, others: frozenset[str]) -> dict[int, str]:
    """The replays of a reports folder by number; anything else in it is an input error.

    Code under test can write into the folder it reports to, so a `run-<n>` beyond the
    declared count, or a name that is no replay, is refused rather than skipped or counted:
    an extra passing report would otherwise make a stable failure look unstable. Next to
    the replays only `run-<n>.log` (a replay's output, never read) and `others` may lie.
    """
    try:
        names = os.listdir(reports)
    except FileNotFoundError:
        raise InputError(reports, "the reports folder does not exist") from None
    except NotADirectoryError:
        raise InputError(reports, "the reports path is not a folder") from None
    found: dict[int, str] = {}
    logs: dict[int, str] = {}
    for name in sorted(names):
        if name in others:
            continue
        path = os.path.join(reports, name)
        match = RUN_NAME.fullmatch(name)
        if match is None:
            raise InputError(
                path, "not a replay (run-<n>.xml or run-<n>/): unexpected in the reports folder"
            )
        number = int(match.group(1))
        if number < 1:
            raise InputError(path, "replays are numbered from 1")
        if number > MAX_REPLAYS:
            raise InputError(path, f"replays are numbered up to {MAX_REPLAYS}")
        if expected is not None and number > expected:
            raise InputError(path, f"replay {number} is beyond the {expected} declared")
        if match.group(2) == ".log":
            logs[number] = name
            continue
        if number in found:
            raise InputError(path, f"replay {number} is given twice ({found[number]})")
        found[number] = name
    count = max([*found, expected or 0])
    for number, name in logs.items():
        if number > count:
            raise InputError(
                os.path.join(reports, name), f"a log of replay {number}, beyond the last replay"
            )
    return found


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
    replay cannot be read. Its states and retries are left for `Tally.add`.
    """
    index, ids = tally.index, tally.ids
    base = len(ids)
    states = bytearray(base)
    retries: dict[int, int] = {}
    prefixes = rule.prefixes

    def sink(suite: str, classname: str, name: str, outcome: int, extra: int) -> None:
        prefix = prefixes.get(classname)  # the rule's own cache, without a call per testcase
        test_id = rule(suite, classname, name) if prefix is None else prefix + name
        position = index.get(test_id)
        if position is None:
            position = index[test_id] = len(ids)
            ids.append(test_id)
            states.append(0)
        state = states[position]
        if state:  # seen before in this replay: a repeated occurrence is one more attempt
            extra += 1
        if extra:
            retries[position] = retries.get(position, 0) + extra
        states[position] = state | outcome | SEEN

    testcases = 0
    started = Started()
    try:
        for path in paths:
            testcases += read_junit(
                read_chunks(open_regular(path, path), limits.max_report_bytes, path),
                path,
                sink,
                started,
            )
    except InputError:
        tally.forget(base)
        raise
    return ReplayCases(base, ids[base:], states, retries, testcases, started.earliest)


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


# The reader of a worker process, inherited when it is forked rather than sent with every
# replay: its tally holds every id of a replay already read.
_worker_reader: ReplayReader | None = None


def _start_worker(reader: ReplayReader) -> None:
    global _worker_reader
    _worker_reader = reader


def _read_in_worker(replay: tuple[int, str]) -> ReplayCases | ReplayError:
    if _worker_reader is None:
        raise RuntimeError("a replay worker was started without its reader")
    tally = _worker_reader.tally
    known = len(tally.ids)
    try:
        return _worker_reader(replay)
    finally:
        # The worker's copy of the tally must stay as it was forked: positions beyond it
        # mean ids new to the replay, which the gate's own tally places.
        tally.forget(known)


def replay_workers() -> int:
    """The cores this process may run on, which the reading of replays is planned for.

    Workers are forked, so only where forking is the norm (Linux, which also says which
    cores are ours); elsewhere replays are read one after another.
    """
    if not hasattr(os, "sched_getaffinity"):
        return 1
    return len(os.sched_getaffinity(0))


class _FreshRead:
    """One replay read in a process forked before any id is known, while this one reads.

    A plain forked process with a pipe, not an executor: the executor for the other
    replays is forked later, and forking while an executor's threads run may copy a lock
    that one of them holds.
    """

    def __init__(self, reader: ReplayReader, replay: tuple[int, str]) -> None:
        import multiprocessing  # imported here, like the executor's

        context = multiprocessing.get_context("fork")
        self.receiving, sending = context.Pipe(duplex=False)
        self.process: BaseProcess = context.Process(
            target=_read_and_send, args=(reader, replay, sending), daemon=True
        )
        self.process.start()
        sending.close()

    def result(self) -> ReplayCases | ReplayError:
        from concurrent.futures.process import BrokenProcessPool

        try:
            result: ReplayCases | ReplayError = self.receiving.recv()
        except EOFError:
            raise BrokenProcessPool("a replay worker ended without a result") from None
        finally:
            self.receiving.close()
            self.process.join()
        return result


def _read_and_send(reader: ReplayReader, replay: tuple[int, str], sending: Connection) -> None:
    sending.send(reader(replay))
    sending.close()


@contextlib.contextmanager
def _workers(reader: ReplayReader, count: int) -> Iterator[Executor | None]:
    """`count` forked worker processes that read with `reader`, or None where none can start.

    Workers are forked, so they start with everything imported and with the ids the
    reader's tally holds at this moment. An executor rather than a multiprocessing.Pool:
    a worker that dies (out of memory, killed) breaks the executor with an error, where a
    pool would wait for it forever.
    """
    if count < 1:
        yield None
        return
    # Imported here: they add a fiftieth of a second to the start of every command.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        pool = ProcessPoolExecutor(
            count,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_start_worker,
            initargs=(reader,),
        )
    except OSError:
        # No POSIX semaphores for its queues, as in a container without /dev/shm.
        yield None
        return
    with pool:
        yield pool


def _read_in(
    pool: Executor | None, reader: ReplayReader, replays: list[tuple[int, str]]
) -> Iterator[ReplayCases | ReplayError]:
    """Each replay read, in the order given: by the pool's workers, or here without one."""
    if pool is None:
        return map(reader, replays)
    return pool.map(_read_in_worker, replays)


def report_and_log(reports: str, path: str) -> frozenset[str]:
    """The names a report at `path` and its `.log` take in the reports folder, if directly in it.

    `waiver replay --properties-first` writes the property report and its output there.
    """
    folder, name = os.path.split(os.path.abspath(path))
    if folder != os.path.abspath(reports):
        return frozenset()
    return frozenset({name, os.path.splitext(name)[0] + ".log"})


def read_replays(
    reports: str,
    rule: TestIdRule,
    limits: Limits,
    expected: int | None = None,
    shards: int | None = None,
    workers: int | None = None,
    others: frozenset[str] = frozenset(),
) -> ReplaySet:
    """Every replay of a reports folder, merged in replay order.

    Replays are independent until they are merged, and reading is nearly all of the
    gate's time, so with more than one core they are parsed in worker processes. This
    process reads the first replay itself, so that the workers for the middle ones start
    out knowing its ids and send back little more than a byte per test. Meanwhile the
    last replays, one per other core, are read by workers forked before any id is known,
    so no core waits for the first replay. The middle ones are then read all at once:
    three replays on two cores take one and a half reads of time, not two. The merge stays
    here, in replay order, so the result is the same whatever the number of workers.

    `expected` is the declared replay count, and `others` the names besides the replays
    that may lie in the folder (see `_replay_sources`).
    """
    sources = _replay_sources(reports, expected, others)
    if not sources:
        raise InputError(
            reports,
            "no replay found: expected run-1.xml … run-N.xml files or run-1/ … run-N/ folders",
        )
    count = max([*sources, expected or 0])
    tally = Tally()
    errors: list[ReplayError] = [
        ReplayError(number, f"run-{number}", "missing")
        for number in range(1, count + 1)
        if number not in sources
    ]
    reader = ReplayReader(reports, rule, limits, shards, tally)

    def merge(result: ReplayCases | ReplayError) -> None:
        if isinstance(result, ReplayError):
            errors.append(result)
        else:
            tally.add(result)

    cores = replay_workers() if workers is None else workers
    found = sorted(sources.items())
    # One fresh read per other core, but never of the only replay or of the first.
    last = len(found) - max(0, min(cores - 1, len(found) - 1))
    fresh = [_FreshRead(reader, replay) for replay in found[last:]]
    first = iter(found[:last])
    # Replays are read here until one holds a test, the ids the middle workers start with.
    for replay in first:
        merge(reader(replay))
        if tally.ids:
            break
    middle = list(first)
    with _workers(reader, min(len(middle), 2 * cores) if cores > 1 else 0) as pool:
        results = _read_in(pool, reader, middle)
        late = [read.result() for read in fresh]
        for result in itertools.chain(results, late):
            merge(result)
    errors.sort(key=attrgetter("replay"))
    ran = any(state & (PASS | FAIL) for states in tally.replays for state in states)
    if not ran:
        problem = "no test case ran in any replay"
        if errors:
            problem += f" ({errors[0].source}: {errors[0].problem})"
        raise InputError(reports, problem)
    return ReplaySet(tally, count, tuple(errors))


def read_single(path: str, rule: TestIdRule, limits: Limits) -> Tally:
    """One report file or folder read as a single replay (the property suite, `inspect`)."""
    tally = Tally()
    try:
        files = _report_files(path, limits)
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    read_replay(files, rule, tally, limits)
    return tally
