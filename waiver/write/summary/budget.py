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

from waiver.write.words.escape import md_code

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

    def fits(self, lines: Sequence[str]) -> bool:
        """Whether `lines` would fit now."""
        return self.size + self.reserved + _cost(lines) <= self.limit

    def add_all(self, lines: Sequence[str]) -> bool:
        """Adds every line or none of them."""
        if not self.fits(lines):
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
    # How many rows of the report an item stands for (a line of a parametrized function's
    # ids stands for each of them), counted when it is left out.
    size: Callable[[Item], int] | None = None

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Sequence[str]]:
        return map(self.render, self.items)


def _head(title: str, header: Sequence[str]) -> list[str]:
    return ["", f"### {title}", "", _line(header), "|" + "---|" * len(header)]


def _line(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def starts(out: Budget, title: str, header: Sequence[str], first: Sequence[str]) -> bool:
    """Whether a table's head and its first row, `first`, would fit now."""
    return out.fits([*_head(title, header), _line(first)])


def table(out: Budget, title: str, header: Sequence[str], cells: Cells) -> int:
    """Adds a table; returns how many of its rows did not fit (an item of `Rendered`
    counts as the rows it stands for)."""
    if not len(cells):
        return 0
    lines = map(_line, cells)
    if not out.add_all([*_head(title, header), next(lines)]):
        return _left_out(cells, 0)
    for number, line in enumerate(lines, start=1):
        if not out.add(line):
            return _left_out(cells, number)
    return 0


def _left_out(cells: Cells, shown: int) -> int:
    """The rows of the items past the first `shown`."""
    if isinstance(cells, Rendered) and cells.size is not None:
        return sum(map(cells.size, cells.items[shown:]))
    return len(cells) - shown


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
