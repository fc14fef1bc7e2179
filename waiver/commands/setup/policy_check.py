"""`waiver policy --check`: a policy file's effective values, or the key that is wrong."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from waiver.errors import EXIT_CLEAR
from waiver.read.policy.policy_file import read_policy
from waiver.read.policy.settings import Flags, effective
from waiver.read.trusted.protected import FromWorkingTree
from waiver.write.report.report import policy_json, render_json
from waiver.write.words.escape import runner_inert_json


@dataclass(frozen=True)
class PolicyOptions:
    check: str  # the policy file to validate


def run(args: argparse.Namespace) -> int:
    """Print the effective values of a valid policy file, with where each came from."""
    options = PolicyOptions(check=args.check)
    settings = effective(read_policy(FromWorkingTree(), options.check), Flags(), ".")
    print(runner_inert_json(render_json(policy_json(settings))), end="")
    return EXIT_CLEAR


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("policy", help="validate a policy file (waiver.yml)")
    parser.add_argument(
        "--check", required=True, metavar="FILE", help="print its effective values, or fail"
    )
    parser.set_defaults(handler=run)
