"""What `waiver init` writes, decided from the repository's layout: the layout with the flags
over what was found, and each file's text, purpose and refresh command."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from waiver.errors import InputError, UsageError
from waiver.init.collection import Ran, fresh_venv, prove, run_suite
from waiver.init.layout import Layout, default_branch, find_layout, inside, without_links
from waiver.init.merge import merge_policy
from waiver.init.problems import Problems
from waiver.init.python_version import proof_python, workflow_python
from waiver.init.suite_commands import (
    commands,
    parse_selection,
    pytest_words,
    registry_refresh,
)
from waiver.init.tool_envs import ToolEnvs, read_tool_envs
from waiver.read.lock.drift import lock_text
from waiver.read.policy.policy_file import parse_policy
from waiver.read.registry import format_registry
from waiver.runners import policy_harness
from waiver.runners.base import Runner
from waiver.runners.pytest import PYTEST
from waiver.write.lock_reasons import reason_lines
from waiver.write.setup_files import (
    HISTORY_WORKFLOW,
    LOCK,
    POLICY,
    REGISTRY,
    REPORT_WORKFLOW,
    WORKFLOW,
    Setup,
    render_history_workflow,
    render_policy,
    render_report_workflow,
    render_workflow,
)

NO_SUITE = (
    "no property suite found, so nothing was written: a gate whose property step cannot "
    "fail protects nothing. Write one first: a folder tests/properties/ of test modules "
    "that check invariants of your code (with hypothesis' @given, say), each of which "
    "fails when the invariant breaks; or name an existing folder with --property-suite DIR, "
    "or the property tests among the others with --property-select (-m MARKER, -k EXPR or "
    "test ids)"
)

FAILED_SHOWN = 5  # failing tests init names; the rest are counted

LINKED = (
    "{links}: a symlink, which the lock cannot hold (it holds bytes, and a link points at "
    "what the gate would have to trust): its folder's other files are locked one by one, "
    "and the link is not. To lock what it points to, replace the link by a copy of it and "
    "run the refresh command"
)
NO_FIXTURES = (
    "no fixture folder found, so the lock holds the harness alone and waiver.yml says "
    "`fixtures: []`; name the folders your tests read with --fixtures DIR"
)


@dataclass(frozen=True)
class InitOptions:
    fixtures: tuple[str, ...]  # the folders --fixtures named; empty: the ones found
    property_suites: tuple[str, ...]  # the folders --property-suite named; empty: found
    property_select: str | None  # --property-select: pytest words that select the suite
    test_command: str | None
    property_command: str | None
    waiver_repository: str | None
    waiver_ref: str | None
    force: bool
    dry_run: bool
    harness: tuple[str, ...] = ()  # --harness globs, kept in the policy file
    existing_policy: bytes | None = None  # the policy file there is, which init completes
    verify: bool = True  # False (--no-verify): the registry from pytest in this environment
    runner: str | None = None  # --runner: the runner to set up; None: the one found
    setup_command: str | None = None  # --setup-command: the install step; None: the one found


@dataclass(frozen=True)
class Planned:
    """A file init writes: its text, what it is for, and how to write it again."""

    path: str
    text: str
    purpose: str
    refresh: str
    note: str | None = None
    # Lines that say what is in it and why (the lock's harness files, each with why).
    details: tuple[str, ...] = ()


def _folder(path: str, flag: str) -> str:
    """A flag's folder as a root-relative path, `/`-separated; never outside the root."""
    normal = os.path.normpath(path).replace(os.sep, "/")
    if os.path.isabs(normal) or normal == ".." or normal.startswith("../"):
        raise UsageError(f"{flag} must name a folder inside the repository, got {path!r}")
    if not os.path.isdir(normal):
        raise UsageError(f"{flag} {path}: no such folder")
    return normal


def resolve_layout(options: InitOptions, problems: Problems) -> Layout:
    """The layout found, with the flags over it; what is missing goes to `problems`."""
    found = find_layout(".")
    suites = given_folders(options.property_suites, "--property-suite", problems)
    fixtures = given_folders(options.fixtures, "--fixtures", problems)
    selection: tuple[str, ...] = ()
    if options.property_select is not None:
        selection = problems.attempt(partial(parse_selection, options.property_select)) or ()
        if options.property_suites:
            problems.add("give --property-suite or --property-select, not both")
    named = bool(options.property_suites or options.property_select is not None)
    layout = without_links(
        Layout(
            found.pytest_config,
            found.test_folders,
            suites if named else found.property_suites,
            fixtures or found.fixture_folders,
            () if named else found.scattered_properties,
            selection if named else found.property_selection,
            tuple(path for path in found.data_files if not any(inside(path, f) for f in fixtures)),
        )
    )
    if not (layout.property_suites or layout.property_selection or named):
        problems.add(NO_SUITE)
    if not layout.test_folders:
        problems.add(
            "no test folder found (tests/, test/, or testpaths in the pytest configuration); "
            "set testpaths in the pytest configuration"
        )
    return layout


def policy_text(setup: Setup, existing: bytes | None, problems: Problems) -> str | None:
    """The policy file init writes, or the existing one completed with the keys it lacks;
    None when that cannot be done (the problem is in `problems`)."""
    policy = render_policy(setup)
    if existing is None:
        return policy
    return problems.attempt(partial(merge_policy, existing, policy, POLICY)) or None


def given_folders(paths: tuple[str, ...], flag: str, problems: Problems) -> tuple[str, ...]:
    """The folders a repeatable flag named; each one that is not a folder inside the
    repository goes to `problems`."""
    folders = []
    for path in paths:
        folder = problems.attempt(partial(_folder, path, flag))
        if folder is not None:
            folders.append(folder)
    return tuple(folders)


def _count(number: int, singular: str, plural: str) -> str:
    return f"{number} {singular if number == 1 else plural}"


def suite_name(layout: Layout) -> str:
    """The property suite in words: its folders, or the selection that picks it."""
    if layout.property_selection:
        return f"the tests that {shlex.join(layout.property_selection)} selects"
    return ", ".join(layout.property_suites)


def plan(
    layout: Layout, options: InitOptions, repository: str, ref: str, problems: Problems
) -> list[Planned]:
    """The files init writes; what stops the lock or the registry goes to `problems`, and
    then the list is empty."""
    # The install step is the one given, else the one found; what of tox, nox or hatch it
    # cannot read stops init, and its commands are not proved around a guess.
    envs = ToolEnvs() if options.setup_command is not None else read_tool_envs()
    for problem in envs.problems:
        problems.add(problem)
    install, property_command, test_command = commands(
        layout, options.property_command, options.test_command, envs, options.setup_command
    )
    python = workflow_python()
    setup = Setup(
        python_version=python.text if python.written else None,
        fixtures=layout.fixtures_root,
        fixture_globs=layout.fixture_globs,
        reads_fixtures=bool(layout.fixture_folders or layout.data_files),
        property_selection=shlex.join(layout.property_selection) or None,
        property_command=property_command,
        test_command=test_command,
        setup_command=install,
        red_green_command=written_red_green(options, PYTEST),
        waiver_repository=repository,
        waiver_ref=ref,
        harness_globs=options.harness,
        default_branch=default_branch("."),
    )
    merged = options.existing_policy is not None
    policy = policy_text(setup, options.existing_policy, problems)
    if policy is None:
        return []
    lock = problems.attempt(partial(_planned_lock, layout, setup, policy))
    # --no-verify proves nothing, so no interpreter is looked for.
    interpreter, python_note = proof_python(python) if options.verify else (sys.executable, None)
    # The proof takes minutes: it runs once every problem found from files is settled.
    runs = None
    if problems.found:
        problems.before_proof()
    else:
        written = (property_command, test_command)
        runs = _runs(layout, options, written, install, interpreter, problems)
    registry = (
        None
        if runs is None
        else problems.attempt(partial(_planned_registry, layout, options, *runs))
    )
    if lock is None or registry is None:
        return []
    return [
        lock,
        registry,
        Planned(
            POLICY,
            policy,
            "the policy file as it was, with the registry, fixture, harness and property-suite "
            "keys it lacked and the --harness globs"
            if merged
            else "the policy: the registry"
            + (", the fixture globs" if setup.fixture_globs or not setup.reads_fixtures else "")
            + (", the harness globs" if setup.harness_globs else "")
            + (", the selected property suite" if setup.property_selection else "")
            + ", replays, freeze lifetimes",
            "edit it by hand, in a change of its own",
        ),
        *workflow_plans(setup, f"through {repository}'s reusable workflow at {ref}", python_note),
    ]


def written_red_green(options: InitOptions, runner: Runner) -> str | None:
    """The red-green command init writes: the runner's, whose reporter settings are those
    of the test command init writes; none beside a --test-command, whose settings it
    cannot know."""
    return None if options.test_command is not None else runner.red_green_command()


def workflow_plans(
    setup: Setup, through: str, note: str | None = None, details: tuple[str, ...] = ()
) -> list[Planned]:
    """The three workflows init writes, for every runner: the gate's caller (`through` says
    where it runs the gate; `details`, what its commands keep of the project's own and leave
    out), the report workflow that posts the status and the comment, and the history writer
    both of them name."""
    return [
        Planned(
            WORKFLOW,
            render_workflow(setup),
            f"the gate on every pull request, {through}",
            "edit it by hand; to move to a newer waiver, change the commit in `uses:` and "
            "waiver-ref",
            note,
            details,
        ),
        Planned(
            REPORT_WORKFLOW,
            render_report_workflow(setup),
            "after every run of the gate, the commit status `waiver` (require it in the branch "
            "rule) and the pull-request comment, for forks too",
            "edit it by hand with the gate's workflow: the same inputs and the same commit",
        ),
        Planned(
            HISTORY_WORKFLOW,
            render_history_workflow(setup),
            f"after every run of the gate on a push to {setup.default_branch} or its schedule, "
            "the history of each test (the artifact waiver-history)",
            "edit it by hand with the gate's workflow: the same commit",
        ),
    ]


def _planned_lock(layout: Layout, setup: Setup, policy: str) -> Planned:
    """The lock: the fixtures and the harness, with a property suite's folders; a selected
    suite's modules are test modules, which the edited-test check covers instead."""
    suites = layout.property_suites
    harness = "conftest.py, pytest configuration" + (", property suite" if suites else "")
    return lock_plan(
        setup, policy, suites, layout.fixture_folders, layout.data_files, harness, layout.linked
    )


def lock_plan(
    setup: Setup,
    policy: str,
    suites: Sequence[str],
    fixture_folders: Sequence[str],
    data_files: Sequence[str],
    harness: str,
    linked: Sequence[str] = (),
) -> Planned:
    """The lock of the fixtures and of the harness the policy's runner names, with the
    property suites' folders, whatever the runner; `harness` says in words what it holds."""
    policy_file = parse_policy(policy.encode(), POLICY)
    lock = lock_text(".", setup.fixtures, (), suites, policy_file, policy_harness)
    refresh = " ".join(
        [
            f"waiver lock --fixtures {shlex.quote(setup.fixtures)} --config {POLICY}",
            *(f"--property-suite {shlex.quote(suite)}" for suite in suites),
            f"--out {LOCK}",
        ]
    )
    held = [*fixture_folders]
    if data_files:
        held.append(_count(len(data_files), "data file", "data files") + " beside the tests")
    note = None if setup.reads_fixtures else NO_FIXTURES
    if linked:
        note = LINKED.format(links=", ".join(linked))
    return Planned(
        LOCK,
        lock.text,
        (f"the fixtures ({', '.join(held)}) and " if setup.reads_fixtures else "")
        + f"the test harness ({harness}), {lock.text.count(chr(10))} files by digest",
        refresh,
        note,
        tuple(f"locked: {line}" for line in reason_lines(lock.harness)),
    )


def _runs(
    layout: Layout,
    options: InitOptions,
    written: tuple[str, str],
    install: str,
    python: str,
    problems: Problems,
) -> tuple[Ran, Ran] | None:
    """One real run of the property suite and of the tests: the written commands, each after
    the `install` step, in a fresh venv of `python`, or with --no-verify pytest in the
    environment init runs in. What stops either goes to `problems`, and then there is none."""
    if options.verify:
        proved = [f"{install} && {command}" for command in written]
        try:
            with fresh_venv(python=python) as (scratch, env):
                runs = [
                    problems.attempt(partial(prove, flag, command, scratch, env))
                    for flag, command in zip(
                        ("--property-command", "--test-command"), proved, strict=True
                    )
                ]
        except InputError as error:
            problems.add(str(error))
            return None
    else:
        runs = [problems.attempt(partial(run_suite, ".", words)) for words in pytest_words(layout)]
    property_run, test_run = runs
    if property_run is None or test_run is None:
        return None
    return property_run, test_run


def _planned_registry(
    layout: Layout, options: InitOptions, property_run: Ran, test_run: Ran
) -> Planned:
    """The registry, from one real run of the property suite and of the tests: a test that
    skips, by a mark or while it runs, is left out, since no replay gives it an outcome."""
    if not property_run.test_ids:
        raise UsageError(
            f"pytest ran no property test in {suite_name(layout)}, so nothing was written: a "
            "property step that runs nothing cannot fail"
        )
    return registry_plan(
        property_run,
        test_run,
        suite_name(layout),
        registry_refresh(layout, options.property_command, options.test_command),
        "deselected in the commands",
    )


def registry_plan(
    property_run: Ran, test_run: Ran, suite: str, refresh: str, how_left_out: str
) -> Planned:
    """The registry of what ran, whatever the runner: a skipped test is left out, and the
    tests that failed are named, since a base with stable failures blocks every pull
    request. `how_left_out`: how a test leaves the written commands in this runner."""
    properties = len(property_run.test_ids)
    registry = sorted({*property_run.test_ids, *test_run.test_ids})
    skipped = len(property_run.skipped) + len(test_run.skipped)
    left_out = f"; {_count(skipped, 'skipped test', 'skipped tests')} left out" if skipped else ""
    failed = [*property_run.failed, *test_run.failed]
    note = None
    if failed:
        shown = ", ".join(failed[:FAILED_SHOWN]) + (
            f" and {len(failed) - FAILED_SHOWN} more" if len(failed) > FAILED_SHOWN else ""
        )
        note = (
            f"{_count(len(failed), 'test', 'tests')} failed in this run of your tree: {shown}. "
            "A base with stable failures blocks every pull request until they are fixed or "
            f"{how_left_out}"
        )
    return Planned(
        REGISTRY,
        format_registry(registry),
        f"the {len(registry)} test ids that ran in one run of the suite "
        f"({_count(len(registry) - properties, 'test', 'tests')}, "
        f"{_count(properties, 'property', 'properties')} in {suite}){left_out}",
        refresh,
        note,
    )
