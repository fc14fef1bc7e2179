"""The known-tests registry: one test id a line; blank lines and `#` comments are ignored.

A line that holds a control character is no test id (`waiver.read.junit.testid`): the
registry is refused, naming the line, since whatever reads the ids next (a command line of
red-green replays, a log) would take it otherwise than as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import filterfalse

from waiver.errors import InputError
from waiver.read.junit.testid import id_problem

MAX_REGISTRY_BYTES = 64 << 20
BLOCK_BYTES = 1 << 20
# A control character but the newline that ends a line: a block without one is read at once.
LINE_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Registry:
    """The registry matched against the ids the replays produced.

    Held as a mark per known position rather than a second set of id strings, which at
    500,000 tests would cost as much memory as the replays' own index.
    """

    expected: bytearray  # 1 at the position of every reported id that the registry lists
    vanished: tuple[str, ...]  # listed ids that no replay reported, sorted


def registry_blocks(data: bytes, source: str) -> Iterator[list[str]]:
    """The ids of a registry, a block of whole lines at a time, decoded and in file order.

    Decoding line by line cost as much as matching; decoding the whole file at once held
    every line of a 500,000-id registry in memory at the same time.
    """
    start = 0
    while start < len(data):
        # A block ends just after a newline, which is never inside a UTF-8 sequence.
        end = data.find(b"\n", start + BLOCK_BYTES) + 1 or len(data)
        try:
            text = data[start:end].decode("utf-8")
        except UnicodeDecodeError as error:
            at = start + error.start
            number = data.count(b"\n", 0, at) + 1
            column = at - (data.rfind(b"\n", 0, at) + 1)
            raise InputError(
                source, f"line {number}: not UTF-8 ({error.reason} at byte {column})"
            ) from None
        # Lines end at "\n" alone, as a file's lines do; str.splitlines would also split
        # at characters such as U+2028 that a test id may contain.
        lines = text.split("\n")
        if "\r" in text:
            lines = [line.removesuffix("\r") for line in lines]
        ids = [line for line in lines if line.strip() and not line.startswith("#")]
        if LINE_CONTROL.search(text):
            _refuse_controls(lines, data.count(b"\n", 0, start) + 1, source)
        yield ids
        start = end


def _refuse_controls(lines: list[str], first: int, source: str) -> None:
    """Refuse the first id line (numbered from `first`) that is no test id."""
    for number, line in enumerate(lines, start=first):
        if line.strip() and not line.startswith("#"):
            problem = id_problem(line)
            if problem is not None:
                raise InputError(source, f"line {number}: {problem}")


def match_registry(data: bytes, source: str, index: Mapping[str, int]) -> Registry:
    expected = bytearray(len(index))
    vanished: set[str] = set()
    for block in registry_blocks(data, source):
        for position in map(index.get, block):
            if position is not None:
                expected[position] = 1
        vanished.update(filterfalse(index.__contains__, block))
    return Registry(expected, tuple(sorted(vanished)))


def format_registry(test_ids: Iterable[str]) -> str:
    """Registry text; ids that cannot stand on one line are refused rather than mangled."""
    lines = []
    for test_id in sorted(set(test_ids)):
        if id_problem(test_id) or test_id.startswith("#") or not test_id.strip():
            raise InputError(test_id[:80], "this test id cannot be written as a registry line")
        lines.append(test_id + "\n")
    return "".join(lines)
