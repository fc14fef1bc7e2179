"""`waiver baseline`: the known-tests registry written from a set of replays."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass

from waiver.commands.flags import add_root_flag, options_of
from waiver.decide.policy import DEFAULT_RUNNER
from waiver.errors import EXIT_CLEAR, InputError
from waiver.read.junit.replay_reports import Limits, read_single
from waiver.read.junit.replay_set import PROPERTY_REPORT, read_replays, report_and_log
from waiver.read.stores.registry import format_registry
from waiver.runners import RUNNERS, runner_named
from waiver.write.files.atomic import write_atomic
from waiver.write.words.escape import log_line


@dataclass(frozen=True)
class BaselineOptions:
    reports: str
    out: str
    root: str
    properties: str | None  # the property report, whose cases are registered too
    runner: str = DEFAULT_RUNNER  # the runner whose reports these are (`waiver.runners`)


def run(args: argparse.Namespace) -> int:
    options = options_of(BaselineOptions, args)
    rule = runner_named(options.runner).test_ids(options.root)
    # The property report and its log, as `waiver replay --properties-first` leaves them.
    others = report_and_log(options.reports, os.path.join(options.reports, PROPERTY_REPORT))
    if options.properties is not None:
        others |= report_and_log(options.reports, options.properties)
    replays = read_replays(options.reports, rule, Limits(), others=others)
    if replays.errors:
        first = replays.errors[0]
        raise InputError(first.source, first.problem)
    ran = [test_id for _, test_id, outcomes in replays.tally.all_outcomes() if outcomes]
    if options.properties is not None:
        # Registered property ids must run and pass in every gate after this one.
        properties = read_single(options.properties, rule, Limits())
        ran += [test_id for _, test_id, outcomes in properties.all_outcomes() if outcomes]
    write_atomic(options.out, format_registry(ran))
    print(log_line(f"waiver: {len(ran)} test ids written to {options.out}"))
    return EXIT_CLEAR


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("baseline", help="write the known-tests registry")
    parser.add_argument("--reports", required=True, metavar="DIR")
    parser.add_argument("--out", required=True, metavar="FILE")
    add_root_flag(parser)
    parser.add_argument(
        "--properties", metavar="PATH", help="also list the property cases this report ran"
    )
    parser.add_argument(
        "--runner",
        choices=sorted(RUNNERS),
        default=DEFAULT_RUNNER,
        help="the runner that wrote the reports, as the policy file names it (default pytest)",
    )
    parser.set_defaults(handler=run)
