"""A function run in a forked process while this one goes on, its answer sent back
through a pipe: what the gate does on another core (a replay read before any id is known,
the edited tests, waiver.json written while the summary renders).

A plain forked process with a pipe, not an executor: the replay reader forks its
executor later, and forking while an executor's threads run may copy a lock that one of
them holds. Only where forking is the norm (Linux, with more than one core to run on);
elsewhere the caller does the work itself.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

Answer = TypeVar("Answer")


class Forked(Generic[Answer]):
    """`function(*args)` in a forked process; `result` waits for its answer."""

    def __init__(self, function: Callable[..., Answer], *args: object) -> None:
        import multiprocessing  # imported here, like the replay reader's

        # What this process printed and holds in a buffer is not the fork's to print.
        sys.stdout.flush()
        sys.stderr.flush()
        context = multiprocessing.get_context("fork")
        self.receiving, sending = context.Pipe(duplex=False)
        self.process: BaseProcess = context.Process(
            target=_call_and_send, args=(function, args, sending), daemon=True
        )
        self.process.start()
        sending.close()

    def result(self) -> Answer:
        """The answer; EOFError when the process ended without one (killed, out of memory)."""
        try:
            answer: Answer = self.receiving.recv()
        finally:
            self.stop()
        return answer

    def stop(self) -> None:
        """Ends the process, answered or not: a run that ended early needs no answer."""
        self.receiving.close()
        if self.process.is_alive():
            self.process.terminate()
        self.process.join()


def _call_and_send(
    function: Callable[..., object], args: tuple[object, ...], sending: Connection
) -> None:
    sending.send(function(*args))
    sending.close()


class Claims:
    """The parts of a piece of work, numbered from 0, shared by a forked process and this
    one: each takes the next part left until none is, and each part is taken once. Made
    before the process is forked.

    A pipe holds the parts, a byte each, its writing end closed: reading one byte of a pipe
    is atomic, an empty one reads as its end, and a process killed while it takes a part
    holds nothing the other would wait for (a lock would be held for ever)."""

    def __init__(self, count: int) -> None:
        if not 0 <= count <= 255:
            raise ValueError(f"{count} parts: a part is one byte")
        self._parts, writing = os.pipe()
        try:
            os.write(writing, bytes(range(count)))  # within PIPE_BUF: written whole
        finally:
            os.close(writing)

    def taken(self) -> Iterator[int]:
        """The parts this process takes, one at a time, while any is left."""
        while part := os.read(self._parts, 1):
            yield part[0]

    def close(self) -> None:
        os.close(self._parts)


def replay_workers() -> int:
    """The cores this process may run on, which the reading of replays is planned for.

    Workers are forked, so only where forking is the norm (Linux, which also says which
    cores are ours); elsewhere replays are read one after another.
    """
    if not hasattr(os, "sched_getaffinity"):
        return 1
    return len(os.sched_getaffinity(0))


def forking() -> bool:
    """Whether work may be forked: where forking is the norm, with another core to run on."""
    return replay_workers() >= 2


def fork(function: Callable[..., Answer], *args: object) -> Forked[Answer] | None:
    """`function(*args)` started in a forked process, or None where none can start or there
    is no other core to run it on."""
    if not forking():
        return None
    try:
        return Forked(function, *args)
    except OSError:
        return None
