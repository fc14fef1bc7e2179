"""What several commands share: the time flags, the policy flags and the verdict line."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from waiver.errors import EXIT_BLOCKED, EXIT_CLEAR, UsageError
from waiver.github.workflow import on_github
from waiver.model import BASE_WORDS, BaseMeaning
from waiver.read.policy.policy_file import read_policy
from waiver.read.policy.settings import Flags, Settings, effective
from waiver.read.trusted.git import COMMIT_ID, GitRevision
from waiver.write.words.escape import log_line
from waiver.write.words.terminal import render_terminal


def moment(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {text!r}") from None
    if moment.utcoffset() is None:
        raise argparse.ArgumentTypeError(f"the time needs a timezone: {text!r}")
    return moment


def commit_argument(text: str) -> str:
    """An argparse type: a full commit id; a branch, tag or short id could be moved."""
    if not COMMIT_ID.fullmatch(text):
        raise argparse.ArgumentTypeError(f"not a full commit id: {text!r}")
    return text


def whole_number(least: int = 1, most: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from `least` to `most`. A value out of range stops
    at the command line, as a usage error naming the flag, before anything is read."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < least or (most is not None and value > most):
            span = f"at least {least}" if most is None else f"between {least} and {most}"
            raise argparse.ArgumentTypeError(f"must be {span}, got {value}")
        return value

    return parse


def seconds(most: float | None = None) -> Callable[[str], float]:
    """An argparse type: a time limit in seconds, more than 0 (and at most `most`)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
        if not 0 < value <= (math.inf if most is None else most):
            span = "more than 0" if most is None else f"more than 0 and at most {most:g}"
            raise argparse.ArgumentTypeError(f"must be {span} seconds, got {value:g}")
        return value

    return parse


def full_commit(flag: str, commit: str) -> str:
    """`commit` when it is a full commit id: a branch, tag or short id, which the change
    could take over, is a usage error."""
    if not COMMIT_ID.fullmatch(commit):
        raise UsageError(
            f"{flag} {commit}: give the base's full commit id (a branch, tag or short id is "
            "refused)"
        )
    return commit


def new_folder(out: str, command: str) -> None:
    """Make `out`, which must be new or empty: what an earlier run left is not this run's."""
    os.makedirs(out, exist_ok=True)
    if os.listdir(out):
        raise UsageError(f"{out} is not empty: waiver {command} writes into a new folder")


def base_settings(
    root: str, commit: str, config: str | None, registry: str | None
) -> tuple[GitRevision, Settings]:
    """The trusted base and the settings of its policy file (`config`, read there), with
    `registry` given by a flag."""
    revision = GitRevision(root, commit)
    policy_file = None if config is None else read_policy(revision, config)
    return revision, effective(policy_file, Flags(registry=registry), root)


def now_of(given: datetime | None) -> datetime:
    """The time --now gave, else the present."""
    # Whole seconds: reports and freeze expiries are read by people.
    return given if given is not None else datetime.now(UTC).replace(microsecond=0)


def print_verdict(out: str, document: dict[str, Any], table: str | None = None) -> int:
    """The verdict line (and off a runner, the table: `table` when it was rendered
    already), for the report written to `out`."""
    blocked = bool(document["blocked"])
    print(log_line(f"waiver: {document['verdict']}; report written to {out}"))
    base = document.get("base")
    if base is not None:
        said = [
            f"{number} {BASE_WORDS[BaseMeaning(meaning)]}"
            for meaning, number in base["meanings"].items()
            if number and BASE_WORDS[BaseMeaning(meaning)]
        ]
        nothing = "no row introduced, broken, already flaky or already failing"
        run = base.get("history_run")
        source = (
            "base replays"
            if run is None
            else f"base evidence from the default branch's run of {run['commit'][:12]}"
        )
        print(log_line(f"waiver: {source}: {', '.join(said) or nothing}"))
    if not on_github(os.environ):  # on a runner, the annotations and the log list the rows
        print(render_terminal(document) if table is None else table, end="")
    return EXIT_BLOCKED if blocked else EXIT_CLEAR
