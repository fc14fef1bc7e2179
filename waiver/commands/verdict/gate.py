"""`waiver gate`: the whole gate from JUnit reports, and on a runner its annotations,
outputs and job summary."""

from __future__ import annotations

import argparse
import os
import sys

from waiver.commands.flags import (
    add_config_flag,
    add_pattern_flag,
    add_policy_flags,
    add_root_flag,
    options_of,
)
from waiver.commands.support import now_of, print_verdict, whole_number
from waiver.gate.options import GateOptions
from waiver.gate.pipeline import collector_paused, run_gate
from waiver.github.workflow import is_step_summary, on_github, publish
from waiver.read.junit.replay_set import MAX_REPLAYS
from waiver.read.policy.settings import Flags
from waiver.read.trusted.git import GitRevision
from waiver.read.trusted.protected import FromWorkingTree, ProtectedFiles


def run(args: argparse.Namespace) -> int:
    # The verdict is printed from every row of the report too, so the collector's pause
    # (`collector_paused`) lasts until it is.
    with collector_paused():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    options = options_of(
        GateOptions,
        args,
        flags=options_of(
            Flags, args, registry=args.known_tests, fixtures=tuple(args.pattern) or None
        ),
        summary_appends=is_step_summary(os.environ, args.summary),
        environment=os.environ,
        terminal=not on_github(os.environ),
    )
    protected: ProtectedFiles = (
        FromWorkingTree() if args.trusted_ref is None else GitRevision(args.root, args.trusted_ref)
    )
    now = now_of(args.now)
    gated = run_gate(options, protected, now)
    if on_github(os.environ):
        _publish(options, gated.document)
    if gated.error is not None:
        raise gated.error
    return print_verdict(options.out, gated.document, gated.terminal)


def _publish(options: GateOptions, document: dict[str, object]) -> None:
    """On a GitHub runner: annotations, step outputs and the job summary."""
    publish(
        os.environ,
        document,
        report_path=options.out,
        root=options.root,
        summary_written_to=options.summary,
        stream=sys.stdout,
    )


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("gate", help="run the whole gate from JUnit reports")
    parser.add_argument(
        "--reports",
        required=True,
        metavar="DIR",
        help="folder of replays: run-1.xml … run-N.xml, or run-1/ … run-N/ folders of shards",
    )
    parser.add_argument(
        "--properties",
        required=True,
        metavar="FILE",
        help="the property suite's JUnit file (not a folder, not a replay's report)",
    )
    parser.add_argument(
        "--fixtures", required=True, metavar="DIR", help="the fixture folder the lock protects"
    )
    parser.add_argument(
        "--lock", required=True, metavar="FILE", help="the sha256sum-format fixture lock"
    )
    parser.add_argument(
        "--out",
        required=True,
        metavar="FILE",
        help="where waiver.json is written; an earlier report there is removed first",
    )
    parser.add_argument(
        "--known-tests",
        metavar="FILE",
        help="the known-tests registry (waiver baseline); without it new and vanished tests "
        "are not detected",
    )
    parser.add_argument(
        "--freezes", metavar="FILE", help="the freeze store: accepted freeze records (JSON list)"
    )
    add_root_flag(parser)
    add_pattern_flag(parser)
    _add_replay_arguments(parser)
    add_config_flag(parser, "what the flags do not set")
    parser.add_argument(
        "--history",
        metavar="FILE",
        help="the default branch's history (`waiver history record`): shown beside each "
        "unstable or failing row, evidence only; a missing or unreadable one is a warning",
    )
    _add_review_arguments(parser)
    add_policy_flags(parser)
    parser.set_defaults(handler=run)


def _add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    """How many replays and shards to expect, of the change and of the base, and how large
    one report may be."""
    parser.add_argument(
        "--replays",
        type=whole_number(1, MAX_REPLAYS),
        metavar="N",
        help="how many replays to expect; a missing one makes every test unknown_test",
    )
    parser.add_argument(
        "--shards",
        type=whole_number(),
        metavar="K",
        help="run-<n>/ folders hold shard-1.xml … shard-K.xml",
    )
    parser.add_argument(
        "--base-reports",
        metavar="DIR",
        help="replays of the trusted base revision, in the layout of --reports: evidence only",
    )
    parser.add_argument(
        "--change-tests",
        metavar="DIR",
        help="replays of the change's new and edited tests on its own tree (`waiver "
        "change-tests`), --replays of them, any number of files each: with it, --reports "
        "are replays of the base's test tree (`waiver replay --tests-from`), and these "
        "give the new, edited and deleted tests' rows, for review",
    )
    parser.add_argument(
        "--base-replays",
        type=whole_number(1, MAX_REPLAYS),
        metavar="N",
        help="how many base replays to expect",
    )
    parser.add_argument(
        "--max-report-bytes",
        type=whole_number(),
        metavar="N",
        help="size cap of one JUnit file (default 512 MiB); a larger one is unreadable",
    )


def _add_review_arguments(parser: argparse.ArgumentParser) -> None:
    """What the change cannot grade: the trusted revision, and the human review."""
    parser.add_argument(
        "--trusted-ref",
        metavar="COMMIT",
        help="read the lock, registry, freeze store and policy file from this commit "
        "(its full 40- or 64-hex id)",
    )
    parser.add_argument(
        "--approvals",
        metavar="github|FILE",
        help="count the pull request's approvals: `github` reads them from the REST API "
        "($GITHUB_API_URL, $GITHUB_TOKEN, $GITHUB_EVENT_PATH), FILE is what `waiver "
        "approvals` wrote; a counted approval admits what blocks only for review",
    )
    parser.add_argument(
        "--red-green",
        action="append",
        default=[],
        metavar="FILE|DIR",
        help="what `waiver red-green` wrote: each new or edited test's replays on the base's "
        "code, set beside its row (evidence; with `review_requires: red_green` an approval "
        "admits only a red-green test); once per shard",
    )
    parser.add_argument(
        "--provenance",
        metavar="FILE",
        help="the gate run the reports came from, as `waiver provenance` wrote it: reports "
        "that the base's own gate workflow did not produce block the run, unread",
    )
