"""`waiver red-green`: replay new or edited tests on the trusted base's code, with the
change's test files, N times, and write what each did there.

The base commit's files are written, from git blobs, into a scratch folder; over them go
the files the change's commit (HEAD) adds or edits in its test code (test modules, test
helpers and their data under the test folders), except the harness, which stays the
base's as in every replay (`conftest.py`, pytest's configuration, modules that shadow
pytest, the policy's runner's files). The packages installed in the work tree, which git
does not track, are the folder's too: each `node_modules` beside a package.json of the base
is linked in, so that a JavaScript runner starts where a developer runs the command. The
command then runs there N times on the given test ids only, one JUnit report per replay
(for jest, vitest and mocha, which select tests by name, once per test file with the file
and a pattern of its tests' names), and `red-green.json` says per test how many base
replays it passed, of how many gave it an outcome. A replay in which collecting the test's
module failed (say an import of a name the base lacks) counts as failed: the test is red on
the base. The gate reads the file with `--red-green` and sets it beside each new or edited
row.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from waiver.commands.flags import (
    add_command_flags,
    add_replay_flags,
    add_root_flag,
    command_of,
    options_of,
)
from waiver.commands.support import full_commit, new_folder
from waiver.decide.policy import Policy
from waiver.errors import EXIT_CLEAR, InputError, UsageError
from waiver.read.evidence.red_green_file import FORMAT, OUTCOMES_FILE
from waiver.read.evidence.red_green_ids import checked_ids, read_tests_file, tests_from_report
from waiver.read.evidence.red_green_replays import Seen, read_replay, read_replayed, tally
from waiver.read.harness.named import Harness
from waiver.read.policy.policy_file import read_policy
from waiver.read.trusted.git import GitRevision
from waiver.read.trusted.protected import Committed
from waiver.replay.command_run import CommandRunner, Progress, Run
from waiver.replay.red_green_tree import lay_out, link_installs
from waiver.runners import policy_harness, runner_named
from waiver.runners.base import Runner as TestRunner
from waiver.runners.pytest import PYTEST
from waiver.write.words.escape import log_line

TESTS_PLACEHOLDER = "{tests}"
# The most a run's name pattern holds, well under Linux's 128 KiB for one argument or one
# environment variable, past which the command could not even start.
PATTERN_BYTES = 64 << 10


@dataclass(frozen=True)
class RedGreenOptions:
    base: str
    count: int
    out: str
    tests: tuple[str, ...]
    command: Sequence[str]
    root: str = "."
    timeout: float | None = None
    shard: tuple[int, int] = (1, 1)  # this shard's number, and how many there are
    # Where another process already ran the replays (run-<n>.xml): read them, run nothing.
    replayed: str | None = None
    config: str | None = None  # the policy file, read from the base: its runner


def parse_shard(text: str) -> tuple[int, int]:
    """`K/M`: the K-th of M shards, 1 ≤ K ≤ M."""
    number, _, count = text.partition("/")
    try:
        shard = (int(number), int(count))
    except ValueError:
        shard = (0, 0)
    if not 1 <= shard[0] <= shard[1]:
        raise UsageError(f"--shard {text}: expected K/M with 1 ≤ K ≤ M")
    return shard


def shard_of(tests: Sequence[str], shard: tuple[int, int]) -> tuple[str, ...]:
    """The tests of one shard: every M-th, from the K-th, of the ids sorted."""
    number, count = shard
    return tuple(sorted(tests)[number - 1 :: count])


def check_options(options: RedGreenOptions) -> None:
    full_commit("--base", options.base)
    if options.replayed is not None:
        if options.command:
            raise UsageError("--replayed reads replays already run: give no command")
    elif not options.command:
        raise UsageError("give the test command after --")
    new_folder(options.out, "red-green")


def by_file(runner: TestRunner, ids: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The ids of each test file, in their order, in runs whose name pattern stays under
    PATTERN_BYTES: a file with thousands of new tests is run in several parts."""
    files: dict[str, list[list[str]]] = {}
    sizes: dict[str, int] = {}
    for test_id in ids:
        path = test_id.partition("::")[0]
        size = len(re.escape(runner.title(test_id)).encode("utf-8")) + 1
        parts = files.setdefault(path, [[]])
        if parts[-1] and sizes[path] + size > PATTERN_BYTES:
            parts.append([])
            sizes[path] = 0
        parts[-1].append(test_id)
        sizes[path] = sizes.get(path, 0) + size
    return [(path, part) for path, parts in files.items() for part in parts]


def name_pattern(runner: TestRunner, ids: Sequence[str]) -> str:
    """A regular expression that matches exactly these tests' names as the runner's own name
    filter reads them (`^(?:name|name)$`), each escaped, so that a `(`, `[` or `?` in a
    name means itself; JavaScript reads Python's escapes alike."""
    return "^(?:" + "|".join(re.escape(runner.title(test_id)) for test_id in ids) + ")$"


def with_tests(command: Sequence[str], tests: Sequence[str]) -> list[str]:
    """`{tests}` as its own argument becomes the test ids; without one they go last."""
    if TESTS_PLACEHOLDER not in command:
        return [*command, *tests]
    found: list[str] = []
    for argument in command:
        found += list(tests) if argument == TESTS_PLACEHOLDER else [argument]
    return found


def run_red_green(options: RedGreenOptions, stream: TextIO | None = None) -> int:
    stream = stream or sys.stdout
    check_options(options)
    out = os.path.abspath(options.out)
    revision = GitRevision(options.root, options.base)
    committed = revision.committed()
    policy = Policy() if options.config is None else read_policy(revision, options.config).policy
    runner = runner_named(policy.runner)
    tests = shard_of(tuple(dict.fromkeys(options.tests)), options.shard)
    document: dict[str, object] = {
        "format": FORMAT,
        "version": 1,
        "base": revision.commit,
        # The commit people review: a merge ref's head, which a later merge ref keeps.
        "head": committed.merged_head or committed.head_commit,
        "replays": options.count,
        "shard": f"{options.shard[0]}/{options.shard[1]}",
        "tests": len(tests),
    }
    # An id is untrusted text (a report of the change named it): one that reads as an
    # option of the command is never passed to it.
    runnable = tuple(test_id for test_id in tests if not test_id.startswith("-"))
    replays: list[Seen | str] = []
    if runnable and options.replayed is not None:
        rule = runner.test_ids(options.root)
        replays = read_replayed(
            options.replayed, options.count, runnable, rule, runner.load_failure
        )
    elif runnable:
        harness = policy_harness(policy, frozenset())
        replays = _replay(options, committed, runner, harness, runnable, out, stream, document)
    rows = tally(runnable, replays, options.count)
    rows += [
        {
            "test_id": test_id,
            "base_pass": 0,
            "base_total": 0,
            "errored": 0,
            "result": "not_run",
            "why": "an id that starts with - is not passed to the command",
        }
        for test_id in tests
        if test_id not in runnable
    ]
    document["rows"] = rows
    _write(os.path.join(out, OUTCOMES_FILE), document)
    for row in rows:
        line = (
            f"waiver: {row['test_id']}: on the base {row['base_pass']} of "
            f"{row['base_total']} passed: {row['result']}"
        )
        print(log_line(line), file=stream)
    where = os.path.join(options.out, OUTCOMES_FILE)
    print(log_line(f"waiver: red-green outcomes in {where}"), file=stream)
    return EXIT_CLEAR


def _replay(
    options: RedGreenOptions,
    committed: Committed,
    test_runner: TestRunner,
    harness: Harness,
    tests: Sequence[str],
    out: str,
    stream: TextIO,
    document: dict[str, object],
) -> list[Seen | str]:
    folder = tempfile.mkdtemp(prefix="waiver-red-green-")
    modules = frozenset(test_id.partition("::")[0] for test_id in tests)
    runner = CommandRunner(out, options.timeout, Progress(stream))
    here = os.getcwd()
    replays: list[Seen | str] = []
    try:
        document["laid_over"] = lay_out(committed, modules, folder, harness)
        document["linked"] = _linked(options.root, committed, folder, test_runner, stream)
        env = dict(os.environ)
        os.chdir(folder)
        for number in range(1, options.count + 1):
            env["WAIVER_REPLAY"] = str(number)
            if test_runner is PYTEST:
                replays.append(_one_replay(options, runner, number, tests, folder, env))
            else:
                replays.append(_by_name(options, runner, test_runner, number, tests, env))
    finally:
        os.chdir(here)
        runner.close()
        shutil.rmtree(folder, ignore_errors=True)
    return replays


def _linked(
    root: str, committed: Committed, folder: str, test_runner: TestRunner, stream: TextIO
) -> list[str]:
    """The work tree's installed packages linked into the scratch folder, as said."""
    linked = link_installs(committed, root, folder)
    for place in linked:
        print(
            log_line(f"waiver: the work tree's {place} linked into the replays' folder"),
            file=stream,
        )
    if not linked and test_runner is not PYTEST:
        print(
            log_line(
                f"waiver: no node_modules beside a package.json of the base in {root}: "
                "install the project's packages there first, or the runner cannot start"
            ),
            file=stream,
        )
    return linked


def _by_name(
    options: RedGreenOptions,
    runner: CommandRunner,
    test_runner: TestRunner,
    number: int,
    tests: Sequence[str],
    env: dict[str, str],
) -> Seen | str:
    """One replay for a runner that selects tests by name: the command once per test file,
    given the file, the name pattern and the ids (`WAIVER_TEST_FILE`, `WAIVER_TEST_PATTERN`,
    `WAIVER_TESTS`), as the reusable workflow's red-green job gives them."""
    seen = Seen({}, set())
    label = f"red-green replay {number} of {options.count}"
    for part, (path, ids) in enumerate(by_file(test_runner, tests), start=1):
        listed = os.path.join(os.getcwd(), f".waiver-tests-{part}.txt")
        write_ids(listed, ids)
        named = {**env, "WAIVER_TESTS": listed, "WAIVER_TEST_FILE": path}
        named["WAIVER_TEST_PATTERN"] = name_pattern(test_runner, ids)
        run = runner.run(label, f"run-{number}-{part}", list(options.command), named)
        found = _read_run(run, ids, test_runner, os.getcwd())
        if isinstance(found, str):
            return found
        seen.take(found)
    return seen


def _one_replay(
    options: RedGreenOptions,
    runner: CommandRunner,
    number: int,
    tests: Sequence[str],
    folder: str,
    env: dict[str, str],
) -> Seen | str:
    """One replay of the tests. A module that fails to be collected stops a pytest session
    (unless it was given `--continue-on-collection-errors`), so the tests it kept from
    running are run again, in the same replay, without that module."""
    seen = Seen({}, set())
    pending = list(tests)
    for attempt in range(1, len(tests) + 1):
        label = f"red-green replay {number} of {options.count}"
        name = f"run-{number}" if attempt == 1 else f"run-{number}-{attempt}"
        run = runner.run(label, name, with_tests(options.command, pending), env)
        found = _read_run(run, pending, PYTEST, folder)
        if isinstance(found, str):
            return found
        seen.take(found)
        left = [t for t in pending if t not in seen.outcomes and t not in seen.errored]
        if not found.errored or not left or len(left) == len(pending):
            break
        pending = left
    return seen


def _read_run(run: Run, ids: Sequence[str], test_runner: TestRunner, folder: str) -> Seen | str:
    """What one run's report says of `ids`, read with the runner's ids from `folder`; why
    the run left no usable report otherwise."""
    if run.report is None:
        return f"left no usable report: {run.problem}"
    rule = test_runner.test_ids(folder)
    try:
        return read_replay(run.report, ids, rule, test_runner.load_failure)
    except InputError as error:
        return f"left an unreadable report: {error.problem}"


def write_ids(path: str, ids: Sequence[str]) -> None:
    """Test ids, one a line, as the test commands read them (`$WAIVER_TESTS`)."""
    with open(path, "w", encoding="utf-8") as output:
        output.writelines(f"{test_id}\n" for test_id in ids)


def _write(path: str, document: dict[str, object]) -> None:
    scratch = path + ".partial"
    with open(scratch, "w", encoding="utf-8") as output:
        json.dump(document, output, indent=2)
        output.write("\n")
    os.replace(scratch, path)


def run(args: argparse.Namespace) -> int:
    tests = checked_ids(list(args.test), "--test")
    if args.tests is not None:
        tests += read_tests_file(args.tests)
    if args.from_report is not None:
        tests += tests_from_report(args.from_report)
    options = options_of(
        RedGreenOptions,
        args,
        tests=tuple(tests),
        command=command_of(args.command),
        shard=parse_shard(args.shard),
    )
    return run_red_green(options)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "red-green",
        help="replay new or edited tests on the base's code with the change's test files",
        description="The base commit's files, with the test code the change's commit adds "
        "or edits laid over them (the harness stays the base's), in a scratch folder; the "
        "command runs there N times on the given test ids ({tests} in it, or appended), "
        "{junit} naming each report; DIR/red-green.json says what each test did.",
    )
    parser.add_argument("--base", required=True, metavar="COMMIT", help="the base's full commit id")
    add_replay_flags(parser)
    parser.add_argument("--test", action="append", default=[], metavar="ID", help="a test id")
    parser.add_argument("--tests", metavar="FILE", help="test ids, one a line")
    parser.add_argument(
        "--from-report",
        metavar="FILE",
        help="a waiver.json: its new and edited tests that passed every replay",
    )
    parser.add_argument(
        "--shard",
        default="1/1",
        metavar="K/M",
        help="replay only the K-th of M shards of the tests (the gate takes each shard's file)",
    )
    parser.add_argument(
        "--replayed",
        metavar="DIR",
        help="run no command: read the replays already run, DIR/run-<n>/*.xml, on the tree "
        "`waiver change-tests-plan --lay-out` wrote (the reusable workflow's red-green job)",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="the policy file, read from the base: its runner reads the reports, and a runner "
        "that selects tests by name (jest, vitest, mocha) is run once per test file, given "
        "$WAIVER_TEST_FILE and $WAIVER_TEST_PATTERN instead of the ids",
    )
    add_root_flag(parser)
    add_command_flags(parser, "per replay")
    parser.set_defaults(handler=run)
