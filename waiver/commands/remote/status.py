"""`waiver status`: the verdict on the head commit, from the gate's exit code and its report
in the same job: the commit status `waiver`, or with `--check-run` the check run `waiver`
(posted with the token in `$GITHUB_TOKEN`, the team's app's in the report workflow).

A report that is missing or cannot be read leaves the verdict at `error`, never `success`.
With `--provenance` (a `workflow_run` job's judged run) nothing is posted for a run that a
newer run or attempt of the gate's caller has superseded, checked again just before
posting: an older verdict never replaces a newer one. A failure of the API is exit 2 with
a message; the gate's verdict is never changed here.
"""

from __future__ import annotations

import argparse
import os

from waiver.commands.remote import post
from waiver.errors import EXIT_CLEAR, InputError
from waiver.github.commit_status import post_check_run, post_status, status_of
from waiver.github.rest import ApiFailed, connect, run_url
from waiver.github.runs import superseding
from waiver.read.evidence.provenance_data import read_provenance
from waiver.read.stores.waiver_json import read_report
from waiver.write.report.report_types import ReportJson, report_of
from waiver.write.words.escape import log_line


def _report(path: str | None) -> ReportJson | None:
    if path is None or not os.path.exists(path):
        return None
    try:
        return report_of(read_report(path).document)
    except InputError as error:
        print(log_line(f"waiver: status: the report is not used: {error}"))
        return None


def _superseded(path: str) -> str | None:
    """Why nothing may be posted for the judged run now; None when it may. No file: the
    step that names the run left none, and the gate blocked on that."""
    if not os.path.isfile(path):
        return None
    provenance = read_provenance(path)
    if provenance.superseded is not None:
        return provenance.superseded
    run = provenance.run
    if run is None:  # no run was named: the verdict is a failure that says why
        return None
    try:
        api, repository = connect(os.environ)
        return superseding(
            api, repository, provenance.caller, run.run_id, run.head_sha, run.attempt,
            run.pull_request,
        )  # fmt: skip
    except ApiFailed as error:
        raise InputError("the GitHub API", str(error)) from None


def run(args: argparse.Namespace) -> int:
    if args.provenance is not None:
        why = _superseded(args.provenance)
        if why is not None:
            print(log_line(f"waiver: status: nothing is posted: {why}"))
            return EXIT_CLEAR
    state = status_of(args.exit_code, _report(args.report))
    poster = post_check_run if args.check_run else post_status
    return post(lambda: poster(os.environ, args.sha, state, run_url(os.environ)), "")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "status", help="post the verdict the branch rule requires: the `waiver` status or check"
    )
    parser.add_argument("--sha", required=True, help="the pull request's head commit, in full")
    parser.add_argument(
        "--exit-code", required=True, metavar="CODE", help="the gate's exit code ('' if none)"
    )
    parser.add_argument("--report", metavar="FILE", help="the gate's waiver.json, if it wrote one")
    parser.add_argument(
        "--check-run",
        action="store_true",
        help="post the check run `waiver` (with an app's token) instead of the commit status",
    )
    parser.add_argument(
        "--provenance",
        metavar="FILE",
        help="the judged run (`waiver provenance`): post nothing if a newer run superseded it",
    )
    parser.set_defaults(handler=run)
