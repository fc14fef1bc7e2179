"""The errors that the command maps to exit codes; every other exception is internal."""

from __future__ import annotations


class InputError(Exception):
    """Untrusted input that cannot be read as what it should be (exit 2)."""

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.problem = problem


class UsageError(Exception):
    """A command line or policy value out of range (exit 2)."""
