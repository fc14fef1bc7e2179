"""`waiver history`: fold a default-branch gate run's waiver.json into the history
(`record`), and show what the history says of each test (`show`).

The history is evidence kept by the default branch's own workflow: `record` never fails for
the history's sake (a missing file starts one, a corrupt one starts afresh with a warning),
but a report that is not a waiver.json is an input error.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from waiver.commands.flags import add_config_flag, add_now_flag, options_of
from waiver.commands.support import commit_argument, now_of
from waiver.decide.decision import check_policy
from waiver.decide.history_fold import History, fold
from waiver.decide.history_rates import ranked
from waiver.decide.policy import Policy
from waiver.errors import EXIT_CLEAR, InputError
from waiver.read.policy.policy_file import read_policy
from waiver.read.policy.settings import Flags, effective
from waiver.read.stores.history_store import read_history, recorded_run
from waiver.read.stores.waiver_json import read_report
from waiver.read.trusted.protected import FromWorkingTree
from waiver.write.files.atomic import write_atomic
from waiver.write.history.history_file import write_history
from waiver.write.history.history_show import (
    history_show_json,
    render_history_markdown,
    render_history_show_json,
    render_history_terminal,
)
from waiver.write.words.escape import log_line


@dataclass(frozen=True)
class RecordOptions:
    history: str
    report: str
    out: str
    config: str | None
    now: datetime
    head: str | None = None  # the commit the run replayed


@dataclass(frozen=True)
class ShowOptions:
    history: str
    json: str | None
    markdown: str | None
    config: str | None


def history_policy(config: str | None) -> Policy:
    """The policy file's history keys (on the default branch its tree is trusted), or the
    defaults."""
    policy_file = None if config is None else read_policy(FromWorkingTree(), config)
    policy = effective(policy_file, Flags(), ".").policy
    check_policy(policy)
    return policy


def _warn(message: str) -> None:
    print(log_line(f"waiver: warning: {message}"), file=sys.stderr)


def history_or_fresh(path: str) -> History:
    """The history at `path`, or a new one: a missing file starts it, and one that cannot
    be read starts it afresh with a warning."""
    try:
        history = read_history(path)
    except InputError as error:
        _warn(f"{error}; starting the history afresh")
        return History()
    return History() if history is None else history


def _stable_pass_ids(passing: list[str]) -> Any:
    """A row filter for `read_report` that keeps the stable passes' ids aside: they need no
    check beyond the id and class the reader checks of every row."""

    def uses(row: Any) -> bool:
        if row["class"] == "stable_pass":
            passing.append(row["test_id"])
            return False
        return True

    return uses


def record(options: RecordOptions) -> int:
    policy = history_policy(options.config)
    passing: list[str] = []
    report = read_report(options.report, _stable_pass_ids(passing)).document
    history = history_or_fresh(options.history)
    if report["error"] is not None:
        # A run that ended in an input error judged no test: the history goes on without it.
        folded, said = history, "did not record (it ended in an input error)"
    else:
        recorded = recorded_run(report, passing, options.head)
        folded = fold(history, recorded, policy, options.now)
        said = "already recorded" if folded is history else "recorded"
    try:
        write_history(options.out, folded)
    except OSError as error:
        raise InputError(options.out, f"cannot write the history: {error.strerror}") from None
    print(
        log_line(
            f"waiver: history: {said} the run of {report['generated_at']}; "
            f"{len(folded.runs)} runs, {len(folded.tests)} tests, written to {options.out}"
        )
    )
    return EXIT_CLEAR


def show(options: ShowOptions) -> int:
    policy = history_policy(options.config)
    history = read_history(options.history)
    if history is None:
        raise InputError(options.history, "no history file")
    tests = ranked(history, policy)
    print(render_history_terminal(history, tests, policy), end="")
    try:
        if options.json is not None:
            document = history_show_json(history, tests, policy)
            write_atomic(options.json, render_history_show_json(document))
        if options.markdown is not None:
            write_atomic(options.markdown, render_history_markdown(history, tests, policy))
    except OSError as error:
        raise InputError(error.filename or "output", f"cannot write: {error.strerror}") from None
    return EXIT_CLEAR


def run_record(args: argparse.Namespace) -> int:
    return record(options_of(RecordOptions, args, now=now_of(args.now)))


def run_show(args: argparse.Namespace) -> int:
    return show(options_of(ShowOptions, args))


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "history", help="the default branch's history of each test: record a run, show it"
    )
    actions = parser.add_subparsers(required=True, metavar="ACTION")
    recorder = actions.add_parser("record", help="fold one gate run's waiver.json into the history")
    recorder.add_argument(
        "--history",
        required=True,
        metavar="FILE",
        help="the history so far; a missing file starts one, a corrupt one starts afresh",
    )
    recorder.add_argument(
        "--report", required=True, metavar="FILE", help="the waiver.json of a default-branch run"
    )
    recorder.add_argument(
        "--out", required=True, metavar="FILE", help="where the history is written (atomically)"
    )
    add_config_flag(recorder, "its window and thresholds")
    recorder.add_argument(
        "--head",
        type=commit_argument,
        metavar="COMMIT",
        help="the commit the run replayed (a push's head): a pull request on that commit then "
        "takes the run's rows as its base replays",
    )
    add_now_flag(recorder, "cut the window of days at this time")
    recorder.set_defaults(handler=run_record)
    shower = actions.add_parser("show", help="print what the history says of each test")
    shower.add_argument("--history", required=True, metavar="FILE", help="the history file")
    shower.add_argument("--json", metavar="FILE", help="write the history's rates here as JSON")
    shower.add_argument(
        "--markdown", metavar="FILE", help="write the Markdown for a job summary here"
    )
    add_config_flag(shower, "its thresholds")
    shower.set_defaults(handler=run_show)
