"""`waiver check-lock`: whether the fixtures and the test harness still match the lock.

The check the gate makes, made before any replay runs, so that a change whose verdict
drift already decides costs no replays. It reads the lock and the policy file like the
gate (from `--trusted-ref` when given), hashes the working tree, runs none of the
change's code and writes nothing.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TextIO

from waiver.commands.flags import add_config_flag, add_pattern_flag, add_root_flag
from waiver.errors import EXIT_BLOCKED, EXIT_CLEAR
from waiver.read.harness.named import property_modules
from waiver.read.junit.replay_reports import read_single
from waiver.read.junit.testid import TestIdRule
from waiver.read.lock.drift import Fixtures, LockPaths, read_fixtures
from waiver.read.policy.policy_file import read_policy
from waiver.read.policy.settings import Flags, effective
from waiver.read.trusted.git import GitRevision
from waiver.read.trusted.protected import FromWorkingTree, ProtectedFiles
from waiver.runners import policy_harness
from waiver.write.words.drift_lines import render_lock_check
from waiver.write.words.escape import log_line
from waiver.write.words.terminal import WORKING_TREE


@dataclass(frozen=True)
class LockCheck:
    """What a lock check reads: the paths, the fixture globs, the policy file and the
    trusted revision (None for the working tree), and the property report, whose modules
    the gate locks with the harness."""

    paths: LockPaths
    patterns: tuple[str, ...] = ()
    config: str | None = None
    trusted_ref: str | None = None
    properties: str | None = None


def check_lock(check: LockCheck) -> tuple[Fixtures, ProtectedFiles]:
    """The gate's comparison of the trusted lock with the working tree, and where the lock
    was read from."""
    root = check.paths.root
    protected: ProtectedFiles = (
        FromWorkingTree() if check.trusted_ref is None else GitRevision(root, check.trusted_ref)
    )
    policy_file = None if check.config is None else read_policy(protected, check.config)
    settings = effective(policy_file, Flags(fixtures=check.patterns or None), root)
    modules: frozenset[str] = frozenset()
    if check.properties is not None:
        report = read_single(check.properties, TestIdRule(root), settings.limits)
        modules = settings.locked_property_modules(property_modules(report.ids))
    return read_fixtures(check.paths, settings, protected, modules, policy_harness), protected


def print_lock_check(fixtures: Fixtures, protected: ProtectedFiles, stream: TextIO) -> None:
    print(render_lock_check(fixtures, protected.description), end="", file=stream)
    if protected.revision is None:
        print(log_line(WORKING_TREE), file=stream)


def run(args: argparse.Namespace) -> int:
    options = LockCheck(
        paths=LockPaths(args.root, args.fixtures, args.lock),
        patterns=tuple(args.pattern),
        config=args.config,
        trusted_ref=args.trusted_ref,
        properties=args.properties,
    )
    fixtures, protected = check_lock(options)
    print_lock_check(fixtures, protected, sys.stdout)
    return EXIT_BLOCKED if fixtures.drifted else EXIT_CLEAR


def add_drift_flags(parser: argparse.ArgumentParser) -> None:
    """The lock check's flags besides --lock, --fixtures, --config and --root."""
    add_pattern_flag(parser)
    parser.add_argument(
        "--trusted-ref",
        metavar="COMMIT",
        help="read the lock and the policy file from this commit (its full 40- or 64-hex id)",
    )


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "check-lock",
        help="check the fixtures and the test harness against the lock, as the gate does",
        description="Exit 0 when nothing drifted, 1 on drift (one line per drifted file), "
        "2 on a usage or input error.",
    )
    parser.add_argument(
        "--lock", required=True, metavar="FILE", help="the sha256sum-format fixture lock"
    )
    parser.add_argument(
        "--fixtures", required=True, metavar="DIR", help="the fixture folder the lock protects"
    )
    add_drift_flags(parser)
    add_config_flag(parser, "its fixtures, bindings and harness globs")
    parser.add_argument(
        "--properties",
        metavar="FILE",
        help="the property suite's JUnit file: the modules it names are locked with the "
        "harness, as the gate locks them",
    )
    add_root_flag(parser)
    parser.set_defaults(handler=run)
