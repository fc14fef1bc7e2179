"""What stops `waiver init`, gathered: one exit 2 names every one, each with the flag that
settles it, so a first run does not end in one refusal after another."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from waiver.errors import InputError, UsageError

T = TypeVar("T")


class Problems:
    def __init__(self) -> None:
        self.found: list[str] = []

    def add(self, problem: str) -> None:
        self.found.append(problem)

    def attempt(self, step: Callable[[], T]) -> T | None:
        """What `step` returns, or None with its problem kept."""
        try:
            return step()
        except (InputError, UsageError) as error:
            self.found.append(str(error))
            return None

    def error(self) -> UsageError:
        """One error for all of them: a single problem as it is, several numbered."""
        if len(self.found) == 1:
            return UsageError(self.found[0])
        numbered = "; ".join(
            f"({number}) {problem}" for number, problem in enumerate(self.found, 1)
        )
        return UsageError(f"{len(self.found)} problems, so nothing was written: {numbered}")
