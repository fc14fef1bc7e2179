"""`waiver red-green-plan`: which tests of the change need red-green replays, and the tree
to replay them in, from files alone.

The reusable workflow runs it in waiver's image twice: in the property job, to learn
whether a red-green job is needed at all, and in each red-green job, to write its shard's
ids and the tree (the base's files with the change's test files over them) that the test
command then runs in. `waiver red-green --replayed` reads what those replays wrote. The
ids are read from the two commits (`waiver.gate.red_green_tests`); nothing of the change
runs, and the work tree is not read.
"""

from __future__ import annotations

import argparse
import os

from waiver.commands.red_green import by_file, name_pattern, parse_shard, shard_of, write_ids
from waiver.errors import EXIT_CLEAR, UsageError
from waiver.gate.red_green_tests import red_green_tests
from waiver.read.policy.policy_file import read_policy
from waiver.read.policy.settings import Flags, effective
from waiver.read.trusted.git import COMMIT_ID, GitRevision
from waiver.replay.red_green_tree import lay_out
from waiver.runners import policy_harness, runner_named
from waiver.runners.base import Runner
from waiver.write.escape import log_line

CANDIDATES_FILE = "candidates.txt"
MODULES_FOLDER = "modules"
TREE_FOLDER = "tree"


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


def run(args: argparse.Namespace) -> int:
    if not COMMIT_ID.fullmatch(args.trusted_ref):
        raise UsageError(
            f"--trusted-ref {args.trusted_ref}: give the base's full commit id (a branch, tag "
            "or short id is refused)"
        )
    shard = parse_shard(args.shard)
    os.makedirs(args.out, exist_ok=True)
    if os.listdir(args.out):
        raise UsageError(f"{args.out} is not empty: waiver red-green-plan writes into a new folder")
    revision = GitRevision(args.root, args.trusted_ref)
    policy_file = None if args.config is None else read_policy(revision, args.config)
    settings = effective(policy_file, Flags(registry=args.known_tests), args.root)
    candidates = red_green_tests(revision, settings, args.root)
    # What the test command is given: an id that reads as an option never is (its row is
    # then not run, as `waiver red-green` says).
    runnable = [t for t in shard_of(candidates, shard) if not t.startswith("-")]
    write_ids(os.path.join(args.out, CANDIDATES_FILE), candidates)
    runner = runner_named(settings.policy.runner)
    write_modules(os.path.join(args.out, MODULES_FOLDER), runnable, runner)
    print(
        log_line(
            f"waiver: {len(candidates)} new or edited tests need red-green replays, "
            f"{len(runnable)} of them in shard {shard[0]} of {shard[1]}"
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
        "red-green-plan",
        help="list the new and edited tests that need red-green replays, from files alone",
        description="The ids the change's registry adds to the trusted one and the registered "
        "ids whose definition the change edited, read from the two commits: DIR/candidates.txt "
        "holds them all, one a line, DIR/modules/<k>.txt this shard's, a file per test module; with --lay-out, DIR/tree the "
        "base's files with the change's test files over them, for the test command to run in.",
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
        "--shard", default="1/1", metavar="K/M", help="DIR/modules holds the K-th of M shards"
    )
    parser.add_argument(
        "--lay-out",
        action="store_true",
        help="also write DIR/tree, where this shard's tests are replayed on the base's code",
    )
    parser.add_argument("--root", default=".", help="the repository folder (default: .)")
    parser.set_defaults(handler=run)
