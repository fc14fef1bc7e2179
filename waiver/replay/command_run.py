"""Run a test command once, with a scratch path for its JUnit report.

The report is moved into place only when the command left a non-empty regular file and
neither crashed (died by a signal) nor ran out of time; otherwise the run has no report,
and says why. Nothing a run started may outlive it.

Every run gets `PYTHONPYCACHEPREFIX`, a folder made empty for this runner outside the
tree: Python then neither reads nor writes a `__pycache__` beside a source, so bytecode
the change committed there is never run in place of the source the lock hashes.
(`PYTHONDONTWRITEBYTECODE` alone would not do: it stops writing, not reading.)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TextIO

from waiver.errors import InputError, UsageError
from waiver.read.junit.replay_reports import Limits
from waiver.read.junit.stream import FAIL, PASS, SKIP, read_junit
from waiver.read.untrusted.files import open_regular, read_chunks
from waiver.write.words.escape import log_line

JUNIT_PLACEHOLDER = "{junit}"
TICK_SECONDS = 0.25
# After the timeout the command gets SIGTERM, and this long to end before SIGKILL.
GRACE_SECONDS = 5.0


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

    def sink(
        _suite: str, _classname: str, _name: str, outcome: int, _retries: int, _message: str
    ) -> None:
        tally[outcome] += 1

    chunks = read_chunks(open_regular(path, path), Limits().max_report_bytes, path)
    read_junit(chunks, path, sink)
    return Counts(tally[PASS], tally[FAIL], tally[SKIP])


class Stopped(Exception):
    """waiver was sent a signal that ends it (SIGTERM, SIGINT, SIGHUP) while a command ran."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within the block, a stop signal raises `Stopped`, so that the `finally` of a running
    command ends its process group instead of leaving it orphaned: the commands run in
    sessions of their own, so neither Ctrl-C at the terminal nor a SIGTERM sent to waiver
    reaches them. Outside the main thread nothing changes (Python delivers signals there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_stopped(signum: int, _frame: object) -> None:
        raise Stopped(signum)

    previous = {sig: signal.signal(sig, raise_stopped) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


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


class CommandRunner:
    """Runs commands one at a time with a scratch folder for their reports."""

    def __init__(self, out: str, timeout: float | None, progress: Progress) -> None:
        self.out = out
        self.timeout = timeout
        self.progress = progress
        self.scratch = tempfile.mkdtemp(prefix=".scratch-", dir=out)
        self.bytecode = tempfile.mkdtemp(prefix="waiver-pycache-")
        self.last: str | None = None  # the outcome of the last replay, for the status line

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)
        shutil.rmtree(self.bytecode, ignore_errors=True)
        self.progress.close()

    def run(self, label: str, name: str, command: Sequence[str], env: Mapping[str, str]) -> Run:
        """Run `command` once; its report, if it may be used, ends up as `out/<name>.xml`."""
        junit = os.path.abspath(os.path.join(self.scratch, f"{name}.xml"))
        log = os.path.join(self.out, f"{name}.log")
        started = time.monotonic()
        env = {**env, "WAIVER_JUNIT": junit, "PYTHONPYCACHEPREFIX": self.bytecode}
        exit_code, timed_out = self._execute(label, with_junit(command, junit), env, log)
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
            except Stopped:
                # waiver itself was told to stop: the command's group is ended the same way,
                # and a second signal during the grace ends it at once (below).
                _stop(process)
                raise
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
