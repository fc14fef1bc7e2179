"""`waiver approvals`: the pull request's reviews, read from GitHub's REST API into a file
that `waiver gate --approvals FILE` judges.

It runs where the token is, in a step of its own, so that the gate's container needs no
network and no token. A failure to read the reviews is written into the file (the gate
then admits nothing and says why) and is no failure of this step. On a runner it also sets
the step outputs `pull-request`, `head` and `base` (the pull request's number, the commit
the run was about — its head, or a merge group's commit — and the base commit, empty when
none could be read), which a `workflow_run` job checks out and
gates by.
"""

from __future__ import annotations

import argparse
import os

from waiver.errors import EXIT_CLEAR, InputError
from waiver.github.rest import FULL_SHA, ApiFailed
from waiver.github.reviews import fetch_reviews
from waiver.github.workflow import write_outputs
from waiver.write.files.approvals_file import ApprovalsFileJson, render_approvals
from waiver.write.files.atomic import write_atomic
from waiver.write.words.escape import log_line


def run(args: argparse.Namespace) -> int:
    try:
        document = fetch_reviews(os.environ)
        said = "the reviews, commits and approvers' permissions"
    except ApiFailed as error:
        document = {"error": str(error)}
        said = f"no reviews: {error}"
    try:
        write_atomic(args.out, render_approvals(document))
    except OSError as error:
        raise InputError(args.out, f"cannot write the reviews: {error.strerror}") from None
    write_outputs(os.environ, pull_request_outputs(document))
    print(log_line(f"waiver: approvals: {said}; written to {args.out}"))
    return EXIT_CLEAR


def _sha(pull: object, side: str) -> str:
    commit = pull.get(side) if isinstance(pull, dict) else None
    sha = commit.get("sha") if isinstance(commit, dict) else None
    return sha if isinstance(sha, str) and FULL_SHA.match(sha) else ""


def pull_request_outputs(document: ApprovalsFileJson) -> dict[str, str]:
    pull = document.get("pull_request")
    number = pull.get("number") if isinstance(pull, dict) else None
    run_head = document.get("run_head")
    return {
        "pull-request": str(number) if isinstance(number, int) else "",
        # The commit the run was about: the pull request's head, or a merge group's commit.
        "head": run_head if isinstance(run_head, str) and FULL_SHA.match(run_head) else "",
        "base": _sha(pull, "base"),
    }


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "approvals", help="read the pull request's reviews from GitHub into a file"
    )
    parser.add_argument("--out", required=True, metavar="FILE", help="where to write them")
    parser.set_defaults(handler=run)
