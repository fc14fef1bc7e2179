"""`waiver restore-harness`: the trusted commit's locked files and harness in the work tree."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from waiver.errors import EXIT_CLEAR
from waiver.read.policy.policy_file import read_policy
from waiver.read.policy.settings import Flags, effective
from waiver.read.trusted.git import GitRevision
from waiver.runners import policy_harness
from waiver.write.restore import TrustedHarness, describe_restore, restore_locked_files


@dataclass(frozen=True)
class HarnessSource:
    """Where the trusted harness is described: the flags of `add_harness_source`."""

    lock: str
    config: str | None
    root: str


@dataclass(frozen=True)
class RestoreHarnessOptions:
    commit: str  # the trusted commit, --from
    harness: HarnessSource


def trusted_harness(harness: HarnessSource, commit: str) -> TrustedHarness:
    """The revision, lock and policy the harness is restored from."""
    trusted = GitRevision(harness.root, commit)
    policy_file = None if harness.config is None else read_policy(trusted, harness.config)
    settings = effective(policy_file, Flags(), harness.root)
    return TrustedHarness(
        harness.root, trusted, harness.lock, policy_harness(settings.policy, frozenset())
    )


def run(args: argparse.Namespace) -> int:
    options = RestoreHarnessOptions(
        commit=args.source, harness=HarnessSource(args.lock, args.config, args.root)
    )
    source = trusted_harness(options.harness, options.commit)
    print(describe_restore(source, restore_locked_files(source)))
    return EXIT_CLEAR


def add_harness_source(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lock", default="fixture.lock", metavar="FILE", help="the lock (default %(default)s)"
    )
    parser.add_argument(
        "--config", metavar="FILE", help="the policy file, for its harness and fixture globs"
    )
    parser.add_argument("--root", default=".", metavar="DIR", help="repository root")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "restore-harness",
        help="put the files a trusted commit's lock lists, and its test harness, in the work tree",
    )
    parser.add_argument(
        "--from", dest="source", required=True, metavar="COMMIT", help="the trusted commit"
    )
    add_harness_source(parser)
    parser.set_defaults(handler=run)
