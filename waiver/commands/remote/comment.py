"""`waiver comment`: the one pull-request comment with the gate's verdict, posted or edited
in place through the REST API.

The report is read as hostile data (it came from the pull request's run): checked against
the schema, bounded, and rendered with every string escaped. A failure of the API is exit
2 with a message; the gate's verdict is never changed by this step.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass

from waiver.commands.remote import post
from waiver.github.comment_body import render_comment
from waiver.github.pulls import post_comment
from waiver.github.rest import run_url
from waiver.read.stores.waiver_json import read_report
from waiver.write.report.report_types import report_of


@dataclass(frozen=True)
class CommentOptions:
    report: str
    run_url: str | None


def run(args: argparse.Namespace) -> int:
    options = CommentOptions(report=args.report, run_url=run_url(os.environ))
    document = read_report(options.report, lambda row: True).document
    text = render_comment(report_of(document), options.run_url)
    return post(lambda: post_comment(os.environ, text), "comment: ")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "comment", help="post or edit the pull request's one waiver comment"
    )
    parser.add_argument("--report", required=True, metavar="FILE", help="the gate's waiver.json")
    parser.set_defaults(handler=run)
