"""The errors that the command maps to exit codes; every other exception is internal."""

from __future__ import annotations

# One contract everywhere: 0 not blocked, 1 blocked, 2 usage or input error, 3 internal error.
EXIT_CLEAR, EXIT_BLOCKED, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


class InputError(Exception):
    """Untrusted input that cannot be read as what it should be (exit 2)."""

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.problem = problem


class UsageError(Exception):
    """A command line or policy value out of range (exit 2)."""


class InputErrors(InputError):
    """Several inputs that cannot be read, found in one pass: each is named, so that one run
    says all of them (the first is the error's own source and problem)."""

    def __init__(self, errors: list[InputError]) -> None:
        first, rest = errors[0], errors[1:]
        more = f"; and {len(rest)} more: {', '.join(e.source for e in rest)}" if rest else ""
        super().__init__(first.source, first.problem + more)
        self.errors = tuple(errors)
