"""The `waiver` command: argparse, one handler per subcommand, and the one exception boundary.

Exit codes, everywhere: 0 not blocked, 1 blocked, 2 usage or input error, 3 internal error.
"""

from __future__ import annotations

import argparse
import contextlib
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
from waiver.gate import (
    GateOptions,
    check_output_paths,
    error_json,
    flag_settings,
    remove_report,
    run_gate,
    write_report,
)
from waiver.github import is_step_summary, on_github, publish
from waiver.model import BASE_WORDS, BaseMeaning
from waiver.read.cases import MAX_CASES_BYTES, parse_cases
from waiver.read.config import Flags, effective, read_config
from waiver.read.files import read_small
from waiver.read.git import GitRevision
from waiver.read.harness import Harness, suite_modules
from waiver.read.lock import write_lock_text
from waiver.read.protected import ProtectedFiles, WorkingTree
from waiver.read.registry import format_registry
from waiver.read.replays import Limits, read_replays, read_single, report_and_log
from waiver.read.report_overview import overview
from waiver.read.testid import TestIdRule
from waiver.replay import PROPERTY_REPORT, ReplayOptions, run_replays
from waiver.write.atomic import write_atomic
from waiver.write.escape import log_line, runner_inert_json
from waiver.write.report import Context, policy_json, render_json, report_json
from waiver.write.restore import TrustedHarness, describe_restore, restore_locked_files
from waiver.write.terminal import render_terminal

EXIT_CLEAR, EXIT_BLOCKED, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3
# The commands whose --out is a verdict: a run that fails leaves none behind.
REPORT_COMMANDS = ("gate", "classify")


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
    print(log_line(f"waiver: {document['verdict']}; report written to {args.out}"))
    base = document.get("base")
    if base is not None:
        said = [
            f"{number} {BASE_WORDS[BaseMeaning(meaning)]}"
            for meaning, number in base["meanings"].items()
            if number and BASE_WORDS[BaseMeaning(meaning)]
        ]
        nothing = "no row introduced, broken, already flaky or already failing"
        print(f"waiver: base replays: {', '.join(said) or nothing}")
    if not on_github(os.environ):  # on a runner, the annotations and the log list the rows
        print(render_terminal(document), end="")
    return EXIT_BLOCKED if blocked else EXIT_CLEAR


def _lock(args: argparse.Namespace) -> int:
    policy_file = None if args.config is None else read_config(WorkingTree(), args.config)
    settings = effective(policy_file, replace(Flags(), fixtures=tuple(args.pattern) or None), ".")
    modules = frozenset(
        module for suite in args.property_suite for module in suite_modules(args.root, suite)
    )
    harness = Harness(settings.harness, modules).in_tree(args.root)
    text = write_lock_text(args.root, args.fixtures, settings.fixtures, harness)
    write_atomic(args.out, text)
    print(
        log_line(f"waiver: {text.count(chr(10))} fixtures and harness files locked in {args.out}")
    )
    return EXIT_CLEAR


def _classify(args: argparse.Namespace) -> int:
    remove_report(args.out)
    check_output_paths(args.out, args.summary)
    settings = effective(None, _policy(args), ".")
    check_policy(settings.policy)
    cases = parse_cases(read_small(args.cases, MAX_CASES_BYTES, args.cases), args.cases)
    now = _now(args)
    document = report_json(decide(cases, settings.policy, now), settings, Context(), now)
    write_report(
        args.out,
        args.summary,
        document,
        summary_appends=is_step_summary(os.environ, args.summary),
    )
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
        summary_appends=is_step_summary(os.environ, args.summary),
        replays=args.replays,
        shards=args.shards,
        base_reports=args.base_reports,
        base_replays=args.base_replays,
    )
    protected: ProtectedFiles = (
        WorkingTree() if args.trusted_ref is None else GitRevision(args.root, args.trusted_ref)
    )
    now = _now(args)
    if not on_github(os.environ):
        return _report(args, run_gate(options, protected, now))
    try:
        document = run_gate(options, protected, now)
    except (InputError, UsageError) as error:
        _publish(args, _failure_report(options, protected, error, now))
        raise
    _publish(args, document)
    return _report(args, document)


def _failure_report(
    options: GateOptions, protected: ProtectedFiles, error: InputError | UsageError, now: datetime
) -> dict[str, object]:
    """The blocked report the gate left behind, or, where it could write none, its like."""
    try:
        with open(options.out, encoding="utf-8") as stream:
            document: dict[str, object] = json.load(stream)
    except OSError:  # none was written, or --out names a folder
        return error_json(error, flag_settings(options), now, protected.given)
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
    # The property report and its log, as `waiver replay --properties-first` leaves them.
    others = report_and_log(args.reports, os.path.join(args.reports, PROPERTY_REPORT))
    if args.properties is not None:
        others |= report_and_log(args.reports, args.properties)
    replays = read_replays(args.reports, TestIdRule(args.root), Limits(), others=others)
    if replays.errors:
        first = replays.errors[0]
        raise InputError(first.source, first.problem)
    ran = [test_id for _, test_id, outcomes in replays.tally.all_outcomes() if outcomes]
    if args.properties is not None:
        # Registered property ids must run and pass in every gate after this one.
        properties = read_single(args.properties, TestIdRule(args.root), Limits())
        ran += [test_id for _, test_id, outcomes in properties.all_outcomes() if outcomes]
    write_atomic(args.out, format_registry(ran))
    print(log_line(f"waiver: {len(ran)} test ids written to {args.out}"))
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
        log_line(
            f"waiver: commentary on {len(notes)} unstable rows ({kept} kept) written to "
            f"{args.out}; the report is unchanged"
        )
    )
    return EXIT_CLEAR


def _check_policy_file(args: argparse.Namespace) -> int:
    """Print the effective values of a valid policy file, with where each came from."""
    settings = effective(read_config(WorkingTree(), args.check), Flags(), ".")
    print(runner_inert_json(render_json(policy_json(settings))), end="")
    return EXIT_CLEAR


def _add_policy_flags(parser: argparse.ArgumentParser) -> None:
    # No defaults here: a flag that was not given must not override the policy file.
    parser.add_argument(
        "--min-replays",
        type=int,
        metavar="N",
        help="replay outcomes each test needs; fewer is unknown_test (default 5)",
    )
    parser.add_argument(
        "--freeze-hours",
        type=int,
        metavar="H",
        help="lifetime of a fresh freeze proposal in hours (default 24)",
    )
    parser.add_argument(
        "--now",
        type=_moment,
        metavar="TIME",
        help="evaluate at this time (ISO 8601 with zone) instead of now",
    )
    parser.add_argument(
        "--summary",
        metavar="FILE",
        help="write the Markdown summary here, replacing the file "
        "($GITHUB_STEP_SUMMARY is appended to)",
    )


def _add_lock(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
        help="lock every Python module under this folder of the property suite (repeatable)",
    )
    parser.add_argument(
        "--config", metavar="FILE", help="the policy file: its fixtures and harness globs"
    )
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
    parser.add_argument(
        "--root", default=".", metavar="DIR", help="repository root (default: the current folder)"
    )
    parser.add_argument(
        "--pattern",
        action="append",
        default=[],
        metavar="GLOB",
        help="only fixtures matching this glob are locked (repeatable; default: every file)",
    )
    parser.add_argument(
        "--replays",
        type=int,
        metavar="N",
        help="how many replays to expect; a missing one makes every test unknown_test",
    )
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
    parser.add_argument(
        "--max-report-bytes",
        type=int,
        metavar="N",
        help="size cap of one JUnit file (default 512 MiB); a larger one is unreadable",
    )
    parser.add_argument("--config", metavar="FILE", help="the policy file (waiver.yml)")
    parser.add_argument(
        "--trusted-ref",
        metavar="COMMIT",
        help="read the lock, registry, freeze store and policy file from this commit "
        "(its full 40- or 64-hex id)",
    )
    _add_policy_flags(parser)
    parser.set_defaults(handler=_gate)


def _inspect(args: argparse.Namespace) -> int:
    # Ids are counted, not printed, so no repository root is needed to form them.
    rule = TestIdRule(None)
    for path in args.files:
        print(log_line(overview(path, rule, Limits()).line()))
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
    parser.add_argument(
        "--properties", metavar="PATH", help="also list the property cases this report ran"
    )
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


def _trusted_harness(args: argparse.Namespace, commit: str) -> TrustedHarness:
    """The revision, lock and policy the harness is restored from."""
    trusted = GitRevision(args.root, commit)
    policy_file = None if args.config is None else read_config(trusted, args.config)
    settings = effective(policy_file, Flags(), args.root)
    return TrustedHarness(args.root, trusted, args.lock, Harness(settings.harness))


def _restore_harness(args: argparse.Namespace) -> int:
    source = _trusted_harness(args, args.source)
    print(describe_restore(source, restore_locked_files(source)))
    return EXIT_CLEAR


def _add_harness_source(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lock", default="fixture.lock", metavar="FILE", help="the lock (default %(default)s)"
    )
    parser.add_argument("--config", metavar="FILE", help="the policy file, for its harness globs")
    parser.add_argument("--root", default=".", metavar="DIR", help="repository root")


def _add_restore_harness(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "restore-harness",
        help="put the files a trusted commit's lock lists, and its test harness, in the work tree",
    )
    parser.add_argument(
        "--from", dest="source", required=True, metavar="COMMIT", help="the trusted commit"
    )
    _add_harness_source(parser)
    parser.set_defaults(handler=_restore_harness)


def _replay(args: argparse.Namespace) -> int:
    command: list[str] = args.command
    options = ReplayOptions(
        count=args.count,
        out=args.out,
        command=command[1:] if command[:1] == ["--"] else command,
        timeout=args.timeout,
        properties_first=args.properties_first,
        harness_from=None
        if args.harness_from is None
        else _trusted_harness(args, args.harness_from),
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
    parser.add_argument(
        "--harness-from",
        metavar="COMMIT",
        help="first restore the files the lock at this commit lists, and its test harness",
    )
    _add_harness_source(parser)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    parser.set_defaults(handler=_replay)


def _freeze(args: argparse.Namespace) -> int:
    # Imported here: the report schema costs every other command 0.1 s.
    from waiver.commands import freeze

    policy = freeze.read_policy(args.config)
    now = _now(args)
    if args.action == "accept":
        lines = freeze.accept(args.report, args.test_ids, args.store, policy, now)
    elif args.action == "prune":
        lines = freeze.prune(args.store, policy, now)
    else:
        lines = freeze.list_store(args.store, policy, now)
    for line in lines:
        print(f"waiver: {line}")
    return EXIT_CLEAR


def _add_freeze(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("freeze", help="accept, prune or list freeze-store records")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    accept = actions.add_parser(
        "accept", help="copy the freeze proposals of these tests from a report into the store"
    )
    accept.add_argument("--report", required=True, metavar="FILE", help="the gate's waiver.json")
    accept.add_argument(
        "test_ids", nargs="+", metavar="TEST_ID", help="tests whose proposal to accept"
    )
    prune = actions.add_parser("prune", help="remove expired and void records, saying why")
    listing = actions.add_parser("list", help="show each record and whether it is void")
    for action in (accept, prune, listing):
        action.add_argument(
            "--store", required=True, metavar="FILE", help="the freeze store (freezes.json)"
        )
        action.add_argument(
            "--config", metavar="FILE", help="the policy file, for max_freeze_hours (default 168)"
        )
        action.add_argument(
            "--now",
            type=_moment,
            metavar="TIME",
            help="judge expiry at this time (ISO 8601 with zone)",
        )
        action.set_defaults(handler=_freeze)


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
    _add_restore_harness(subparsers)
    _add_freeze(subparsers)
    return parser


def _fail(message: str) -> None:
    # One line, with every control character spelled out and `##[` broken up: untrusted
    # text in a message can never start a line of its own nor form a workflow command.
    print(log_line(f"waiver: error: {message}"), file=sys.stderr)


def _named_report(argv: Sequence[str]) -> str | None:
    """The --out of a `gate` or `classify` command line that did not parse, if it names one."""
    if not argv or argv[0] not in REPORT_COMMANDS:
        return None
    finder = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    finder.add_argument("--out")
    try:
        known, _ = finder.parse_known_args(argv[1:])
    except (argparse.ArgumentError, SystemExit):
        return None
    out: str | None = known.out
    return out


def _discard_report(out: str | None) -> None:
    """After an exit other than 0 or 1, no report may be left that could say not blocked."""
    if out is not None:
        with contextlib.suppress(OSError):
            os.unlink(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(words)
    except SystemExit as exit_:
        parse_code = exit_.code if isinstance(exit_.code, int) else EXIT_INPUT
        if parse_code != EXIT_CLEAR:
            _discard_report(_named_report(words))
        return parse_code
    try:
        code: int = args.handler(args)
    except (InputError, UsageError) as error:
        _fail(str(error))
        return EXIT_INPUT
    except Exception as error:  # the boundary: anything else is a bug in waiver
        _fail(f"internal error: {type(error).__name__}: {error}")
        if args.handler in (_gate, _classify):
            _discard_report(args.out)
        return EXIT_INTERNAL
    return code
