"""`waiver init`: set a repository up for the gate, from its root.

It finds the layout (waiver.init.layout), and writes the fixture lock (with the same code
as `waiver lock`), the known-tests registry (from pytest's collection), a commented policy
file and a workflow calling waiver's reusable workflow, pinned by commit. It never
overwrites a file without --force, and without a property suite it writes nothing: a
gate whose property step cannot fail protects nothing, and init will not invent one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
from dataclasses import dataclass
from importlib import metadata

from waiver.commands.lock import lock_text
from waiver.errors import EXIT_CLEAR, UsageError
from waiver.init.collection import collect
from waiver.init.layout import Layout, find_layout
from waiver.init.pyproject import PYPROJECT, read_install_tables
from waiver.read.policy.policy_file import parse_policy
from waiver.read.registry import format_registry
from waiver.write.atomic import write_atomic
from waiver.write.escape import log_line
from waiver.write.setup_files import (
    LOCK,
    POLICY,
    REGISTRY,
    WORKFLOW,
    Setup,
    render_policy,
    render_workflow,
)

# The names a project gives its test dependencies, as an extra or a dependency group.
TEST_SETS = ("test", "tests", "testing", "dev")
REPOSITORY = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}")
FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
GITHUB_URL = re.compile(r"https://github\.com/([^/]+/[^/]+?)(?:\.git)?/?")
NO_SUITE = (
    "no property suite found, so nothing was written: a gate whose property step cannot "
    "fail protects nothing. Write one first: a folder tests/properties/ of test modules "
    "that check invariants of your code (with hypothesis' @given, say), each of which "
    "fails when the invariant breaks; or name an existing folder with --property-suite DIR"
)


@dataclass(frozen=True)
class InitOptions:
    fixtures: tuple[str, ...]  # the folders --fixtures named; empty: the ones found
    property_suites: tuple[str, ...]  # the folders --property-suite named; empty: found
    test_command: str | None
    property_command: str | None
    waiver_repository: str | None
    waiver_ref: str | None
    force: bool
    dry_run: bool


@dataclass(frozen=True)
class Planned:
    """A file init writes: its text, what it is for, and how to write it again."""

    path: str
    text: str
    purpose: str
    refresh: str
    note: str | None = None


def installed_source() -> tuple[str | None, str | None]:
    """OWNER/NAME and the commit of this waiver, when pip installed it from GitHub by git."""
    try:
        text = metadata.distribution("waiver").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None, None
    if text is None:
        return None, None
    try:
        direct = json.loads(text)
        match = GITHUB_URL.fullmatch(str(direct["url"]).removeprefix("git+"))
        commit = direct["vcs_info"]["commit_id"]
    except (ValueError, KeyError, TypeError):
        return None, None
    return (match.group(1) if match else None), (commit if isinstance(commit, str) else None)


def waiver_source(options: InitOptions) -> tuple[str, str]:
    """The waiver repository and commit the workflow pins: the flags, else the install's."""
    found_repository, found_ref = installed_source()
    repository = options.waiver_repository or found_repository
    ref = options.waiver_ref or found_ref
    if repository is None or ref is None:
        raise UsageError(
            "give --waiver-repository OWNER/NAME and --waiver-ref FULL_SHA: the waiver the "
            "workflow runs, pinned by commit (known by itself only when pip installed waiver "
            "from GitHub with git)"
        )
    if not REPOSITORY.fullmatch(repository):
        raise UsageError(f"--waiver-repository must be OWNER/NAME, got {repository!r}")
    if not FULL_SHA.fullmatch(ref):
        raise UsageError(f"--waiver-ref must be a full commit id (40 hex digits), got {ref!r}")
    return repository, ref


def _folder(path: str, flag: str) -> str:
    """A flag's folder as a root-relative path, `/`-separated; never outside the root."""
    normal = os.path.normpath(path).replace(os.sep, "/")
    if os.path.isabs(normal) or normal == ".." or normal.startswith("../"):
        raise UsageError(f"{flag} must name a folder inside the repository, got {path!r}")
    if not os.path.isdir(normal):
        raise UsageError(f"{flag} {path}: no such folder")
    return normal


def _inside(path: str, folders: tuple[str, ...]) -> bool:
    return any(path == folder or path.startswith(folder + "/") for folder in folders)


def _install_step() -> str:
    """The install step both commands start with, from what the repository declares: the
    project with its test extra or dependency group, else its requirements.

    pyproject.toml is read strictly (`read_install_tables`): a step written around a
    guess at a malformed table would fail on every pull request.
    """
    project, extras, groups = read_install_tables(PYPROJECT)
    extra = next((name for name in TEST_SETS if name in extras), None)
    group = next((name for name in TEST_SETS if name in groups), None)
    if project or os.path.isfile("setup.py") or os.path.isfile("setup.cfg"):
        words = ["-e", f".[{extra}]" if extra else "."]
    elif os.path.isfile("requirements.txt"):
        words = ["-r", "requirements.txt"]
    else:
        words = []
    if group is not None:
        words += ["--group", group]
    return f"python -m pip install {shlex.join([*words, 'pytest', 'hypothesis'])}"


def pytest_words(layout: Layout) -> tuple[list[str], list[str]]:
    """The pytest arguments of the property suite and of the assertion suite.

    Both run with `--rootdir=.`, so ids are relative to the repository root whatever the
    configuration. The property suite runs with `-m ''`: a project that keeps its
    properties opt-in (`addopts = -m "not property"`) would otherwise run none of them.
    """
    suites = list(layout.property_suites)
    tests = list(layout.test_folders) + [
        f"--ignore={suite}" for suite in suites if _inside(suite, layout.test_folders)
    ]
    return ["--rootdir=.", "-m", "", *suites], ["--rootdir=.", *tests]


def commands(layout: Layout, options: InitOptions) -> tuple[str, str]:
    """The property and test commands of the workflow, each writing "$WAIVER_JUNIT"."""
    property_words, test_words = pytest_words(layout)
    install = _install_step()
    junit = '--junitxml="$WAIVER_JUNIT"'
    property_command = options.property_command or (
        f"{install} && python -m pytest {shlex.join(property_words)} {junit}"
    )
    test_command = (
        options.test_command or f"{install} && python -m pytest {shlex.join(test_words)} {junit}"
    )
    for flag, command in (
        ("--property-command", property_command),
        ("--test-command", test_command),
    ):
        if "${{" in command:
            raise UsageError(f"{flag}: GitHub would read '${{{{' in it as an expression")
    return property_command, test_command


def _argument(text: str) -> str:
    """`text` as one shell word, in double quotes when nothing in it is special there, so
    that the `''` inside reads plainly."""
    if not any(char in text for char in '"$`\\!'):
        return f'"{text}"'
    return shlex.quote(text)


def registry_refresh(layout: Layout) -> str:
    property_words, test_words = pytest_words(layout)
    properties = f"python -m pytest {shlex.join(property_words)} --junitxml={{junit}}"
    tests = f"python -m pytest {shlex.join(test_words)} --junitxml={{junit}}"
    return (
        f"waiver replay -n 1 --out waiver-baseline --properties-first {_argument(properties)} "
        f"-- {tests} && waiver baseline --reports waiver-baseline "
        f"--properties waiver-baseline/properties.xml --out {REGISTRY}"
    )


def resolve_layout(options: InitOptions) -> Layout:
    found = find_layout(".")
    suites = tuple(_folder(p, "--property-suite") for p in options.property_suites)
    fixtures = tuple(_folder(p, "--fixtures") for p in options.fixtures)
    layout = Layout(
        found.pytest_config,
        found.test_folders,
        suites or found.property_suites,
        fixtures or found.fixture_folders,
        () if suites else found.scattered_properties,
    )
    if not layout.property_suites:
        scattered = layout.scattered_properties
        hint = (
            f" (modules using hypothesis, in folders with other tests: {', '.join(scattered)}; "
            "move them into a folder of their own and name it)"
            if scattered
            else ""
        )
        raise UsageError(NO_SUITE + hint)
    if not layout.test_folders:
        raise UsageError(
            "no test folder found (tests/, test/, or testpaths in the pytest configuration)"
        )
    if not layout.fixture_folders:
        raise UsageError(
            "no fixture folder found (fixtures/, a fixtures, data or testdata folder among the "
            "tests, or a folder there of files without a Python module); name the folders the "
            "tests read with --fixtures DIR (repeatable)"
        )
    return layout


def _count(number: int, singular: str, plural: str) -> str:
    return f"{number} {singular if number == 1 else plural}"


def plan(layout: Layout, options: InitOptions, repository: str, ref: str) -> list[Planned]:
    property_command, test_command = commands(layout, options)
    setup = Setup(
        fixtures=layout.fixtures_root,
        fixture_globs=layout.fixture_globs,
        property_command=property_command,
        test_command=test_command,
        waiver_repository=repository,
        waiver_ref=ref,
    )
    policy = render_policy(setup)
    suites = layout.property_suites
    lock = lock_text(".", setup.fixtures, (), suites, parse_policy(policy.encode(), POLICY))
    property_words, test_words = pytest_words(layout)
    property_ids = collect(".", property_words)
    test_ids = collect(".", test_words)
    properties = len(property_ids.test_ids)
    if not properties:
        raise UsageError(
            f"pytest collected no property test that runs in {', '.join(suites)}, so nothing "
            "was written: a property step that runs nothing cannot fail"
        )
    registry = sorted({*property_ids.test_ids, *test_ids.test_ids})
    never_run = len(property_ids.never_run) + len(test_ids.never_run)
    left_out = (
        f"; {_count(never_run, 'test', 'tests')} that a skip or xfail mark keeps from "
        "running left out"
        if never_run
        else ""
    )
    lock_refresh = " ".join(
        [
            f"waiver lock --fixtures {shlex.quote(setup.fixtures)} --config {POLICY}",
            *(f"--property-suite {shlex.quote(suite)}" for suite in suites),
            f"--out {LOCK}",
        ]
    )
    return [
        Planned(
            LOCK,
            lock,
            f"the fixtures ({', '.join(layout.fixture_folders)}) and the test harness "
            f"(conftest.py, pytest configuration, property suite), {lock.count(chr(10))} files "
            "by digest",
            lock_refresh,
        ),
        Planned(
            REGISTRY,
            format_registry(registry),
            f"the {len(registry)} test ids expected to run "
            f"({_count(len(registry) - properties, 'test', 'tests')}, "
            f"{_count(properties, 'property', 'properties')}){left_out}",
            registry_refresh(layout),
            "collection cannot see a test that skips itself while it runs (pytest.skip in its "
            "body); the gate then calls it unknown_test (vanished, 0/0): refresh the registry "
            "from a replay with the command above",
        ),
        Planned(
            POLICY,
            policy,
            "the policy: the registry"
            + (", the fixture globs" if setup.fixture_globs else "")
            + ", replays, freeze lifetimes",
            "edit it by hand, in a change of its own",
        ),
        Planned(
            WORKFLOW,
            render_workflow(setup),
            f"the gate on every pull request, through {repository}'s reusable workflow at {ref}",
            "edit it by hand; to move to a newer waiver, change the commit in `uses:` and "
            "waiver-ref",
        ),
    ]


def run(args: argparse.Namespace) -> int:
    options = InitOptions(
        fixtures=tuple(args.fixtures),
        property_suites=tuple(args.property_suite),
        test_command=args.test_command,
        property_command=args.property_command,
        waiver_repository=args.waiver_repository,
        waiver_ref=args.waiver_ref,
        force=args.force,
        dry_run=args.dry_run,
    )
    targets = [LOCK, REGISTRY, POLICY, WORKFLOW]
    existing = [path for path in targets if os.path.lexists(path)]
    if existing and not options.force and not options.dry_run:
        if len(existing) == len(targets):
            print(
                f"waiver: {', '.join(targets)} exist already; nothing changed (--force rewrites them)"
            )
            return EXIT_CLEAR
        raise UsageError(
            f"{', '.join(existing)} exist already; nothing written (--force rewrites all four)"
        )
    repository, ref = waiver_source(options)
    layout = resolve_layout(options)
    planned = plan(layout, options, repository, ref)
    for item in planned:
        if options.dry_run:
            print(log_line(f"waiver: would write {item.path}: {item.purpose}"))
            print(item.text, end="" if item.text.endswith("\n") else "\n")
            continue
        folder = os.path.dirname(item.path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        write_atomic(item.path, item.text)
        print(log_line(f"waiver: wrote {item.path}: {item.purpose}"))
        print(log_line(f"  refresh: {item.refresh}"))
        if item.note is not None:
            print(log_line(f"  note: {item.note}"))
    if options.dry_run:
        print("waiver: dry run; nothing written")
    return EXIT_CLEAR


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "init",
        help="from a repository's root: write the lock, the registry, a policy file and a "
        "workflow for the gate",
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
        "--waiver-repository",
        metavar="OWNER/NAME",
        help="the waiver repository the workflow calls (default: where pip installed it from)",
    )
    parser.add_argument(
        "--waiver-ref",
        metavar="FULL_SHA",
        help="the waiver commit the workflow is pinned to (default: the installed commit)",
    )
    parser.add_argument("--force", action="store_true", help="rewrite files that exist")
    parser.add_argument(
        "--dry-run", action="store_true", help="print what would be written; write nothing"
    )
    parser.set_defaults(handler=run)
