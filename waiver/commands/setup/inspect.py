"""`waiver inspect`: how the gate reads JUnit files."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from waiver.errors import EXIT_CLEAR
from waiver.read.junit.overview import overview
from waiver.read.junit.replay_reports import Limits
from waiver.read.junit.testid import TestIdRule
from waiver.write.words.escape import log_line


@dataclass(frozen=True)
class InspectOptions:
    files: tuple[str, ...]


def run(args: argparse.Namespace) -> int:
    options = InspectOptions(files=tuple(args.files))
    # Ids are counted, not printed, so no repository root is needed to form them.
    rule = TestIdRule(None)
    for path in options.files:
        print(log_line(overview(path, rule, Limits()).line()))
    return EXIT_CLEAR


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "inspect", help="show how the gate reads JUnit files: tool, ids, outcomes, retries"
    )
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.set_defaults(handler=run)
