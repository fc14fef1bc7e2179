"""`waiver replay`: run a test command N times and keep one JUnit report per replay.

Each run writes its report to a scratch path; the report is moved to `run-<i>.xml` only
when the command left a non-empty regular file and neither crashed (died by a signal) nor
ran out of time. A replay without a report is therefore missing for the gate, which makes
its tests `unknown_test`, and never reads as a pass. The command's own exit code does not
stop the loop: a red suite is data.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from waiver.commands.flags import add_command_flags, add_replay_flags, command_of, options_of
from waiver.commands.replays.restore_tests import TestsSource, add_tests_source, trusted_tests
from waiver.commands.setup.check_lock import (
    LockCheck,
    add_drift_flags,
    check_lock,
    print_lock_check,
)
from waiver.errors import EXIT_BLOCKED, EXIT_CLEAR, InputError, UsageError
from waiver.read.junit.replay_set import PROPERTY_REPORT
from waiver.read.lock.drift import LockPaths
from waiver.replay.command_run import (
    CommandRunner,
    LiveProgress,
    Progress,
    Run,
    Stopped,
    stop_on_signals,
)
from waiver.write.tree.tree_layout import TrustedTests, describe_tests, keep, plan_of, restore_tests
from waiver.write.words.escape import log_line

# A replay stopped by a signal exits as a shell reports a command the signal ended: 128 + its
# number (130 after Ctrl-C, 143 after SIGTERM). It has no verdict to give.
STOPPED_EXIT = 128


@dataclass(frozen=True)
class ReplayOptions:
    count: int
    out: str
    command: Sequence[str]
    timeout: float | None = None
    properties_first: str | None = None
    tests_from: TrustedTests | None = None
    lock_check: LockCheck | None = None


def _prepare(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    if os.listdir(out):
        raise UsageError(
            f"{out} is not empty: waiver replay writes into a new or empty folder, "
            "so that no report of an earlier run can pass for one of this run"
        )


def _check(options: ReplayOptions) -> list[str] | None:
    if not options.command:
        raise UsageError("give the command to replay after --")
    if options.properties_first is None:
        return None
    try:
        properties = shlex.split(options.properties_first)
    except ValueError as error:
        raise UsageError(f"--properties-first: {error}") from None
    if not properties:
        raise UsageError("--properties-first is empty")
    return properties


def _property_stop(run: Run, out: str) -> str | None:
    """Why a property run stops `waiver replay` before any replay, or None when replays may run.

    A report that shows a failure stops it with a message, and the gate reports
    property_violation; no usable report (none, unreadable, no case ran) is an input error,
    as it is for the gate.
    """
    if run.counts is None or run.problem is not None:
        raise InputError(
            os.path.join(out, PROPERTY_REPORT),
            f"the property suite left no usable report: {run.problem}; no replay was run",
        )
    if run.counts.failed:
        return (
            f"waiver: the property suite failed ({run.counts.failed} failed); no replay was run, "
            "and the gate will report property_violation"
        )
    return None


def _drift_stop(check: LockCheck | None, stream: TextIO) -> str | None:
    """Why drift stops `waiver replay` before any replay, or None when replays may run.

    Checked on the tree as the change left it, before the trusted test tree is laid out
    over it: the gate sees the change's tree, and no replay can change a drifted verdict.
    """
    if check is None:
        return None
    fixtures, protected = check_lock(check)
    print_lock_check(fixtures, protected, stream)
    if not fixtures.drifted:
        return None
    return (
        "waiver: the files listed above drifted from the lock; no replay was run, "
        "and the gate will report fixture_drift"
    )


def _run_all(
    runner: CommandRunner,
    options: ReplayOptions,
    properties: list[str] | None,
    env: dict[str, str],
    stops: list[str],
    missing: list[int],
) -> None:
    """The property suite, then the replays unless something stops them; `stops` gets why
    they were stopped and `missing` the replays that left no usable report."""
    if properties is not None:
        property_stop = _property_stop(
            runner.run("properties", "properties", properties, env), options.out
        )
        if property_stop is not None:
            stops.insert(0, property_stop)
    if stops:
        return
    for i in range(1, options.count + 1):
        label = f"replay {i} of {options.count}"
        env["WAIVER_REPLAY"] = str(i)
        run = runner.run(label, f"run-{i}", options.command, env)
        runner.last = "no usable report" if run.counts is None else str(run.counts)
        if run.problem is not None:
            missing.append(i)


def run_replays(options: ReplayOptions, stream: TextIO | None = None) -> int:
    """0 when every replay left a report; 1 when a failed property suite or drift from the
    lock stopped the run before any replay; 128 + the signal's number when a signal stopped
    it, after the running command's whole process group was ended.

    A replay that left no usable report is an input error for the gate (exit 2), raised
    only after every replay has run. With a lock check the property suite still runs
    after drift: a failed property outranks drift, and the gate needs its report.
    """
    stream = stream or sys.stdout
    properties = _check(options)
    _prepare(options.out)
    drift = _drift_stop(options.lock_check, stream)
    kept = None
    if options.tests_from is not None:
        plan = plan_of(options.tests_from)
        kept = keep(options.tests_from, plan)
        try:
            restored = restore_tests(options.tests_from, plan)
        except BaseException:
            kept.put_back()
            raise
        print(describe_tests(options.tests_from, restored, plan), file=stream)
    live = stream.isatty() and not os.environ.get("CI")
    runner = CommandRunner(
        options.out, options.timeout, (LiveProgress if live else Progress)(stream)
    )
    env = dict(os.environ)
    env.pop("WAIVER_REPLAY", None)
    stops = [] if drift is None else [drift]
    missing: list[int] = []
    try:
        with stop_on_signals():
            _run_all(runner, options, properties, env, stops, missing)
    except Stopped as stopped:
        print(
            f"waiver: stopped by {stopped}; the running command and every process it "
            "started were ended, and no further replay was run",
            file=stream,
        )
        return STOPPED_EXIT + stopped.signum
    finally:
        runner.close()
        if kept is not None:
            # The work tree as it was: the change's own files, for the gate to read.
            kept.put_back()
    if stops:
        print("\n".join(stops), file=stream)
        return EXIT_BLOCKED  # drift or a failed property: no replay can unblock the gate
    if missing:
        raise InputError(
            options.out,
            f"{len(missing)} of {options.count} replays left no usable report "
            f"(replay {', '.join(map(str, missing))}); the gate will classify their tests unknown_test",
        )
    print(
        log_line(f"waiver: all {options.count} replays left a report in {options.out}"),
        file=stream,
    )
    return EXIT_CLEAR


def run(args: argparse.Namespace) -> int:
    options = options_of(
        ReplayOptions,
        args,
        command=command_of(args.command),
        tests_from=None
        if args.tests_from is None
        else trusted_tests(TestsSource(args.lock, args.config, args.root), args.tests_from),
        lock_check=None
        if args.fixtures is None
        else LockCheck(
            paths=LockPaths(args.root, args.fixtures, args.lock),
            patterns=tuple(args.pattern),
            config=args.config,
            trusted_ref=args.trusted_ref,
        ),
    )
    return run_replays(options)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="run a test command N times, one JUnit report per replay",
        description="{junit} in the command, and WAIVER_JUNIT in its environment, name the "
        "report path of each run; WAIVER_REPLAY is the replay's number.",
    )
    add_replay_flags(parser)
    parser.add_argument(
        "--properties-first",
        metavar="COMMAND",
        help="the property suite, one shell-quoted string, run once first to DIR/properties.xml",
    )
    parser.add_argument(
        "--tests-from",
        metavar="COMMIT",
        help="first lay out this commit's test tree (as `waiver restore-tests` does): replay "
        "its tests against the work tree's code",
    )
    add_tests_source(parser)
    parser.add_argument(
        "--fixtures",
        metavar="DIR",
        help="first check the fixtures in DIR and the test harness against --lock, as the "
        "gate does; on drift no replay runs",
    )
    add_drift_flags(parser)
    add_command_flags(parser, "per replay")
    parser.set_defaults(handler=run)
