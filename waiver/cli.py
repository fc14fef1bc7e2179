"""The `waiver` command: argparse, one handler per subcommand, and the one exception boundary.

Exit codes, everywhere: 0 not blocked, 1 blocked, 2 usage or input error, 3 internal error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from waiver import __version__
from waiver.decide import check_policy, decide
from waiver.errors import InputError, UsageError
from waiver.gate import GateOptions, run_gate, write_report
from waiver.github import on_github, publish
from waiver.model import BASE_WORDS, BaseMeaning
from waiver.read.cases import MAX_CASES_BYTES, parse_cases
from waiver.read.config import Flags, effective, read_config
from waiver.read.files import read_small
from waiver.read.git import GitRevision
from waiver.read.lock import write_lock_text
from waiver.read.protected import ProtectedFiles, WorkingTree
from waiver.read.registry import format_registry
from waiver.read.replays import Limits, read_replays
from waiver.read.report_overview import overview
from waiver.read.testid import TestIdRule
from waiver.replay import ReplayOptions, run_replays
from waiver.write.atomic import write_atomic
from waiver.write.escape import visible_text
from waiver.write.report import Context, policy_json, render_json, report_json

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


def _policy(args: argparse.Namespace) -> Flags:
    """The policy flags as given; None where absent, so a policy file or default applies."""
    return Flags(min_replays=args.min_replays, freeze_hours=args.freeze_hours)


def _report(args: argparse.Namespace, document: dict[str, Any]) -> int:
    blocked = bool(document["blocked"])
    print(f"waiver: {document['verdict']}; report written to {args.out}")
    base = document.get("base")
    if base is not None:
        said = [
            f"{number} {BASE_WORDS[BaseMeaning(meaning)]}"
            for meaning, number in base["meanings"].items()
            if number and BASE_WORDS[BaseMeaning(meaning)]
        ]
        nothing = "no row introduced, broken, already flaky or already failing"
        print(f"waiver: base replays: {', '.join(said) or nothing}")
    return EXIT_BLOCKED if blocked else EXIT_CLEAR


def _lock(args: argparse.Namespace) -> int:
    text = write_lock_text(args.root, args.fixtures, args.pattern)
    write_atomic(args.out, text)
    print(f"waiver: {text.count(chr(10))} fixtures locked in {args.out}")
    return EXIT_CLEAR


def _classify(args: argparse.Namespace) -> int:
    settings = effective(None, _policy(args), ".")
    check_policy(settings.policy)
    cases = parse_cases(read_small(args.cases, MAX_CASES_BYTES, args.cases), args.cases)
    now = _now(args)
    document = report_json(decide(cases, settings.policy, now), settings, Context(), now)
    write_report(args.out, args.summary, document)
    return _report(args, document)


def _gate(args: argparse.Namespace) -> int:
    options = GateOptions(
        reports=args.reports,
        properties=args.properties,
        fixtures=args.fixtures,
        lock=args.lock,
        out=args.out,
        root=args.root,
        flags=replace(
            _policy(args),
            registry=args.known_tests,
            freezes=args.freezes,
            fixtures=tuple(args.pattern) or None,
            max_report_bytes=args.max_report_bytes,
        ),
        config=args.config,
        summary=args.summary,
        replays=args.replays,
        shards=args.shards,
        base_reports=args.base_reports,
        base_replays=args.base_replays,
    )
    protected: ProtectedFiles = (
        WorkingTree()
        if args.trusted_ref is None
        else GitRevision(args.root, args.trusted_ref, os.environ)
    )
    if not on_github(os.environ):
        return _report(args, run_gate(options, protected, _now(args)))
    try:
        document = run_gate(options, protected, _now(args))
    except (InputError, UsageError):
        _publish(args, _load_report(args.out))  # the blocked report the gate left behind
        raise
    _publish(args, document)
    return _report(args, document)


def _load_report(path: str) -> dict[str, object]:
    with open(path, encoding="utf-8") as stream:
        document: dict[str, object] = json.load(stream)
    return document


def _publish(args: argparse.Namespace, document: dict[str, object]) -> None:
    """On a GitHub runner: annotations, step outputs and the job summary."""
    publish(
        os.environ,
        document,
        report_path=args.out,
        root=args.root,
        summary_written_to=args.summary,
        stream=sys.stdout,
    )


def _baseline(args: argparse.Namespace) -> int:
    replays = read_replays(args.reports, TestIdRule(args.root), Limits())
    if replays.errors:
        first = replays.errors[0]
        raise InputError(first.source, first.problem)
    ran = [test_id for _, test_id, outcomes in replays.tally.all_outcomes() if outcomes]
    write_atomic(args.out, format_registry(ran))
    print(f"waiver: {len(ran)} test ids written to {args.out}")
    return EXIT_CLEAR


def _diagnose(args: argparse.Namespace) -> int:
    # Imported here: the HTTP client and the report schema cost every other command 0.1 s.
    from waiver.diagnose import DiagnoseOptions, run_diagnose

    options = DiagnoseOptions(
        report=args.report,
        endpoint=args.endpoint,
        model=args.model,
        out=args.out,
        max_rows=args.max_rows,
        timeout=args.timeout,
        summary=args.summary,
    )
    notes = run_diagnose(options, os.environ)
    kept = sum(note["status"] == "accepted" for note in notes)
    print(
        f"waiver: commentary on {len(notes)} unstable rows ({kept} kept) written to {args.out}; "
        "the report is unchanged"
    )
    return EXIT_CLEAR


def _check_policy_file(args: argparse.Namespace) -> int:
    """Print the effective values of a valid policy file, with where each came from."""
    settings = effective(read_config(WorkingTree(), args.check), Flags(), ".")
    print(render_json(policy_json(settings)), end="")
    return EXIT_CLEAR


def _add_policy_flags(parser: argparse.ArgumentParser) -> None:
    # No defaults here: a flag that was not given must not override the policy file.
    parser.add_argument("--min-replays", type=int, metavar="N", help="default 5")
    parser.add_argument("--freeze-hours", type=int, metavar="H", help="default 24")
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
    parser.add_argument(
        "--shards", type=int, metavar="K", help="run-<n>/ folders hold shard-1.xml … shard-K.xml"
    )
    parser.add_argument(
        "--base-reports",
        metavar="DIR",
        help="replays of the trusted base revision, in the layout of --reports: evidence only",
    )
    parser.add_argument(
        "--base-replays", type=int, metavar="N", help="how many base replays to expect"
    )
    parser.add_argument("--max-report-bytes", type=int, metavar="N")
    parser.add_argument("--config", metavar="FILE", help="the policy file (waiver.yml)")
    parser.add_argument(
        "--trusted-ref",
        metavar="REV",
        help="read the lock, registry, freeze store and policy file from this git revision",
    )
    _add_policy_flags(parser)
    parser.set_defaults(handler=_gate)


def _inspect(args: argparse.Namespace) -> int:
    # Ids are counted, not printed, so no repository root is needed to form them.
    rule = TestIdRule(None)
    for path in args.files:
        print(visible_text(overview(path, rule, Limits()).line(), 2000))
    return EXIT_CLEAR


def _add_inspect(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "inspect", help="show how the gate reads JUnit files: tool, ids, outcomes, retries"
    )
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.set_defaults(handler=_inspect)


def _add_baseline(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("baseline", help="write the known-tests registry")
    parser.add_argument("--reports", required=True, metavar="DIR")
    parser.add_argument("--out", required=True, metavar="FILE")
    parser.add_argument("--root", default=".", metavar="DIR", help="repository root")
    parser.set_defaults(handler=_baseline)


def _add_diagnose(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "diagnose",
        help="ask a model for commentary on unstable rows (key from WAIVER_MODEL_API_KEY)",
    )
    parser.add_argument("--report", required=True, metavar="FILE", help="waiver.json, only read")
    parser.add_argument("--endpoint", required=True, metavar="URL", help="OpenAI-compatible API")
    parser.add_argument("--model", required=True, metavar="NAME")
    parser.add_argument("--out", default="diagnosis.json", metavar="FILE")
    parser.add_argument("--max-rows", type=int, default=3, metavar="N")
    parser.add_argument("--timeout", type=float, default=20.0, metavar="SECONDS")
    parser.add_argument("--summary", metavar="FILE", help="append the Markdown commentary here")
    parser.set_defaults(handler=_diagnose)


def _add_policy(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("policy", help="validate a policy file (waiver.yml)")
    parser.add_argument(
        "--check", required=True, metavar="FILE", help="print its effective values, or fail"
    )
    parser.set_defaults(handler=_check_policy_file)


def _replay(args: argparse.Namespace) -> int:
    command: list[str] = args.command
    options = ReplayOptions(
        count=args.count,
        out=args.out,
        command=command[1:] if command[:1] == ["--"] else command,
        timeout=args.timeout,
        properties_first=args.properties_first,
    )
    return run_replays(options)


def _add_replay(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="run a test command N times, one JUnit report per replay",
        description="{junit} in the command, and WAIVER_JUNIT in its environment, name the "
        "report path of each run; WAIVER_REPLAY is the replay's number.",
    )
    parser.add_argument("-n", dest="count", type=int, required=True, metavar="N")
    parser.add_argument("--out", required=True, metavar="DIR", help="a new or empty folder")
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="per replay")
    parser.add_argument(
        "--properties-first",
        metavar="COMMAND",
        help="the property suite, one shell-quoted string, run once first to DIR/properties.xml",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    parser.set_defaults(handler=_replay)


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
    _add_inspect(subparsers)
    _add_policy(subparsers)
    _add_diagnose(subparsers)
    _add_replay(subparsers)
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
