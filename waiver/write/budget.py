"""A size budget for Markdown that never cuts markup in half, and the two blocks that
spend it: tables and folded lists of ids.

The job summary must stay under GitHub's 1 MiB limit on any input. What does not fit is
left out and counted, but a table's head never goes in without a row, and an opened
`<details>` always keeps room for its closing tag.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from waiver.write.escape import md_code

Item = TypeVar("Item")

# Ids a folded list (passes, skipped, every row of one cause) shows at most.
LIST_CAP = 20


class Budget:
    """Collects lines until the size limit, then counts what it had to leave out.

    Markup is never cut in half: a table's head goes in with its first row or not at all,
    and an opened `<details>` keeps room for its closing lines until it is closed.
    """

    def __init__(self, limit: int) -> None:
        self.lines: list[str] = []
        self.size = 0
        self.limit = limit
        self.closing: list[list[str]] = []  # the closing lines of each open block, innermost last
        self.reserved = 0  # bytes those closing lines will take

    def add(self, line: str) -> bool:
        return self.add_all([line])

    def add_all(self, lines: Sequence[str]) -> bool:
        """Adds every line or none of them."""
        if self.size + self.reserved + _cost(lines) > self.limit:
            return False
        for line in lines:
            self.force(line)
        return True

    def open(self, line: str, closing: Sequence[str]) -> bool:
        """Opens a block only if its closing lines fit too, and keeps room for them."""
        if not self.add_all([line, *closing]):
            return False
        del self.lines[len(self.lines) - len(closing) :]
        self.size -= _cost(closing)
        self.closing.append(list(closing))
        self.reserved += _cost(closing)
        return True

    def close(self) -> None:
        closing = self.closing.pop()
        self.reserved -= _cost(closing)
        for line in closing:
            self.force(line)

    def force(self, line: str) -> None:
        """Adds a line even past the limit; RESERVE keeps room for the last one."""
        self.lines.append(line)
        self.size += len(line.encode("utf-8")) + 1


def _cost(lines: Sequence[str]) -> int:
    return sum(len(line.encode("utf-8")) + 1 for line in lines)


class Cells(Protocol):
    """A table's rows of cells: a list of them, or `Rendered`."""

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[Sequence[str]]: ...


@dataclass(frozen=True)
class Rendered(Generic[Item]):
    """The cells of a row for each item, rendered as the table reaches the row: the rows
    that the size limit leaves out are counted, never rendered."""

    items: Sequence[Item]
    render: Callable[[Item], Sequence[str]]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Sequence[str]]:
        return map(self.render, self.items)


def table(out: Budget, title: str, header: Sequence[str], cells: Cells) -> int:
    """Adds a table; returns how many of its rows did not fit."""
    if not len(cells):
        return 0
    lines = ("| " + " | ".join(row) + " |" for row in cells)
    head = ["", f"### {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    if not out.add_all([*head, next(lines)]):
        return len(cells)
    for number, line in enumerate(lines, start=1):
        if not out.add(line):
            return len(cells) - number
    return 0


def folded_list(out: Budget, title: str, ids: Sequence[str]) -> int:
    """A folded list of at most LIST_CAP ids, then how many more; returns how many ids
    the size limit left out.

    A long list is a count, not a list: no one reads 60,000 passing ids, and every one of
    them is in waiver.json.
    """
    if not ids:
        return 0
    out.add("")
    if not out.open(f"<details><summary>{title}</summary>", ["", "</details>"]):
        return len(ids)
    out.add("")
    shown = ids[:LIST_CAP]
    left_out = 0
    for number, test_id in enumerate(shown):
        if not out.add(f"- {md_code(test_id)}"):
            left_out = len(ids) - number
            break
    more = len(ids) - len(shown)
    if more and not left_out and not out.add(f"- … and {more} more, listed in waiver.json"):
        left_out = more
    out.close()
    return left_out
