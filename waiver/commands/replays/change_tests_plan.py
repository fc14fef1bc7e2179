"""`waiver change-tests-plan`: which of the change's tests run apart from the verdict replays,
and the tree to replay its new and edited tests on the base's code, from files alone.

The reusable workflow runs it in waiver's image twice: in the property job, to learn
whether the change's tests need a job at all and how many shards of it, and in each of
those jobs, to write its shard's runs: the change's test files, each run whole on the
change's own tree (DIR/change/), and the new and edited tests to replay on the base's code
(DIR/modules/, and with --lay-out the tree they run in, DIR/tree), and the runner's own
command for listed tests (DIR/command.txt). The plan is read from
the two commits (`waiver.gate.change_plan`); nothing of the change runs, and the work tree
is not read.
"""

from __future__ import annotations

import argparse
import os

from waiver.commands.flags import add_root_flag
from waiver.commands.replays.red_green import (
    by_file,
    name_pattern,
    parse_shard,
    shard_of,
    write_ids,
)
from waiver.commands.support import base_settings, full_commit, new_folder
from waiver.errors import EXIT_CLEAR
from waiver.gate.change_plan import change_plan
from waiver.replay.red_green_tree import lay_out
from waiver.runners import policy_harness, runner_named
from waiver.runners.base import Runner
from waiver.write.words.escape import log_line

CANDIDATES_FILE = "candidates.txt"
FILES_FILE = "files.txt"
# The runner's own command for listed tests, as `waiver init` writes it: what runs the
# change's test files when the workflow is given none.
COMMAND_FILE = "command.txt"
MODULES_FOLDER = "modules"
CHANGE_FOLDER = "change"
TREE_FOLDER = "tree"
# What a runner's name filter is given to run every test of a file: any name matches.
EVERY_NAME = ".*"


def write_modules(folder: str, ids: list[str], runner: Runner) -> None:
    """One file of ids per test file (or per part of a file of very many, `by_file`),
    `1.txt`, `2.txt`, ...: the command runs each apart, since a module that fails to be
    collected on the base (it imports what the base lacks) stops a run of explicit ids, and
    must not keep the other modules' tests from running. Beside each, `<k>.file` names the
    test file and `<k>.pattern` matches its tests' names, for a runner that selects tests by
    name (`name_pattern`)."""
    os.mkdir(folder)
    for number, (path, group) in enumerate(by_file(runner, ids), start=1):
        stem = os.path.join(folder, str(number))
        write_ids(f"{stem}.txt", group)
        write_ids(f"{stem}.file", [path])
        write_ids(f"{stem}.pattern", [name_pattern(runner, group)])


def write_change_files(folder: str, files: list[str], shard: tuple[int, int]) -> list[str]:
    """This shard's test files of the change, each run whole: `<j>.txt` holds the file (a
    node id that names every test in it, for pytest), `<j>.file` names it and `<j>.pattern`
    matches every name, where `j` is the file's place among all of them (so that every
    shard's reports have names of their own). The files written, in order."""
    os.mkdir(folder)
    number, count = shard
    mine = []
    for place, path in enumerate(files, start=1):
        if (place - number) % count:
            continue
        stem = os.path.join(folder, str(place))
        write_ids(f"{stem}.txt", [path])
        write_ids(f"{stem}.file", [path])
        write_ids(f"{stem}.pattern", [EVERY_NAME])
        mine.append(path)
    return mine


def run(args: argparse.Namespace) -> int:
    full_commit("--trusted-ref", args.trusted_ref)
    shard = parse_shard(args.shard)
    new_folder(args.out, "change-tests-plan")
    revision, settings = base_settings(args.root, args.trusted_ref, args.config, args.known_tests)
    plan = change_plan(revision, settings, args.root)
    if settings.registry is None:
        print(
            "waiver: no known-tests registry tells a new test from a known one, so none of the "
            "change's tests runs apart"
        )
    # What the test command is given: an id that reads as an option never is (its row is
    # then not run, as `waiver red-green` says).
    runnable = [t for t in shard_of(plan.red_green, shard) if not t.startswith("-")]
    write_ids(os.path.join(args.out, CANDIDATES_FILE), plan.red_green)
    write_ids(os.path.join(args.out, FILES_FILE), plan.files)
    runner = runner_named(settings.policy.runner)
    write_ids(os.path.join(args.out, COMMAND_FILE), [runner.red_green_command()])
    write_modules(os.path.join(args.out, MODULES_FOLDER), runnable, runner)
    mine = write_change_files(os.path.join(args.out, CHANGE_FOLDER), plan.files, shard)
    print(
        log_line(
            f"waiver: {len(plan.files)} test files of the change run apart on its tree, "
            f"{len(mine)} of them in shard {shard[0]} of {shard[1]}; {len(plan.red_green)} new "
            f"or edited tests need red-green replays, {len(runnable)} of them in this shard"
        )
    )
    if args.lay_out and runnable:
        tree = os.path.join(args.out, TREE_FOLDER)
        os.mkdir(tree)
        modules = frozenset(test_id.partition("::")[0] for test_id in runnable)
        harness = policy_harness(settings.policy, frozenset())
        for path in lay_out(revision.committed(), modules, tree, harness):
            print(log_line(f"waiver: the change's {path} laid over the base"))
    return EXIT_CLEAR


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "change-tests-plan",
        help="list the change's tests that run apart from the verdict replays, from files alone",
        description="Read from the two commits: DIR/files.txt holds the change's test files "
        "(every file the base's runner would collect that the change adds or edits, and the "
        "file of each new or edited test), one a line, DIR/change/<j>.* this shard's, each to "
        "run whole on the change's tree; DIR/candidates.txt holds the ids the change's "
        "registry adds to the trusted one and the registered ids whose definition it edited, "
        "DIR/modules/<k>.* this shard's, a file per test module, to replay on the base's code "
        "(red-green); with --lay-out, DIR/tree the base's files with the change's test files "
        "over them, for those replays.",
    )
    parser.add_argument(
        "--trusted-ref", required=True, metavar="COMMIT", help="the base's full commit id"
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="a new or empty folder")
    parser.add_argument(
        "--known-tests", metavar="FILE", help="the registry (default: the policy's)"
    )
    parser.add_argument("--config", metavar="FILE", help="the policy file, read from the base")
    parser.add_argument(
        "--shard",
        default="1/1",
        metavar="K/M",
        help="DIR/change and DIR/modules hold the K-th of M shards",
    )
    parser.add_argument(
        "--lay-out",
        action="store_true",
        help="also write DIR/tree, where this shard's red-green tests are replayed on the "
        "base's code",
    )
    add_root_flag(parser)
    parser.set_defaults(handler=run)
