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
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache, partial
from operator import attrgetter

from waiver.errors import InputError
from waiver.read.files import open_regular, read_chunks
from waiver.read.junit import FAIL, PASS, read_junit
from waiver.read.testid import TestIdRule

RUN_NAME = re.compile(r"run-([0-9]{1,6})(\.xml)?")
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
    """One replay read on its own: ids in the order first seen, a state byte per id."""

    ids: list[str]
    states: bytearray
    retries: dict[int, int]  # position -> attempts beyond the first
    testcases: int


@dataclass
class Tally:
    """Outcome bits per test id per replay, kept compact: one byte per id per replay."""

    index: dict[str, int] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)
    replays: list[bytearray] = field(default_factory=list)
    retries: dict[int, int] = field(default_factory=dict)
    testcases: int = 0  # <testcase> elements read, over all replays

    def add(self, replay: ReplayCases) -> None:
        """Merge one replay in; positions are the order in which ids were first seen."""
        states, retries = replay.states, replay.retries
        if replay.ids != self.ids:
            # Replays of one suite usually list the same ids in the same order; only
            # when they do not are the replay's positions mapped to the tally's.
            index, ids = self.index, self.ids
            positions = []
            for test_id in replay.ids:
                position = index.get(test_id)
                if position is None:
                    position = index[test_id] = len(ids)
                    ids.append(test_id)
                positions.append(position)
            states = bytearray(len(ids))
            for position, state in zip(positions, replay.states, strict=True):
                states[position] = state
            retries = {positions[local]: extra for local, extra in retries.items()}
        self.replays.append(states)
        self.testcases += replay.testcases
        for position, extra in retries.items():
            self.retries[position] = self.retries.get(position, 0) + extra

    def outcomes(self, position: int) -> tuple[bool, ...]:
        """Pass/fail per replay that produced an outcome for the id, in replay order."""
        return outcomes_of(
            tuple(states[position] if position < len(states) else 0 for states in self.replays)
        )

    def all_outcomes(self) -> Iterator[tuple[int, str, tuple[bool, ...]]]:
        """(position, id, outcomes) for every id, fast: one pass over all replays at once."""
        width = len(self.ids)
        # A replay's states end at the last id it saw; ids first seen later have no state there.
        columns = [states + bytes(width - len(states)) for states in self.replays]
        rows = zip(*columns, strict=True) if columns else itertools.repeat(())
        for position, (test_id, states) in enumerate(zip(self.ids, rows, strict=False)):
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


def _replay_sources(reports: str) -> dict[int, str]:
    try:
        names = os.listdir(reports)
    except FileNotFoundError:
        raise InputError(reports, "the reports folder does not exist") from None
    except NotADirectoryError:
        raise InputError(reports, "the reports path is not a folder") from None
    found: dict[int, str] = {}
    for name in names:
        match = RUN_NAME.fullmatch(name)
        if match is None:
            continue
        number = int(match.group(1))
        if number < 1:
            raise InputError(os.path.join(reports, name), "replays are numbered from 1")
        if number in found:
            raise InputError(
                os.path.join(reports, name), f"replay {number} is given twice ({found[number]})"
            )
        found[number] = name
    return found


def _shard_files(folder: str, limits: Limits) -> Iterator[str]:
    """Every *.xml below a replay folder, in a stable order, refusing links and oddities."""
    files: list[str] = []
    pending = [folder]
    while pending:
        current = pending.pop()
        with os.scandir(current) as entries:
            for entry in entries:
                if entry.is_symlink():
                    raise InputError(entry.path, "a symlink among the replay's files")
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
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


def read_cases(paths: list[str], rule: TestIdRule, limits: Limits) -> ReplayCases:
    """One replay on its own, every shard file of it: its ids, states, retries and size."""
    index: dict[str, int] = {}
    ids: list[str] = []
    states = bytearray()
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
    for path in paths:
        testcases += read_junit(
            read_chunks(open_regular(path, path), limits.max_report_bytes, path), path, sink
        )
    return ReplayCases(ids, states, retries, testcases)


def read_replay(paths: list[str], rule: TestIdRule, tally: Tally, limits: Limits) -> None:
    """Add one replay to the tally; on an input error, nothing of it reaches the tally."""
    tally.add(read_cases(paths, rule, limits))


def _read_numbered(
    reports: str, rule: TestIdRule, limits: Limits, shards: int | None, replay: tuple[int, str]
) -> ReplayCases | ReplayError:
    """One replay of the folder, or why it cannot be counted; the unit of work of a worker."""
    number, name = replay
    try:
        path = os.path.join(reports, name)
        files = _report_files(path, limits)
        if shards is not None:
            check_shards(path, files, shards)
        return read_cases(files, rule, limits)
    except InputError as error:
        return ReplayError(number, error.source, error.problem)


def available_cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _read_all(
    read: Callable[[tuple[int, str]], ReplayCases | ReplayError],
    replays: list[tuple[int, str]],
    workers: int,
) -> Iterator[ReplayCases | ReplayError]:
    """Each replay read, in the order given, by up to `workers` processes at once.

    Replays are independent until they are merged, and reading is nearly all of the
    gate's time, so on a machine with more than one core each replay is parsed in a
    process of its own. Workers are forked, so they start with everything imported and
    send back only the compact result; the merge stays in this process, in replay order,
    so the result is the same whatever the number of workers.
    """
    if workers <= 1 or len(replays) <= 1:
        yield from map(read, replays)
        return
    with multiprocessing.get_context("fork").Pool(min(workers, len(replays))) as pool:
        yield from pool.imap(read, replays)


def read_replays(
    reports: str,
    rule: TestIdRule,
    limits: Limits,
    expected: int | None = None,
    shards: int | None = None,
    workers: int | None = None,
) -> ReplaySet:
    sources = _replay_sources(reports)
    count = max([*sources, expected or 0])
    tally = Tally()
    errors: list[ReplayError] = [
        ReplayError(number, f"run-{number}", "missing")
        for number in range(1, count + 1)
        if number not in sources
    ]
    read = partial(_read_numbered, reports, rule, limits, shards)
    found = sorted(sources.items())
    for result in _read_all(read, found, available_cpus() if workers is None else workers):
        if isinstance(result, ReplayError):
            errors.append(result)
        else:
            tally.add(result)
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
