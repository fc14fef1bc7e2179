"""`waiver provenance`: which gate run's reports a `workflow_run` job is about to judge, and
what GitHub says made that run, written into a file that `waiver gate --provenance FILE`
judges.

It runs where the token is, in a step of its own, like `waiver approvals`. A failure to read
the run is written into the file (the gate then blocks and says why) and is no failure of
this step. On a runner it sets the step output `run-id`, the run whose artifacts the job
downloads (empty when none could be named), and the ids of the artifacts to download by
kind (`properties-artifacts`, `replay-artifacts`, `base-artifacts`, `red-green-artifacts`,
comma-separated): each artifact is taken by its exact name (`waiver.decide.provenance_rules`),
and any name the reusable workflow does not upload is written down for the gate to block
on, as is why base replays are no evidence: one created after a job that runs the
change's code began, in any attempt of the run, or a time that cannot be read
(`waiver.decide.base_order`). A run that is not the newest for its head (an older run, an
older attempt, or for a review a newest run still under way) sets `superseded` to why, and
nothing is posted for it.

With `--default-branch` it names the run for the history writer instead: only a push or
schedule run of the caller on the default branch (waiver.github.history_runs), and, as the
step output `history-run-id`, the writer's own latest run with a `waiver-history` artifact.
With `--history-workflow` the report workflow names, as the same output, the latest run of
that writer's caller with one, the history the gate shows beside the rows; none, or an API
error, leaves the output empty with a notice and changes nothing else.
"""

from __future__ import annotations

import argparse
import os
import sys

from waiver.decide.base_order import late_base_replays, unread_jobs
from waiver.decide.cost import CHANGE_TESTS, job_kind, verdict_cost
from waiver.decide.provenance_rules import Artifact, GateShape
from waiver.errors import EXIT_CLEAR, InputError
from waiver.github.artifacts import gate_artifacts
from waiver.github.history_runs import default_branch_run, latest_history_run
from waiver.github.jobs import job_starts, run_jobs
from waiver.github.pulls import branches_of
from waiver.github.rest import FULL_SHA, REPOSITORY_PATH, Api, ApiFailed, connect, read_event
from waiver.github.runs import Superseded, gate_run, job_workflow
from waiver.github.workflow import write_outputs
from waiver.write.files.atomic import write_atomic
from waiver.write.files.provenance_file import (
    ArtifactsJson,
    JudgedRunJson,
    ProvenanceFileJson,
    artifacts_json,
    render_provenance,
)
from waiver.write.report.report_sections import cost_json
from waiver.write.words.escape import log_line


def _history_run(document: ProvenanceFileJson, writer: object) -> str:
    """The latest run of `writer` with a history, for the output `history-run-id`; an API
    error is kept in the document, and no history is named."""
    if not isinstance(writer, str):
        document["history_error"] = "GITHUB_WORKFLOW_REF names no workflow file of this job"
        return ""
    try:
        api, repository = connect(os.environ)
        found = latest_history_run(api, repository, read_event(os.environ), writer)
    except ApiFailed as error:
        document["history_error"] = str(error)
        return ""
    return "" if found is None else str(found)


def _warn_afresh(error: object) -> None:
    """Say in the job's log that the history starts afresh, and why."""
    why = f" ({error})" if isinstance(error, str) else ""
    message = f"no earlier history of this writer to continue{why}: the history starts afresh"
    print(log_line(f"waiver: warning: {message}"), file=sys.stderr)


def _notice_no_history(error: object) -> None:
    """Say in the job's log that the rows show no history of the default branch, and why."""
    why = f" ({error})" if isinstance(error, str) else ""
    message = f"no history of the default branch{why}: the rows show none"
    print(log_line(f"waiver: notice: {message}"), file=sys.stderr)


def _judged_run(args: argparse.Namespace, api: Api, repository: str) -> JudgedRunJson:
    event = read_event(os.environ)
    if args.default_branch:
        return default_branch_run(
            event, repository, args.caller, args.waiver_repository, args.waiver_ref
        )
    return gate_run(api, repository, event, args.caller, args.pull_request, branches_of(os.environ))


def _artifact_outputs(artifacts: ArtifactsJson | None) -> dict[str, str]:
    """The artifact ids to download, comma-separated by kind; an empty kind downloads
    nothing (the workflow skips its step: no ids would download every artifact)."""
    listed: ArtifactsJson = artifacts or {
        "properties": [], "replays": [], "base_replays": [], "red_green": [],
        "change_tests": [], "unexpected": [],
    }  # fmt: skip
    return {
        "properties-artifacts": ",".join(map(str, listed["properties"])),
        "replay-artifacts": ",".join(map(str, listed["replays"])),
        "base-artifacts": ",".join(map(str, listed["base_replays"])),
        "red-green-artifacts": ",".join(map(str, listed["red_green"])),
        "change-tests-artifacts": ",".join(map(str, listed["change_tests"])),
    }


def _add_jobs(document: ProvenanceFileJson, api: Api, repository: str, run: JudgedRunJson) -> None:
    """What the run's jobs cost, for the summary and the comment, and whether one ran the
    change's own tests (so do their artifacts); a failure to read the jobs is a notice, and
    no bill, never a verdict."""
    attempt = run["attempt"] if isinstance(run["attempt"], int) else 1
    artifacts = document.get("artifacts")
    ran = artifacts is not None and bool(artifacts["change_tests"])
    try:
        jobs = run_jobs(api, repository, run["id"], attempt)
    except ApiFailed as error:
        print(log_line(f"waiver: notice: what the run cost is not shown: {error}"), file=sys.stderr)
        jobs = []
    if jobs:
        document["cost"] = cost_json(verdict_cost(jobs))
    document["change_tests_ran"] = ran or any(job_kind(job.name) == CHANGE_TESTS for job in jobs)


def _base_order(api: Api, repository: str, run_id: int, base: tuple[Artifact, ...]) -> str | None:
    """Why the base replays `base` are no evidence by their times; a failure to read the
    jobs is one such reason. No base replays, no question and no call."""
    if not base:
        return None
    try:
        jobs = job_starts(api, repository, run_id)
    except ApiFailed as error:
        return unread_jobs(str(error))
    return late_base_replays(base, jobs)


def _name_run(args: argparse.Namespace, document: ProvenanceFileJson) -> str:
    """Fill in the run (and its artifacts) or why there is none; what to say of it."""
    try:
        api, repository = connect(os.environ)
        document["run"] = run = _judged_run(args, api, repository)
        if not args.default_branch:
            shape = GateShape(args.replays, args.shards, args.base_replays)
            artifacts = gate_artifacts(api, repository, run["id"], shape)
            document["artifacts"] = artifacts_json(artifacts)
            _add_jobs(document, api, repository, run)
            late = _base_order(api, repository, run["id"], artifacts.base_artifacts)
            if late is not None:
                document["base_order"] = late
    except Superseded as why:
        document["run"] = None
        document["superseded"] = str(why)
        return f"nothing is posted: {why}"
    except ApiFailed as error:
        document["run"] = None
        document.pop("artifacts", None)
        document["error"] = str(error)
        return f"no run: {error}"
    return "the run whose reports are judged"


def run(args: argparse.Namespace) -> int:
    document: ProvenanceFileJson = {
        "caller": args.caller,
        "report_workflow": job_workflow(os.environ),
        "waiver": {"repository": args.waiver_repository, "commit": args.waiver_ref},
        "run": None,
        "error": None,
    }
    said = _name_run(args, document)
    found = document["run"]
    outputs = {"run-id": "" if found is None else str(found["id"])}
    if args.default_branch and outputs["run-id"]:
        outputs["history-run-id"] = _history_run(document, document["report_workflow"])
        if not outputs["history-run-id"]:
            _warn_afresh(document.get("history_error"))
    elif args.default_branch:
        outputs["history-run-id"] = ""
    else:
        outputs |= _artifact_outputs(document.get("artifacts"))
        outputs["change-tests-ran"] = "true" if document.get("change_tests_ran") else ""
        outputs["superseded"] = document.get("superseded", "")
        if args.history_workflow is not None:
            outputs["history-run-id"] = _history_run(document, args.history_workflow)
            if not outputs["history-run-id"]:
                _notice_no_history(document.get("history_error"))
    try:
        write_atomic(args.out, render_provenance(document))
    except OSError as error:
        raise InputError(args.out, f"cannot write the run: {error.strerror}") from None
    write_outputs(os.environ, outputs)
    print(log_line(f"waiver: provenance: {said}; written to {args.out}"))
    return EXIT_CLEAR


def _repository(value: str) -> str:
    if not REPOSITORY_PATH.match(value):
        raise argparse.ArgumentTypeError("must be owner/name")
    return value


def _commit(value: str) -> str:
    if not FULL_SHA.match(value):
        raise argparse.ArgumentTypeError("must be a full commit id")
    return value


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "provenance", help="name the gate run whose reports a workflow_run job judges"
    )
    parser.add_argument("--out", required=True, metavar="FILE", help="where to write it")
    parser.add_argument(
        "--caller",
        required=True,
        metavar="PATH",
        help="the base's gate workflow, the only file whose runs' reports are judged",
    )
    parser.add_argument(
        "--waiver-repository",
        required=True,
        type=_repository,
        metavar="OWNER/NAME",
        help="the waiver this job runs",
    )
    parser.add_argument(
        "--waiver-ref",
        required=True,
        type=_commit,
        metavar="COMMIT",
        help="its commit: the one the gate run's reusable workflow must be pinned to",
    )
    for flag, default, what in (
        ("--replays", 5, "replays the gate's run ran (its replays input)"),
        ("--shards", 1, "shards each replay was split into (its shards input)"),
        ("--base-replays", 0, "base replays it ran (its base-replays input)"),
    ):
        parser.add_argument(
            flag, type=int, default=default, metavar="N", help=f"{what}; default %(default)s"
        )
    parser.add_argument(
        "--pull-request",
        type=int,
        metavar="N",
        help="the pull request the reports are judged for; the run must be about it",
    )
    named = parser.add_mutually_exclusive_group()
    named.add_argument(
        "--history-workflow",
        metavar="PATH",
        help="the history writer's caller workflow: name its latest run on the default branch "
        "with a waiver-history artifact, the history shown beside the rows",
    )
    named.add_argument(
        "--default-branch",
        action="store_true",
        help="name the run for the history writer: a push or schedule run of --caller on the "
        "default branch, and the writer's latest run with a waiver-history artifact",
    )
    parser.set_defaults(handler=run)
