"""`waiver change-tests`: replay the change's new and edited tests on its own tree, N times,
apart from the verdict replays.

The verdict replays run the base's test tree against the change's code (`waiver replay
--tests-from`), so the change's own test files run here, in the work tree as the change
left it: each test file of the plan (`waiver.gate.change_plan`) whole, once per replay,
its report at `DIR/run-<r>/file-<j>.xml`. The gate reads the folder with `--change-tests`:
the reports only ever give `unknown_test` rows (new, edited, deleted), for review. The
reusable workflow's change's-tests job runs the same plan (`waiver change-tests-plan`) with
its shell. A red test is data: the command's exit code does not stop the loop.
"""

from __future__ import annotations

import argparse
import os
import sys
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
from waiver.commands.replays.change_tests_plan import EVERY_NAME
from waiver.commands.replays.red_green import with_tests, write_ids
from waiver.commands.support import base_settings, full_commit, new_folder
from waiver.errors import EXIT_CLEAR, UsageError
from waiver.gate.change_plan import change_plan
from waiver.replay.command_run import CommandRunner, Progress
from waiver.runners import runner_named
from waiver.runners.pytest import PYTEST
from waiver.write.words.escape import log_line


@dataclass(frozen=True)
class ChangeTestsOptions:
    base: str
    count: int
    out: str
    command: Sequence[str]
    root: str = "."
    timeout: float | None = None
    config: str | None = None  # the policy file, read from the base: its runner
    known_tests: str | None = None


def run_change_tests(options: ChangeTestsOptions, stream: TextIO | None = None) -> int:
    stream = stream or sys.stdout
    full_commit("--base", options.base)
    if not options.command:
        raise UsageError("give the test command after --")
    new_folder(options.out, "change-tests")
    revision, settings = base_settings(
        options.root, options.base, options.config, options.known_tests
    )
    runner = runner_named(settings.policy.runner)
    files = change_plan(revision, settings, options.root).files
    out = os.path.abspath(options.out)
    replays = CommandRunner(out, options.timeout, Progress(stream))
    env = dict(os.environ)
    try:
        for number in range(1, options.count + 1):
            env["WAIVER_REPLAY"] = str(number)
            os.makedirs(os.path.join(out, f"run-{number}"))
            os.makedirs(os.path.join(replays.scratch, f"run-{number}"))
            for place, path in enumerate(files, start=1):
                listed = os.path.join(replays.scratch, f"tests-{place}.txt")
                write_ids(listed, [path])
                named = {**env, "WAIVER_TESTS": listed, "WAIVER_TEST_FILE": path}
                named["WAIVER_TEST_PATTERN"] = EVERY_NAME
                command = (
                    with_tests(options.command, [path]) if runner is PYTEST else options.command
                )
                label = f"the change's tests, replay {number} of {options.count}, {path}"
                replays.run(label, f"run-{number}/file-{place}", list(command), named)
    finally:
        replays.close()
    said = f"waiver: {len(files)} test files of the change replayed {options.count} times"
    print(log_line(f"{said} on its tree; reports in {options.out}"), file=stream)
    return EXIT_CLEAR


def run(args: argparse.Namespace) -> int:
    options = options_of(ChangeTestsOptions, args, command=command_of(args.command))
    return run_change_tests(options)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "change-tests",
        help="replay the change's new and edited tests on its own tree, apart from the verdict",
        description="The change's test files (`waiver change-tests-plan`), each run whole in "
        "the work tree N times: for pytest the file is given to the command ({tests} in it, or "
        "appended); for jest, vitest and mocha $WAIVER_TEST_FILE names it and "
        "$WAIVER_TEST_PATTERN matches every name. {junit} and $WAIVER_JUNIT name each report, "
        "DIR/run-<r>/file-<j>.xml, which `waiver gate --change-tests DIR` reads.",
    )
    parser.add_argument("--base", required=True, metavar="COMMIT", help="the base's full commit id")
    add_replay_flags(parser)
    parser.add_argument(
        "--known-tests", metavar="FILE", help="the registry (default: the policy's)"
    )
    parser.add_argument(
        "--config", metavar="FILE", help="the policy file, read from the base: its runner"
    )
    add_root_flag(parser)
    add_command_flags(parser, "per run")
    parser.set_defaults(handler=run)
