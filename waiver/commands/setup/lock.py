"""`waiver lock`: a sha256sum-format lock of the fixtures and the test harness."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from waiver.commands.flags import add_config_flag, add_root_flag
from waiver.errors import EXIT_CLEAR
from waiver.read.lock.drift import lock_text
from waiver.read.policy.policy_file import read_policy
from waiver.read.trusted.protected import FromWorkingTree
from waiver.runners import policy_harness
from waiver.write.files.atomic import write_atomic
from waiver.write.words.escape import log_line
from waiver.write.words.lock_reasons import reason_lines


@dataclass(frozen=True)
class LockOptions:
    fixtures: str
    patterns: tuple[str, ...]
    property_suites: tuple[str, ...]
    config: str | None
    out: str
    root: str


def run(args: argparse.Namespace) -> int:
    options = LockOptions(
        fixtures=args.fixtures,
        patterns=tuple(args.pattern),
        property_suites=tuple(args.property_suite),
        config=args.config,
        out=args.out,
        root=args.root,
    )
    policy_file = None if options.config is None else read_policy(FromWorkingTree(), options.config)
    text = lock_text(
        options.root,
        options.fixtures,
        options.patterns,
        options.property_suites,
        policy_file,
        policy_harness,
    )
    write_atomic(options.out, text.text)
    print(
        log_line(
            f"waiver: {text.text.count(chr(10))} fixtures and harness files locked in {options.out}"
        )
    )
    for line in reason_lines(text.harness):
        print(log_line(f"  {line}"))
    return EXIT_CLEAR


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "lock", help="write a sha256sum-format lock of the fixtures and the test harness"
    )
    parser.add_argument("--fixtures", required=True, metavar="DIR", help="the fixtures folder")
    parser.add_argument(
        "--pattern",
        action="append",
        default=[],
        metavar="GLOB",
        help="lock only fixtures whose path inside DIR matches (repeatable)",
    )
    parser.add_argument(
        "--property-suite",
        action="append",
        default=[],
        metavar="DIR",
        help=(
            "lock every module (Python, JavaScript, TypeScript) under this folder of the "
            "property suite (repeatable)"
        ),
    )
    add_config_flag(parser, "its fixtures and harness globs")
    parser.add_argument("--out", default="fixture.lock", metavar="FILE")
    add_root_flag(parser)
    parser.set_defaults(handler=run)
