"""`waiver init`: set a repository up for the gate, from its root.

It finds the runner (pytest, or the jest, vitest or mocha that `package.json` names:
waiver.runners.node.setup.node_layout), the layout (waiver.init.layout), and writes the fixture lock (with the same code
as `waiver lock`), the known-tests registry (from one real run of the suite), a commented policy
file, a workflow calling waiver's reusable gate workflow and one posting its verdict on the
pull request, pinned by commit (waiver.init.plan; for a JavaScript runner waiver.runners.node.setup.node_plan). It never overwrites a file without
--force, but completes a policy file there is (waiver.init.merge); and without a property
suite it writes nothing: a gate whose property step cannot fail protects nothing, and init
will not invent one.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace

from waiver.commands.flags import options_of
from waiver.errors import EXIT_CLEAR, EXIT_INPUT, UsageError
from waiver.init.plan import InitOptions
from waiver.init.planned import Planned
from waiver.init.problems import Problems
from waiver.init.source import waiver_source
from waiver.runners import RUNNERS
from waiver.runners.node.setup.node_layout import choose_runner
from waiver.runners.node.setup.node_plan import plan_node, resolve_node_layout
from waiver.runners.pytest.setup.pytest_plan import plan, resolve_layout
from waiver.write.files.atomic import write_atomic
from waiver.write.files.setup_files import INIT_FILES, POLICY
from waiver.write.words.escape import log_line


def _read_policy() -> bytes:
    if os.path.islink(POLICY) or not os.path.isfile(POLICY):
        raise UsageError(f"{POLICY} is not a regular file; nothing written")
    with open(POLICY, "rb") as stream:
        return stream.read()


def _client_id(value: str) -> str:
    """A GitHub App's client ID (`Iv23li…`) or numeric app ID: letters and digits only."""
    if not value.isascii() or not value.isalnum() or len(value) > 64:
        raise argparse.ArgumentTypeError("must be the app's client ID (letters and digits)")
    return value


def run(args: argparse.Namespace) -> int:
    options = options_of(
        InitOptions,
        args,
        property_suites=tuple(args.property_suite),
        verify=not args.no_verify,
    )
    existing = [path for path in INIT_FILES if os.path.lexists(path)]
    if existing and not options.force and not options.dry_run:
        if len(existing) == len(INIT_FILES):
            print(
                f"waiver: {', '.join(INIT_FILES)} exist already; nothing changed (--force rewrites them)"
            )
            return EXIT_CLEAR
        if existing != [POLICY]:
            raise UsageError(
                f"{', '.join(existing)} exist already; nothing written (--force rewrites all six)"
            )
    if POLICY in existing and not options.force:
        # A policy file of the user's own is kept and completed, never refused.
        options = replace(options, existing_policy=_read_policy())
    problems = Problems()
    source = problems.attempt(lambda: waiver_source(options.waiver_repository, options.waiver_ref))
    runner = problems.attempt(lambda: choose_runner(".", options.runner))
    # The lock and the registry are tried even beside other problems, so that one run
    # names every problem: the workflow's pin is only text in them.
    repository, ref = source or ("", "")
    planned: list[Planned] = []
    if runner == "pytest":
        layout = resolve_layout(options, problems)
        if layout.test_folders and (layout.property_suites or layout.property_selection):
            planned = plan(layout, options, repository, ref, problems)
    elif runner is not None:
        node_layout = resolve_node_layout(runner, options, problems)
        if node_layout.property_paths:
            planned = plan_node(node_layout, options, repository, ref, problems)
    if problems.found:
        print(problems.text(), file=sys.stderr)
        return EXIT_INPUT
    for item in planned:
        if options.dry_run:
            print(log_line(f"waiver: would write {item.path}: {item.purpose}"))
            for line in item.details:
                print(log_line(f"  {line}"))
            print(item.text, end="" if item.text.endswith("\n") else "\n")
            continue
        folder = os.path.dirname(item.path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        write_atomic(item.path, item.text)
        print(log_line(f"waiver: wrote {item.path}: {item.purpose}"))
        for line in item.details:
            print(log_line(f"  {line}"))
        print(log_line(f"  refresh: {item.refresh}"))
        if item.note is not None:
            print(log_line(f"  note: {item.note}"))
    if options.dry_run:
        print("waiver: dry run; nothing written")
    return EXIT_CLEAR


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "init",
        help="from a repository's root: write the lock, the registry, a policy file and the "
        "workflows for the gate",
    )
    parser.add_argument(
        "--fixtures",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of fixtures the tests read (repeatable; default: the ones found)",
    )
    parser.add_argument(
        "--property-suite",
        action="append",
        default=[],
        metavar="DIR",
        help="the property suite's folder (repeatable; default: tests/properties or the like)",
    )
    parser.add_argument(
        "--property-select",
        metavar="ARGS",
        help="the property tests among the others, as pytest selects them: -m MARKER, "
        "-k EXPR, or test ids (default: -m hypothesis when hypothesis tests share modules "
        "with other tests)",
    )
    _add_workflow_flags(parser)
    parser.add_argument(
        "--harness",
        action="append",
        default=[],
        metavar="GLOB",
        help="a file of the test harness the gate cannot find by itself, such as a module "
        "whose plugin list is not a literal (repeatable; kept in waiver.yml as `harness:`)",
    )
    parser.add_argument(
        "--no-verify",
        action="store_true",
        help="do not prove the written commands in a fresh venv; take the registry from "
        "pytest in this environment",
    )
    parser.add_argument(
        "--runner",
        choices=sorted(RUNNERS),
        help="the test runner to set up (default: pytest for a Python test suite, else the "
        "jest, vitest or mocha that package.json names)",
    )
    parser.add_argument(
        "--app-client-id",
        metavar="ID",
        type=_client_id,
        help="the client ID of the team's GitHub App that posts the verdict as the check run "
        "`waiver` (its key in the environment waiver-verdict); default: the commit status",
    )
    parser.add_argument("--force", action="store_true", help="rewrite files that exist")
    parser.add_argument(
        "--dry-run", action="store_true", help="print what would be written; write nothing"
    )
    parser.set_defaults(handler=run)


def _add_workflow_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of what the written workflows run and call."""
    parser.add_argument(
        "--test-command",
        metavar="CMD",
        help='the workflow\'s test command, writing "$WAIVER_JUNIT"',
    )
    parser.add_argument(
        "--property-command",
        metavar="CMD",
        help='the workflow\'s property command, writing "$WAIVER_JUNIT"',
    )
    parser.add_argument(
        "--setup-command",
        metavar="CMD",
        help="the workflow's install step, run before each command (default: the one init "
        "finds from the lockfile, requirements, extras and tox, nox or hatch)",
    )
    parser.add_argument(
        "--waiver-repository",
        metavar="OWNER/NAME",
        help="the waiver repository the workflow calls (default: where pip installed it from)",
    )
    parser.add_argument(
        "--waiver-ref",
        metavar="FULL_SHA",
        help="the waiver commit the workflow is pinned to (default: the installed commit)",
    )
