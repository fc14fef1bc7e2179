"""`waiver status`: the `waiver` commit status on the head commit, from the gate's exit
code and its report in the same job.

A report that is missing or cannot be read leaves the status at `error`, never `success`.
A failure of the API is exit 2 with a message; the gate's verdict is never changed here.
"""

from __future__ import annotations

import argparse
import os

from waiver.commands.remote import post
from waiver.errors import InputError
from waiver.github.rest import run_url
from waiver.github.status import post_status, status_of
from waiver.read.waiver_json import read_report
from waiver.write.escape import log_line
from waiver.write.report_types import ReportJson, report_of


def _report(path: str | None) -> ReportJson | None:
    if path is None or not os.path.exists(path):
        return None
    try:
        return report_of(read_report(path).document)
    except InputError as error:
        print(log_line(f"waiver: status: the report is not used: {error}"))
        return None


def run(args: argparse.Namespace) -> int:
    state = status_of(args.exit_code, _report(args.report))
    return post(lambda: post_status(os.environ, args.sha, state, run_url(os.environ)), "")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "status", help="post the `waiver` commit status the branch rule requires"
    )
    parser.add_argument("--sha", required=True, help="the pull request's head commit, in full")
    parser.add_argument(
        "--exit-code", required=True, metavar="CODE", help="the gate's exit code ('' if none)"
    )
    parser.add_argument("--report", metavar="FILE", help="the gate's waiver.json, if it wrote one")
    parser.set_defaults(handler=run)
