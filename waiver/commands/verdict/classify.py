"""`waiver classify`: the decision on a plain cases.json, without JUnit."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from datetime import datetime

from waiver.commands.flags import add_policy_flags, options_of
from waiver.commands.support import now_of, print_verdict
from waiver.decide.decision import check_policy, decide
from waiver.github.workflow import is_step_summary
from waiver.read.evidence.cases import MAX_CASES_BYTES, parse_cases
from waiver.read.policy.settings import Flags, effective
from waiver.read.untrusted.files import read_small
from waiver.write.report.report import Context, report_json
from waiver.write.report.report_files import check_output_paths, remove_report, write_report


@dataclass(frozen=True)
class ClassifyOptions:
    cases: str
    out: str
    flags: Flags
    summary: str | None
    now: datetime | None  # None: the present


def run(args: argparse.Namespace) -> int:
    options = options_of(ClassifyOptions, args, flags=options_of(Flags, args))
    remove_report(options.out)
    check_output_paths(options.out, options.summary)
    settings = effective(None, options.flags, ".")
    check_policy(settings.policy)
    cases = parse_cases(read_small(options.cases, MAX_CASES_BYTES, options.cases), options.cases)
    now = now_of(options.now)
    document = report_json(decide(cases, settings.policy, now), settings, Context(), now)
    write_report(
        options.out,
        options.summary,
        document,
        summary_appends=is_step_summary(os.environ, options.summary),
    )
    return print_verdict(options.out, document)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("classify", help="classify a plain cases.json")
    parser.add_argument("--cases", required=True, metavar="FILE")
    parser.add_argument("--out", required=True, metavar="FILE")
    add_policy_flags(parser)
    parser.set_defaults(handler=run)
