"""The `waiver` command: argparse, one handler per subcommand, and the one exception boundary.

Exit codes, everywhere: 0 not blocked, 1 blocked, 2 usage or input error, 3 internal error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import UTC, datetime

from waiver import __version__
from waiver.decide import check_policy, decide
from waiver.errors import InputError, UsageError
from waiver.gate import GateOptions, run_gate
from waiver.model import Policy
from waiver.read.cases import MAX_CASES_BYTES, parse_cases
from waiver.read.files import read_small
from waiver.read.lock import write_lock_text
from waiver.read.protected import WorkingTree
from waiver.read.registry import format_registry
from waiver.read.replays import Limits, read_replays
from waiver.read.testid import TestIdRule
from waiver.write.atomic import write_atomic
from waiver.write.escape import visible_text
from waiver.write.report import Context, render_json, report_json
from waiver.write.summary import render_summary

EXIT_CLEAR, EXIT_BLOCKED, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


def _moment(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {text!r}") from None
    if moment.utcoffset() is None:
        raise argparse.ArgumentTypeError(f"the time needs a timezone: {text!r}")
    return moment


def _now(args: argparse.Namespace) -> datetime:
    now: datetime | None = args.now
    # Whole seconds: reports and freeze expiries are read by people.
    return now if now is not None else datetime.now(UTC).replace(microsecond=0)


def _policy(args: argparse.Namespace) -> Policy:
    return Policy(min_replays=args.min_replays, freeze_hours=args.freeze_hours)


def _report(args: argparse.Namespace, document: dict[str, object]) -> int:
    blocked = bool(document["blocked"])
    print(f"waiver: {document['verdict']}; report written to {args.out}")
    return EXIT_BLOCKED if blocked else EXIT_CLEAR


def _lock(args: argparse.Namespace) -> int:
    text = write_lock_text(args.root, args.fixtures, args.pattern)
    write_atomic(args.out, text)
    print(f"waiver: {text.count(chr(10))} fixtures locked in {args.out}")
    return EXIT_CLEAR


def _classify(args: argparse.Namespace) -> int:
    policy = _policy(args)
    check_policy(policy)
    cases = parse_cases(read_small(args.cases, MAX_CASES_BYTES, args.cases), args.cases)
    now = _now(args)
    document = report_json(decide(cases, policy, now), policy, Context(), now)
    write_atomic(args.out, render_json(document))
    if args.summary is not None:
        with open(args.summary, "a", encoding="utf-8") as stream:
            stream.write(render_summary(document))
    return _report(args, document)


def _gate(args: argparse.Namespace) -> int:
    options = GateOptions(
        reports=args.reports,
        properties=args.properties,
        fixtures=args.fixtures,
        lock=args.lock,
        out=args.out,
        root=args.root,
        policy=_policy(args),
        known_tests=args.known_tests,
        freezes=args.freezes,
        summary=args.summary,
        patterns=tuple(args.pattern),
        replays=args.replays,
        limits=Limits(max_report_bytes=args.max_report_bytes),
    )
    return _report(args, run_gate(options, WorkingTree(), _now(args)))


def _baseline(args: argparse.Namespace) -> int:
    replays = read_replays(args.reports, TestIdRule(args.root), Limits())
    if replays.errors:
        first = replays.errors[0]
        raise InputError(first.source, first.problem)
    tally = replays.tally
    ran = [test_id for i, test_id in enumerate(tally.ids) if tally.outcomes(i)]
    write_atomic(args.out, format_registry(ran))
    print(f"waiver: {len(ran)} test ids written to {args.out}")
    return EXIT_CLEAR


def _add_policy_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--min-replays", type=int, default=5, metavar="N")
    parser.add_argument("--freeze-hours", type=int, default=24, metavar="H")
    parser.add_argument(
        "--now", type=_moment, help="evaluate at this time (ISO 8601 with zone) instead of now"
    )
    parser.add_argument("--summary", metavar="FILE", help="append the Markdown summary here")


def _add_lock(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("lock", help="write a sha256sum-format fixture lock")
    parser.add_argument("--fixtures", required=True, metavar="DIR")
    parser.add_argument("--pattern", action="append", default=[], metavar="GLOB")
    parser.add_argument("--out", default="fixture.lock", metavar="FILE")
    parser.add_argument("--root", default=".", metavar="DIR", help="repository root")
    parser.set_defaults(handler=_lock)


def _add_classify(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("classify", help="classify a plain cases.json")
    parser.add_argument("--cases", required=True, metavar="FILE")
    parser.add_argument("--out", required=True, metavar="FILE")
    _add_policy_flags(parser)
    parser.set_defaults(handler=_classify)


def _add_gate(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("gate", help="run the whole gate from JUnit reports")
    parser.add_argument("--reports", required=True, metavar="DIR")
    parser.add_argument("--properties", required=True, metavar="PATH")
    parser.add_argument("--fixtures", required=True, metavar="DIR")
    parser.add_argument("--lock", required=True, metavar="FILE")
    parser.add_argument("--out", required=True, metavar="FILE")
    parser.add_argument("--known-tests", metavar="FILE")
    parser.add_argument("--freezes", metavar="FILE")
    parser.add_argument("--root", default=".", metavar="DIR", help="repository root")
    parser.add_argument("--pattern", action="append", default=[], metavar="GLOB")
    parser.add_argument("--replays", type=int, metavar="N", help="how many replays to expect")
    parser.add_argument("--max-report-bytes", type=int, default=Limits().max_report_bytes)
    _add_policy_flags(parser)
    parser.set_defaults(handler=_gate)


def _add_baseline(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("baseline", help="write the known-tests registry")
    parser.add_argument("--reports", required=True, metavar="DIR")
    parser.add_argument("--out", required=True, metavar="FILE")
    parser.add_argument("--root", default=".", metavar="DIR", help="repository root")
    parser.set_defaults(handler=_baseline)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="waiver", description="Name the class of every test id before anything is waived."
    )
    parser.add_argument("--version", action="version", version=f"waiver {__version__}")
    subparsers = parser.add_subparsers(required=True, metavar="COMMAND")
    _add_lock(subparsers)
    _add_classify(subparsers)
    _add_gate(subparsers)
    _add_baseline(subparsers)
    return parser


def _fail(message: str) -> None:
    # One line, with every control character spelled out: untrusted text in a message can
    # never start a line of its own, so it can never form a workflow command.
    print(f"waiver: error: {visible_text(message, 2000)}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_INPUT
    try:
        code: int = args.handler(args)
    except (InputError, UsageError) as error:
        _fail(str(error))
        return EXIT_INPUT
    except Exception as error:  # the boundary: anything else is a bug in waiver
        _fail(f"internal error: {type(error).__name__}: {error}")
        return EXIT_INTERNAL
    return code
