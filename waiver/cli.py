"""The `waiver` command: the subcommands' parsers, and the one exception boundary that maps
every error to an exit code: 0 not blocked, 1 blocked, 2 usage or input error, 3 internal.
Each subcommand lives in its own module of `waiver.commands`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence

from waiver import __version__
from waiver.commands.remote import approvals, comment, provenance, status
from waiver.commands.replays import (
    change_tests,
    change_tests_plan,
    red_green,
    replay,
    restore_tests,
)
from waiver.commands.setup import baseline, check_lock, init, inspect, lock, policy_check
from waiver.commands.stores import freeze, history
from waiver.commands.verdict import classify, diagnose, gate
from waiver.errors import EXIT_CLEAR, EXIT_INPUT, EXIT_INTERNAL, InputError, UsageError
from waiver.write.words.escape import log_line

COMMANDS = (
    init,
    lock,
    classify,
    gate,
    baseline,
    inspect,
    policy_check,
    diagnose,
    replay,
    restore_tests,
    change_tests,
    red_green,
    change_tests_plan,
    check_lock,
    freeze,
    history,
    approvals,
    provenance,
    comment,
    status,
)
# The commands whose --out is a verdict: a run that fails leaves none behind.
REPORT_COMMANDS = ("gate", "classify")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="waiver", description="Name the class of every test id before anything is waived."
    )
    parser.add_argument("--version", action="version", version=f"waiver {__version__}")
    subparsers = parser.add_subparsers(required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(subparsers)
    return parser


def _fail(message: str) -> None:
    # One line, with every control character spelled out and `##[` broken up: untrusted
    # text in a message can never start a line of its own nor form a workflow command.
    print(log_line(f"waiver: error: {message}"), file=sys.stderr)


def _named_report(argv: Sequence[str]) -> str | None:
    """The --out of a `gate` or `classify` command line that did not parse, if it names one."""
    if not argv or argv[0] not in REPORT_COMMANDS:
        return None
    finder = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    finder.add_argument("--out")
    try:
        known, _ = finder.parse_known_args(argv[1:])
    except (argparse.ArgumentError, SystemExit):
        return None
    out: str | None = known.out
    return out


def _discard_report(out: str | None) -> None:
    """After an exit other than 0 or 1, no report may be left that could say not blocked."""
    if out is not None:
        with contextlib.suppress(OSError):
            os.unlink(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(words)
    except SystemExit as exit_:
        parse_code = exit_.code if isinstance(exit_.code, int) else EXIT_INPUT
        if parse_code != EXIT_CLEAR:
            _discard_report(_named_report(words))
        return parse_code
    try:
        code: int = args.handler(args)
    except (InputError, UsageError) as error:
        _fail(str(error))
        return EXIT_INPUT
    except Exception as error:  # the boundary: anything else is a bug in waiver
        _fail(f"internal error: {type(error).__name__}: {error}")
        if words[0] in REPORT_COMMANDS:
            _discard_report(args.out)
        return EXIT_INTERNAL
    return code
