"""What `waiver init` writes for a JavaScript project run by jest, vitest or mocha: the
layout with the flags over what was found, the commands the runner's module gives, one
real run of them for the registry, and each file's text, purpose and refresh command.

The policy names the runner; the lock holds the fixtures and the runner's harness, with
the property suite (its folders by `--property-suite`, its files by `harness:` globs, so
that `waiver lock --config waiver.yml` writes the same lock again); both workflows call
waiver's with the written commands and the Node they were proven with.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import replace
from functools import partial

from waiver.init.collection import Ran
from waiver.init.command_scripts import RunByName, run_by_name
from waiver.init.layout import Layout, default_branch, literal_glob, without_links
from waiver.init.plan import InitOptions, given_folders, policy_text
from waiver.init.planned import Planned, lock_plan, registry_plan, workflow_plans
from waiver.init.problems import Problems
from waiver.read.policy.policy_file import parse_policy
from waiver.read.trusted.ignored import ignored_folders
from waiver.runners import policy_harness
from waiver.runners.node.setup.node_commands import (
    INSTALLS,
    REPORTER_FOLDER,
    NodeCommands,
    missing_runner,
    node_commands,
)
from waiver.runners.node.setup.node_layout import NodeLayout, find_node_layout, read_package
from waiver.runners.node.setup.node_run import install, node_version, run_suites
from waiver.runners.node.setup.node_versions import project_node
from waiver.runners.node.setup.workspaces import workspace_note
from waiver.write.files.setup_files import (
    POLICY,
    REGISTRY,
    Setup,
)

NO_SUITE = (
    "no property suite found, so nothing was written: a gate whose property step cannot "
    "fail protects nothing. Write one first: a folder properties/ of test files that check "
    "invariants of your code (with fast-check's fc.assert, say), each of which fails when "
    "the invariant breaks, or test files named *.property.test.js; or name an existing "
    "folder with --property-suite DIR"
)


def resolve_node_layout(runner: str, options: InitOptions, problems: Problems) -> NodeLayout:
    """The layout found, with the flags over it; what is missing goes to `problems`."""
    found = find_node_layout(".", runner)
    suites = given_folders(options.property_suites, "--property-suite", problems)
    fixtures = given_folders(options.fixtures, "--fixtures", problems)
    if options.property_select is not None:
        problems.add(
            f"--property-select selects pytest tests; {runner}'s property suite is its own "
            "folders (--property-suite DIR)"
        )
    held = found.fixtures
    layout = NodeLayout(
        runner,
        suites or found.property_folders,
        () if suites else found.property_files,
        without_links(
            Layout(None, (), (), fixtures or held.fixture_folders, data_files=held.data_files)
        ),
        found.lockfile,
    )
    if not layout.property_paths:
        problems.add(NO_SUITE)
    if os.path.isdir(INSTALLS) and not ignored_folders(".", None)(INSTALLS):
        problems.add(
            f"{INSTALLS}/ is not a folder git ignores (no .gitignore line for it, or not in "
            "a git clone), so every installed file would be locked as test harness: run init "
            f"in the git clone, with `{INSTALLS}/` in .gitignore"
        )
    return layout


def _runs(
    layout: NodeLayout, options: InitOptions, commands: NodeCommands, problems: Problems
) -> tuple[Ran, Ran] | None:
    """One run of both commands in the repository's own `node_modules`, after `npm ci`
    when npm's lockfile is there (not with --no-verify), and after the install of the
    reporter the commands need when it is not there yet."""
    steps = []
    if options.verify and layout.lockfile is not None and commands.packages is not None:
        steps.append(commands.packages)
    if commands.reporter_install is not None and not os.path.isdir(REPORTER_FOLDER):
        steps.append(commands.reporter_install)
    before = len(problems.found)
    for step in steps:
        problems.attempt(partial(install, step))
    if len(problems.found) > before:
        return None
    return run_suites(
        layout.runner, (commands.properties, commands.tests), layout.property_paths, problems
    )


def _count(number: int, singular: str, plural: str) -> str:
    return f"{number} {singular if number == 1 else plural}"


def plan_node(
    layout: NodeLayout, options: InitOptions, repository: str, ref: str, problems: Problems
) -> list[Planned]:
    """The files init writes; what stops the lock or the registry goes to `problems`, and
    then the list is empty."""
    package = problems.attempt(partial(read_package, ".")) or {}
    commands = _checked_commands(layout, options, package, problems)
    running = problems.attempt(node_version)
    node = None if running is None else project_node(".", package, running)
    fixtures = layout.fixtures
    named = problems.attempt(lambda: run_by_name((commands.properties, commands.tests)))
    named = named or RunByName()
    setup = Setup(
        fixtures=fixtures.fixtures_root,
        fixture_globs=fixtures.fixture_globs,
        reads_fixtures=bool(fixtures.fixture_folders or fixtures.data_files),
        property_selection=None,
        property_command=commands.properties,
        test_command=commands.tests,
        setup_command=commands.install,
        red_green_command=commands.red_green,
        waiver_repository=repository,
        waiver_ref=ref,
        harness_globs=named.globs((*options.harness, *map(literal_glob, layout.property_files))),
        package_scripts=named.scripts,
        runner=layout.runner,
        node_version=None if node is None else node.version,
        default_branch=default_branch("."),
        app_client_id=options.app_client_id,
    )
    merged = options.existing_policy is not None
    policy = policy_text(setup, options.existing_policy, problems)
    if policy is None:
        return []
    if merged:
        said = parse_policy(policy.encode(), POLICY).policy.runner
        if said != layout.runner:
            problems.add(
                f"{POLICY} says `runner: {said}`, and init found {layout.runner}: settle "
                f"which runs the tests (--runner {said}, or the key by hand)"
            )
            return []
    lock = problems.attempt(partial(_planned_lock, layout, setup, policy))
    missing = missing_runner(layout, options, commands)
    if missing is not None:
        problems.add(missing)
    runs = None
    if problems.found:
        problems.before_proof()
    else:
        runs = _runs(layout, options, commands, problems)
    if lock is None or runs is None:
        return []
    return [
        lock,
        _planned_registry(layout, commands, *runs),
        _planned_policy(setup, policy, merged=merged),
        *workflow_plans(
            setup,
            f"through {repository}'s reusable workflow at {ref}, with Node {setup.node_version}",
            None if node is None else node.note,
            commands.lines,
        ),
    ]


def _checked_commands(
    layout: NodeLayout, options: InitOptions, package: dict[str, object], problems: Problems
) -> NodeCommands:
    """The commands init writes, with a workspace's note; a command GitHub would read as an
    expression is a problem."""
    commands = node_commands(layout, options, package, problems)
    if options.test_command is None:
        said, problem = workspace_note(".", layout.runner)
        if problem is not None:
            problems.add(problem)
        if said is not None:
            commands = replace(commands, lines=(said, *commands.lines))
    for flag, command in (
        ("--property-command", commands.properties),
        ("--test-command", commands.tests),
        ("--setup-command", commands.install or ""),
    ):
        if "${{" in command:
            problems.add(f"{flag}: GitHub would read '${{{{' in it as an expression")
    return commands


def _planned_policy(setup: Setup, policy: str, *, merged: bool) -> Planned:
    """The policy file, as written or as the user's own completed."""
    return Planned(
        POLICY,
        policy,
        "the policy file as it was, with the registry, runner, fixture, harness and "
        "property-suite keys it lacked and the --harness globs"
        if merged
        else f"the policy: the registry, `runner: {setup.runner}`"
        + (", the fixture globs" if setup.fixture_globs or not setup.reads_fixtures else "")
        + (", the harness globs" if setup.harness_globs else "")
        + ", replays, freeze lifetimes",
        "edit it by hand, in a change of its own",
    )


def _planned_lock(layout: NodeLayout, setup: Setup, policy: str) -> Planned:
    """The lock: the fixtures and the runner's harness, with the property suite."""
    fixtures = layout.fixtures
    return lock_plan(
        setup,
        policy,
        layout.property_folders,
        fixtures.fixture_folders,
        fixtures.data_files,
        f"{layout.runner}'s configuration and what it names, the property suite",
        policy_harness,
        fixtures.linked,
    )


def _registry_refresh(runner: str, commands: NodeCommands) -> str:
    """The command that writes the registry again from one replay of the runner's commands
    (each by `sh -c`, so that "$WAIVER_JUNIT" names its report), read with the runner's
    ids; the reports go to a folder outside the repository."""
    properties = shlex.join(["sh", "-c", commands.properties])
    tests = shlex.join(["sh", "-c", commands.tests])
    return (
        f'scratch="$(mktemp -d)" && waiver replay -n 1 --out "$scratch" '
        f"--properties-first {shlex.quote(properties)} -- {tests} && waiver baseline "
        f'--runner {runner} --reports "$scratch" --properties "$scratch/properties.xml" '
        f"--out {REGISTRY}"
    )


def _planned_registry(
    layout: NodeLayout, commands: NodeCommands, property_run: Ran, test_run: Ran
) -> Planned:
    """The registry, from one real run of the property suite and of the tests."""
    return registry_plan(
        property_run,
        test_run,
        ", ".join(layout.property_paths),
        _registry_refresh(layout.runner, commands),
        "left out of the commands",
    )
