"""What `waiver init` writes for pytest, decided from the repository's layout: the layout
with the flags over what was found, the commands, one real run of them, and each file
(`waiver.init.planned`)."""

from __future__ import annotations

import shlex
import sys
from functools import partial

from waiver.errors import InputError, UsageError
from waiver.init.collection import Ran
from waiver.init.command_scripts import RunByName, run_by_name
from waiver.init.layout import Layout, default_branch, inside, without_links
from waiver.init.plan import InitOptions, given_folders, policy_text
from waiver.init.planned import Planned, lock_plan, registry_plan, workflow_plans
from waiver.init.problems import Problems
from waiver.runners import policy_harness
from waiver.runners.base import Runner
from waiver.runners.pytest import PYTEST
from waiver.runners.pytest.setup.pytest_layout import find_layout
from waiver.runners.pytest.setup.pytest_run import fresh_venv, prove, run_suite
from waiver.runners.pytest.setup.python_version import proof_python, workflow_python
from waiver.runners.pytest.setup.suite_commands import (
    commands,
    parse_selection,
    pytest_words,
    registry_refresh,
)
from waiver.runners.pytest.setup.tool_envs import ToolEnvs, read_tool_envs
from waiver.write.files.setup_files import POLICY, Setup

NO_SUITE = (
    "no property suite found, so nothing was written: a gate whose property step cannot "
    "fail protects nothing. Write one first: a folder tests/properties/ of test modules "
    "that check invariants of your code (with hypothesis' @given, say), each of which "
    "fails when the invariant breaks; or name an existing folder with --property-suite DIR, "
    "or the property tests among the others with --property-select (-m MARKER, -k EXPR or "
    "test ids)"
)


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
    named = problems.attempt(lambda: run_by_name((property_command, test_command))) or RunByName()
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
        harness_globs=named.globs(options.harness),
        package_scripts=named.scripts,
        default_branch=default_branch("."),
        app_client_id=options.app_client_id,
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


def _planned_lock(layout: Layout, setup: Setup, policy: str) -> Planned:
    """The lock: the fixtures and the harness, with a property suite's folders; a selected
    suite's modules are test modules, which the edited-test check covers instead."""
    suites = layout.property_suites
    harness = "conftest.py, pytest configuration" + (", property suite" if suites else "")
    return lock_plan(
        setup,
        policy,
        suites,
        layout.fixture_folders,
        layout.data_files,
        harness,
        policy_harness,
        layout.linked,
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
