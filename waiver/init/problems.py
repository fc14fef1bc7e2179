"""What stops `waiver init`, gathered: one exit 2 names every one, each with the flag that
settles it, so a first run does not end in one refusal after another."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from waiver.errors import InputError, InputErrors, UsageError
from waiver.write.words.escape import log_line

T = TypeVar("T")


# Said after the problems when they stopped init before it ran the written commands.
NOT_RUN = "The written commands were not run: init runs them once these are settled."


class Problems:
    def __init__(self) -> None:
        self.found: list[str] = []
        self.proof_skipped = False

    def before_proof(self) -> None:
        """The proof of the written commands is left out: problems found from files stop
        init before it, so that one run names them all without waiting for it."""
        self.proof_skipped = True

    def add(self, problem: str) -> None:
        self.found.append(problem)

    def attempt(self, step: Callable[[], T]) -> T | None:
        """What `step` returns, or None with its problem kept."""
        try:
            return step()
        except InputErrors as errors:
            self.found += [str(error) for error in errors.errors]
            return None
        except (InputError, UsageError) as error:
            self.found.append(str(error))
            return None

    def text(self) -> str:
        """Every problem for a person to read: one, or several numbered, each on lines of its
        own (pytest's output keeps its line breaks, indented), with control characters
        spelled out so that no line can issue a workflow command."""

        def lines(problem: str, indent: str) -> str:
            first, *rest = problem.splitlines() or [""]
            return "\n".join([log_line(first), *(log_line(f"{indent}{line}") for line in rest)])

        after = [NOT_RUN] if self.proof_skipped else []
        if len(self.found) == 1:
            return "\n".join([f"waiver: error: {lines(self.found[0], '  ')}", *after])
        return "\n".join(
            [
                f"waiver: error: {len(self.found)} problems, so nothing was written:",
                *(
                    f"  {number}. {lines(problem, '     ')}"
                    for number, problem in enumerate(self.found, 1)
                ),
                *after,
            ]
        )
