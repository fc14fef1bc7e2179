"""`waiver classify`: the decision on a plain cases.json, without JUnit."""

from __future__ import annotations

import argparse
import os

from waiver.commands.common import add_policy_flags, now_of, policy_flags, print_verdict
from waiver.decide import check_policy, decide
from waiver.github.workflow import is_step_summary
from waiver.read.cases import MAX_CASES_BYTES, parse_cases
from waiver.read.files import read_small
from waiver.read.policy.settings import effective
from waiver.write.report import Context, report_json
from waiver.write.report_files import check_output_paths, remove_report, write_report


def run(args: argparse.Namespace) -> int:
    remove_report(args.out)
    check_output_paths(args.out, args.summary)
    settings = effective(None, policy_flags(args), ".")
    check_policy(settings.policy)
    cases = parse_cases(read_small(args.cases, MAX_CASES_BYTES, args.cases), args.cases)
    now = now_of(args)
    document = report_json(decide(cases, settings.policy, now), settings, Context(), now)
    write_report(
        args.out,
        args.summary,
        document,
        summary_appends=is_step_summary(os.environ, args.summary),
    )
    return print_verdict(args, document)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("classify", help="classify a plain cases.json")
    parser.add_argument("--cases", required=True, metavar="FILE")
    parser.add_argument("--out", required=True, metavar="FILE")
    add_policy_flags(parser)
    parser.set_defaults(handler=run)
