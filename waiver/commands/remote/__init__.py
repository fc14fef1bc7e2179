"""The subcommands that talk to GitHub's REST API with the workflow's token: reading the
reviews, posting the comment and the commit status. They run in steps of their own, apart
from the gate, which has no network."""

from __future__ import annotations

from collections.abc import Callable

from waiver.errors import EXIT_CLEAR, InputError
from waiver.github.rest import ApiFailed
from waiver.write.words.escape import log_line


def post(call: Callable[[], str], label: str) -> int:
    """Make the API call and print what it did; a failed call is an input error of the API."""
    try:
        said = call()
    except ApiFailed as error:
        raise InputError("the GitHub API", str(error)) from None
    print(log_line(f"waiver: {label}{said}"))
    return EXIT_CLEAR
