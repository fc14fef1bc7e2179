"""How several replays are read at once: forked worker processes, one replay each, and
where none can be made, one after another in this process. The tally is the same
whatever the number of workers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from waiver.read.forked import Forked
from waiver.read.junit.replay_reports import ReplayCases, ReplayError, ReplayReader

if TYPE_CHECKING:
    from concurrent.futures import Executor

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


def fresh_read(reader: ReplayReader, replay: tuple[int, str]) -> Forked[ReplayCases | ReplayError]:
    """One replay read in a process forked before any id is known, while this one reads.

    A plain forked process with a pipe (`waiver.read.forked`), not an executor: the
    executor for the other replays is forked later, and forking while an executor's
    threads run may copy a lock that one of them holds.
    """
    return Forked(reader, replay)


def fresh_result(read: Forked[ReplayCases | ReplayError]) -> ReplayCases | ReplayError:
    """What a fresh read found; a process that ended without it breaks the read, as a dead
    worker of the executor does."""
    from concurrent.futures.process import BrokenProcessPool

    try:
        return read.result()
    except EOFError:
        raise BrokenProcessPool("a replay worker ended without a result") from None


@contextlib.contextmanager
def worker_pool(reader: ReplayReader, count: int) -> Iterator[Executor | None]:
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


def read_in(
    pool: Executor | None, reader: ReplayReader, replays: list[tuple[int, str]]
) -> Iterator[ReplayCases | ReplayError]:
    """Each replay read, in the order given: by the pool's workers, or here without one."""
    if pool is None:
        return map(reader, replays)
    return pool.map(_read_in_worker, replays)
