"""`waiver replay`: run a test command N times and keep one JUnit report per replay.

Each run writes its report to a scratch path; the report is moved to `run-<i>.xml` only
when the command left a non-empty regular file and neither crashed (died by a signal) nor
ran out of time. A replay without a report is therefore missing for the gate, which makes
its tests `unknown_test`, and never reads as a pass. The command's own exit code does not
stop the loop: a red suite is data.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TextIO

from waiver.commands.restore_harness import add_harness_source, trusted_harness
from waiver.errors import InputError, UsageError
from waiver.read.files import open_regular, read_chunks
from waiver.read.junit import FAIL, PASS, SKIP, read_junit
from waiver.read.replay import Limits
from waiver.read.replays import PROPERTY_REPORT
from waiver.write.escape import log_line
from waiver.write.restore import TrustedHarness, describe_restore, restore_locked_files

JUNIT_PLACEHOLDER = "{junit}"
TICK_SECONDS = 0.25
# After the timeout the command gets SIGTERM, and this long to end before SIGKILL.
GRACE_SECONDS = 5.0


@dataclass(frozen=True)
class ReplayOptions:
    count: int
    out: str
    command: Sequence[str]
    timeout: float | None = None
    properties_first: str | None = None
    harness_from: TrustedHarness | None = None


@dataclass(frozen=True)
class Counts:
    passed: int
    failed: int
    skipped: int

    def __str__(self) -> str:
        return f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped"


@dataclass(frozen=True)
class Run:
    """What one run of a command left behind."""

    label: str
    log: str
    seconds: float
    exit_code: int
    report: str | None  # where its report now is, None when it left none
    counts: Counts | None  # None when there is no readable report
    problem: str | None  # why there is no usable report


def with_junit(command: Sequence[str], junit: str) -> list[str]:
    """The command with every `{junit}` in its arguments replaced by the report path."""
    return [argument.replace(JUNIT_PLACEHOLDER, junit) for argument in command]


def count_cases(path: str) -> Counts:
    """Testcases of a report by outcome; an unreadable report is an input error."""
    tally = {PASS: 0, FAIL: 0, SKIP: 0}

    def sink(_suite: str, _classname: str, _name: str, outcome: int, _retries: int) -> None:
        tally[outcome] += 1

    chunks = read_chunks(open_regular(path, path), Limits().max_report_bytes, path)
    read_junit(chunks, path, sink)
    return Counts(tally[PASS], tally[FAIL], tally[SKIP])


def _kill_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


def _stop(process: subprocess.Popen[bytes]) -> None:
    _kill_group(process, signal.SIGTERM)
    try:
        process.wait(GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        _kill_group(process, signal.SIGKILL)
        process.wait()


def _describe_end(exit_code: int, timed_out: bool, timeout: float | None) -> str | None:
    """Why a run's report must not be used, or None when it may be."""
    if timed_out:
        return f"timed out after {timeout:g} s"
    if exit_code < 0:
        try:
            name = signal.Signals(-exit_code).name
        except ValueError:
            name = f"signal {-exit_code}"
        return f"crashed (killed by {name})"
    return None


class Progress:
    """One line per run, for logs and pipes."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.started = time.monotonic()

    def tick(self, label: str, last: str | None) -> None:
        """Called while a command runs; a log gets nothing."""

    def finished(self, run: Run) -> None:
        print(log_line(f"waiver: {_run_line(run)}"), file=self.stream, flush=True)

    def close(self) -> None:
        """Nothing stays open in a log."""


class LiveProgress(Progress):
    """A status line rewritten in place on a terminal, above it one line per finished run."""

    def tick(self, label: str, last: str | None) -> None:
        elapsed = int(time.monotonic() - self.started)
        line = f"{label} · {elapsed // 60}:{elapsed % 60:02d} elapsed"
        if last is not None:
            line += f" · last replay: {last}"
        self.stream.write(f"\r\x1b[K{line}")
        self.stream.flush()

    def finished(self, run: Run) -> None:
        self.stream.write("\r\x1b[K")
        super().finished(run)

    def close(self) -> None:
        self.stream.write("\r\x1b[K")
        self.stream.flush()


def _run_line(run: Run) -> str:
    took = f"{run.seconds:.1f} s"
    if run.problem is not None:
        kept = "report kept" if run.report else "no report"
        return f"{run.label}: {kept}: {run.problem} ({took}; log {run.log})"
    return f"{run.label}: {run.counts} (exit {run.exit_code}, {took})"


class Runner:
    """Runs commands one at a time with a scratch folder for their reports."""

    def __init__(self, out: str, timeout: float | None, progress: Progress) -> None:
        self.out = out
        self.timeout = timeout
        self.progress = progress
        self.scratch = tempfile.mkdtemp(prefix=".scratch-", dir=out)
        self.last: str | None = None  # the outcome of the last replay, for the status line

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)
        self.progress.close()

    def run(self, label: str, name: str, command: Sequence[str], env: Mapping[str, str]) -> Run:
        """Run `command` once; its report, if it may be used, ends up as `out/<name>.xml`."""
        junit = os.path.abspath(os.path.join(self.scratch, f"{name}.xml"))
        log = os.path.join(self.out, f"{name}.log")
        started = time.monotonic()
        exit_code, timed_out = self._execute(
            label, with_junit(command, junit), {**env, "WAIVER_JUNIT": junit}, log
        )
        seconds = time.monotonic() - started
        problem = _describe_end(exit_code, timed_out, self.timeout)
        report = counts = None
        if problem is None:
            problem = _unusable(junit, exit_code)
        if problem is None:
            report = os.path.join(self.out, f"{name}.xml")
            os.replace(junit, report)
            try:
                counts = count_cases(report)
            except InputError as error:
                problem = error.problem
            else:
                if counts.passed + counts.failed == 0:
                    problem = "ran no test case"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(junit)
        run = Run(label, log, seconds, exit_code, report, counts, problem)
        self.progress.finished(run)
        return run

    def _execute(
        self, label: str, argv: list[str], env: Mapping[str, str], log: str
    ) -> tuple[int, bool]:
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        with open(log, "wb") as output:
            try:
                # A session of its own, so a timeout can end everything the command started.
                process = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=output,
                    stderr=subprocess.STDOUT,
                    env=dict(env),
                    start_new_session=True,
                )
            except OSError as error:
                raise UsageError(f"cannot run {argv[0]!r}: {error.strerror}") from None
            timed_out = False
            try:
                while True:
                    self.progress.tick(label, self.last)
                    try:
                        exit_code = process.wait(TICK_SECONDS)
                        break
                    except subprocess.TimeoutExpired:
                        if deadline is not None and time.monotonic() >= deadline:
                            timed_out = True
                            _stop(process)
            finally:
                # Nothing a replay started may outlive it, or write into the next one.
                _kill_group(process, signal.SIGKILL)
                process.wait()
        return exit_code, timed_out


def _unusable(junit: str, exit_code: int) -> str | None:
    try:
        mode = os.lstat(junit)
    except FileNotFoundError:
        return f"wrote no JUnit report (exit {exit_code})"
    if not stat.S_ISREG(mode.st_mode):
        return f"left something other than a regular file as its report (exit {exit_code})"
    if mode.st_size == 0:
        return f"wrote an empty JUnit report (exit {exit_code})"
    return None


def _prepare(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    if os.listdir(out):
        raise UsageError(
            f"{out} is not empty: waiver replay writes into a new or empty folder, "
            "so that no report of an earlier run can pass for one of this run"
        )


def _check(options: ReplayOptions) -> list[str] | None:
    if options.count < 1:
        raise UsageError(f"-n must be at least 1, got {options.count}")
    if options.timeout is not None and options.timeout <= 0:
        raise UsageError(f"--timeout must be positive, got {options.timeout:g}")
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


def run_replays(options: ReplayOptions, stream: TextIO | None = None) -> int:
    """0 when every replay left a report; 1 when a failed property suite stopped the run.

    A replay that left no usable report is an input error for the gate (exit 2), raised
    only after every replay has run.
    """
    stream = stream or sys.stdout
    properties = _check(options)
    _prepare(options.out)
    if options.harness_from is not None:
        restored = restore_locked_files(options.harness_from)
        print(describe_restore(options.harness_from, restored), file=stream)
    live = stream.isatty() and not os.environ.get("CI")
    runner = Runner(options.out, options.timeout, (LiveProgress if live else Progress)(stream))
    env = dict(os.environ)
    env.pop("WAIVER_REPLAY", None)
    stop = None
    missing: list[int] = []
    try:
        if properties is not None:
            stop = _property_stop(
                runner.run("properties", "properties", properties, env), options.out
            )
        if stop is None:
            for i in range(1, options.count + 1):
                label = f"replay {i} of {options.count}"
                env["WAIVER_REPLAY"] = str(i)
                run = runner.run(label, f"run-{i}", options.command, env)
                runner.last = "no usable report" if run.counts is None else str(run.counts)
                if run.problem is not None:
                    missing.append(i)
    finally:
        runner.close()
    if stop is not None:
        print(stop, file=stream)
        return 1
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
    return 0


def run(args: argparse.Namespace) -> int:
    command: list[str] = args.command
    options = ReplayOptions(
        count=args.count,
        out=args.out,
        command=command[1:] if command[:1] == ["--"] else command,
        timeout=args.timeout,
        properties_first=args.properties_first,
        harness_from=None
        if args.harness_from is None
        else trusted_harness(args, args.harness_from),
    )
    return run_replays(options)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    add_harness_source(parser)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    parser.set_defaults(handler=run)
