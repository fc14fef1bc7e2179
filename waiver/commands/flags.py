"""What the commands' flags share: a command's options filled from its flags, and the flags
several commands take alike, declared once so that their words and types cannot drift."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from waiver.commands.support import moment, seconds, whole_number

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

OptionsT = TypeVar("OptionsT", bound="DataclassInstance")


def options_of(kind: type[OptionsT], args: argparse.Namespace, **given: Any) -> OptionsT:
    """The options `kind` holds, each field from the flag of its name (a repeatable flag's
    list as a tuple, since options are frozen) unless `given` names it; a field no flag
    fills keeps its default."""
    values = dict(given)
    for field in dataclasses.fields(kind):
        if field.name not in values and hasattr(args, field.name):
            value = getattr(args, field.name)
            values[field.name] = tuple(value) if isinstance(value, list) else value
    return kind(**values)


def command_of(command: Sequence[str]) -> Sequence[str]:
    """The test command after the flags, without the `--` that may set it apart."""
    return command[1:] if command[:1] == ["--"] else command


def add_replay_flags(parser: argparse.ArgumentParser) -> None:
    """How many times a command runs, and the folder its reports go to."""
    parser.add_argument("-n", dest="count", type=whole_number(), required=True, metavar="N")
    parser.add_argument("--out", required=True, metavar="DIR", help="a new or empty folder")


def add_command_flags(parser: argparse.ArgumentParser, timeout: str) -> None:
    """The time limit of each run (`timeout` says of what), and the command itself last."""
    parser.add_argument("--timeout", type=seconds(), metavar="SECONDS", help=timeout)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")


def add_pattern_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--pattern",
        action="append",
        default=[],
        metavar="GLOB",
        help="only fixtures matching this glob are locked (repeatable; default: every file)",
    )


def add_root_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root", default=".", metavar="DIR", help="repository root (default: the current folder)"
    )


def add_config_flag(parser: argparse.ArgumentParser, what: str) -> None:
    """--config, saying `what` the command reads of the policy file."""
    parser.add_argument("--config", metavar="FILE", help=f"the policy file (waiver.yml): {what}")


def add_now_flag(parser: argparse.ArgumentParser, what: str) -> None:
    """--now, saying `what` the command does at the time given."""
    parser.add_argument(
        "--now", type=moment, metavar="TIME", help=f"{what} (ISO 8601 with zone) instead of now"
    )


def add_policy_flags(parser: argparse.ArgumentParser) -> None:
    # No defaults here: a flag that was not given must not override the policy file.
    parser.add_argument(
        "--min-replays",
        type=whole_number(),
        metavar="N",
        help="replay outcomes each test needs; fewer is unknown_test (default 5)",
    )
    parser.add_argument(
        "--freeze-hours",
        type=whole_number(),
        metavar="H",
        help="lifetime of a fresh freeze proposal in hours (default 24)",
    )
    add_now_flag(parser, "evaluate at this time")
    parser.add_argument(
        "--summary",
        metavar="FILE",
        help="write the Markdown summary here, replacing the file "
        "(the runner's job-summary file is appended to instead)",
    )
