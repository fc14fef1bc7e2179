"""`waiver restore-tests`: the trusted commit's test tree in the work tree, before the
verdict replays (`waiver.write.tree.tree_layout`)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from waiver.commands.flags import add_config_flag, add_root_flag
from waiver.errors import EXIT_CLEAR
from waiver.read.policy.policy_file import read_policy
from waiver.read.policy.settings import Flags, effective
from waiver.read.trusted.git import GitRevision
from waiver.runners import policy_harness, runner_named
from waiver.write.tree.restore import TrustedHarness
from waiver.write.tree.tree_layout import TrustedTests, describe_tests, plan_of, restore_tests


@dataclass(frozen=True)
class TestsSource:
    """Where the trusted test tree is described: the flags of `add_tests_source`."""

    __test__ = False  # not a pytest test class, despite its name

    lock: str
    config: str | None
    root: str


def trusted_tests(source: TestsSource, commit: str) -> TrustedTests:
    """The revision, lock, policy and runner the test tree is laid out from."""
    trusted = GitRevision(source.root, commit)
    policy_file = None if source.config is None else read_policy(trusted, source.config)
    settings = effective(policy_file, Flags(), source.root)
    runner = runner_named(settings.policy.runner)
    harness = policy_harness(settings.policy, frozenset())
    return TrustedTests(
        TrustedHarness(source.root, trusted, source.lock, harness), runner.test_tree
    )


def run(args: argparse.Namespace) -> int:
    source = trusted_tests(TestsSource(args.lock, args.config, args.root), args.source)
    plan = plan_of(source)
    print(describe_tests(source, restore_tests(source, plan), plan))
    return EXIT_CLEAR


def add_tests_source(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lock", default="fixture.lock", metavar="FILE", help="the lock (default %(default)s)"
    )
    add_config_flag(parser, "its runner and its harness and fixture globs")
    add_root_flag(parser)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "restore-tests",
        help="lay out a trusted commit's test tree in the work tree: its test files, test "
        "data, harness and locked files, and none of the change's own",
    )
    parser.add_argument(
        "--from", dest="source", required=True, metavar="COMMIT", help="the trusted commit"
    )
    add_tests_source(parser)
    parser.set_defaults(handler=run)
