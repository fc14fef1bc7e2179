"""The text of the files `waiver init` writes besides the lock and the registry: a commented
policy file, a workflow that calls waiver's reusable gate workflow, and one that reports
its verdict on the pull request, both pinned by commit.

Every value taken from the repository or a flag is written as a JSON string, which YAML
reads as the same double-quoted string, so no path or command can change the document's
shape.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

LOCK = "fixture.lock"
REGISTRY = "known-tests.txt"
POLICY = "waiver.yml"
WORKFLOW = ".github/workflows/waiver.yml"
REPORT_WORKFLOW = ".github/workflows/waiver-report.yml"
HISTORY_WORKFLOW = ".github/workflows/waiver-history.yml"
# Every file `waiver init` writes, in the order it names them.
INIT_FILES = (LOCK, REGISTRY, POLICY, WORKFLOW, REPORT_WORKFLOW, HISTORY_WORKFLOW)
REPLAYS = 5


@dataclass(frozen=True)
class Setup:
    """What the policy file and the workflow say about one repository."""

    fixtures: str  # the gate's --fixtures folder
    fixture_globs: tuple[str, ...]  # the policy's `fixtures:` (empty: every file in the folder)
    reads_fixtures: bool  # False: the tests read no fixture files, and the policy says so
    property_selection: str | None  # the pytest words selecting the property suite, if any
    property_command: str
    test_command: str
    setup_command: str | None  # the install step each job runs first; None: the commands' own
    red_green_command: str | None  # runs listed test ids, for the red-green job; None: no job
    waiver_repository: str  # OWNER/NAME of waiver
    waiver_ref: str  # the full commit of waiver to pin
    harness_globs: tuple[str, ...] = ()  # the policy's `harness:`, as `init --harness` gave
    package_scripts: tuple[str, ...] = ()  # the package scripts the commands run by name
    default_branch: str = "main"  # the branch whose pushes and schedule make the history
    runner: str | None = None  # the policy's `runner:`; None for pytest, the default
    node_version: str | None = None  # the Node the replay jobs set up, for a JavaScript runner
    python_version: str | None = None  # the workflow's python-version, when not its default
    app_client_id: str | None = None  # the team's app that posts the verdict; None: a status


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _locked_lines(setup: Setup) -> list[str]:
    """The policy's keys of what the lock holds beside the harness it finds: the fixtures,
    the harness's other files, the package scripts."""
    lines: list[str] = []
    if not setup.reads_fixtures:
        lines += [
            "",
            "# The tests read no fixture files: the lock holds the test harness alone. To lock",
            "# fixtures, list globs over paths inside the gate's --fixtures folder here.",
            "fixtures: []",
        ]
    elif setup.fixture_globs:
        lines += [
            "",
            f"# The fixtures, as globs over paths inside the gate's --fixtures folder "
            f"({setup.fixtures}); `*`",
            "# crosses `/`. Only these files are locked, so no other file there is drift.",
            "fixtures:",
            *(f"  - {_quoted(glob)}" for glob in setup.fixture_globs),
        ]
    if setup.harness_globs:
        lines += [
            "",
            "# Files of the test harness the gate cannot find by itself (a plugin list it cannot",
            "# read from the file, another runner's configuration): locked with it, so a change",
            "# to one is fixture_drift for every test. Paths from the repository root; `*`",
            "# crosses `/`.",
            "harness:",
            *(f"  - {_quoted(glob)}" for glob in setup.harness_globs),
        ]
    if setup.package_scripts:
        lines += [
            "",
            "# The package scripts the test and property commands run by name: the definition",
            "# of each, and of its pre and post scripts, is locked with the harness, so a change",
            "# to one is fixture_drift for every test.",
            "package_scripts:",
            *(f"  - {_quoted(name)}" for name in setup.package_scripts),
        ]
    return lines


def render_policy(setup: Setup) -> str:
    lines = [
        "# The waiver policy. The gate reads it, with the lock and the registry, from the pull",
        "# request's base commit, so a change cannot loosen the rules it is judged by: edit",
        "# it in a change of its own. Every key is optional.",
        "",
        "# The known-tests registry: every test id expected to run. A new id, or one that",
        "# stops running, is unknown_test and waits for a person.",
        f"registry: {_quoted(REGISTRY)}",
    ]
    if setup.runner is not None:
        lines += [
            "",
            "# The test runner the replays run: it decides which files are the harness the",
            "# lock holds, how a report's testcase becomes a test id, and how an edited test is",
            "# compared.",
            f"runner: {setup.runner}",
        ]
    lines += _locked_lines(setup)
    if setup.property_selection is not None:
        lines += [
            "",
            f"# The property suite is the tests that `{setup.property_selection}` selects among",
            "# the others, so its modules are test modules, not harness: a registered property",
            "# test the change edits (its body, its decorators or what it uses) is unknown_test",
            "# (edited) and waits for a person, like any registered test.",
            "property_suite: selected",
        ]
    lines += [
        "",
        "# Replays each test needs; a test with fewer outcomes is unknown_test.",
        f"min_replays: {REPLAYS}",
        "",
        "# A freeze proposal lives this many hours; a record in the store may live at most",
        "# max_freeze_hours.",
        "freeze_hours: 24",
        "max_freeze_hours: 168",
        "",
        "# `block`: an unstable test gets no freeze, and blocks, unless the base shows it",
        "# flipping too. The base's evidence costs no replay when the default branch's own",
        "# run of the base commit is in the history (waiver-history.yml records every push);",
        "# else the workflow's base-replays input runs them, and without either an unstable",
        "# test blocks. `review` only says so: a change that makes a test flip then merges",
        "# with a freeze proposal and a green check.",
        "introduced_instability: block",
        "",
        "# The freeze store, once `waiver freeze accept` has written one:",
        '# freezes: "freezes.json"',
        "",
        "# Tests that may never be frozen (safety code, migrations, authentication):",
        "# strict:",
        '#   - "tests/test_auth.py::*"',
    ]
    return "\n".join(lines) + "\n"


def render_workflow(setup: Setup) -> str:
    lines = [
        "# The waiver gate on every pull request: the property suite once, the assertion suite",
        f"# {REPLAYS} times, then one job that classifies every test id and blocks what must not",
        "# pass. Written by `waiver init`.",
        "#",
        "# waiver's reusable workflow is pinned by commit, and waiver-ref names the same commit,",
        "# so the gate's own code never comes from the change. To move to a newer waiver,",
        "# change the commit in both places.",
        "#",
        "# A review runs it too, without replays: the report workflow then re-judges the latest",
        "# run's reports, so that an approval of the head commit (by someone with write access",
        "# who wrote none of it) admits what blocks only for review. A merge queue runs it on",
        "# the merge group's commit, and the report workflow posts the status there. A push to",
        f"# {setup.default_branch}, and a daily schedule that replays its tip, feed the history",
        "# workflow, which keeps how each test behaved over time.",
        "name: waiver",
        "on:",
        "  pull_request:",
        "  pull_request_review:",
        "    types: [submitted, dismissed]",
        "  merge_group:",
        "  push:",
        f"    branches: [{_quoted(setup.default_branch)}]",
        "  schedule:",
        '    - cron: "17 4 * * *"',
        "permissions: {}",
        "jobs:",
        "  waiver:",
        "    permissions:",
        "      contents: read # the change and its base commit",
        "      pull-requests: read # the reviews, whose approvals the gate counts",
        *_pinned(setup, "waiver-gate.yml"),
        *(
            []
            if setup.setup_command is None
            else [
                "      # Installs what the suite needs, in every job before the suite runs (in the",
                "      # red-green job, from the base's code).",
                f"      setup-command: {_quoted(setup.setup_command)}",
            ]
        ),
        "      # Runs the property suite once and writes its JUnit XML to $WAIVER_JUNIT.",
        f"      property-command: {_quoted(setup.property_command)}",
        "      # Runs the assertion suite once and writes its JUnit XML to $WAIVER_JUNIT.",
        f"      test-command: {_quoted(setup.test_command)}",
        *(
            []
            if setup.red_green_command is None
            else [
                "      # Runs the test ids listed in $WAIVER_TESTS once and writes their JUnit XML to",
                "      # $WAIVER_JUNIT: the red-green job replays the change's new and edited tests",
                "      # on the base's code, as evidence beside their rows.",
                f"      red-green-command: {_quoted(setup.red_green_command)}",
            ]
        ),
        *(
            []
            if setup.node_version is None
            else [
                "      # The Node both commands run with (actions/setup-node).",
                f"      node-version: {_quoted(setup.node_version)}",
            ]
        ),
        *(
            [
                "      # The Python both commands run with, as the project declares it.",
                f"      python-version: {_quoted(setup.python_version)}",
            ]
            if setup.python_version is not None
            else []
        ),
        *_gate_inputs(setup),
    ]
    return "\n".join(lines) + "\n"


def _pinned(setup: Setup, workflow: str) -> list[str]:
    return [
        f"    uses: {setup.waiver_repository}/.github/workflows/{workflow}@{setup.waiver_ref}",
        "    with:",
        f"      waiver-repository: {_quoted(setup.waiver_repository)}",
        f"      waiver-ref: {_quoted(setup.waiver_ref)}",
    ]


def _gate_inputs(setup: Setup) -> list[str]:
    return [
        f"      replays: {REPLAYS}",
        f"      fixtures: {_quoted(setup.fixtures)}",
        f"      lock: {_quoted(LOCK)}",
        f"      known-tests: {_quoted(REGISTRY)}",
        f"      config: {_quoted(POLICY)}",
    ]


def render_report_workflow(setup: Setup) -> str:
    if setup.app_client_id is None:
        verdict = [
            "# The gate's verdict on the pull request: after every run of the waiver workflow, the",
            "# commit status `waiver` on the head commit, which the branch rule should require, and",
            "# one comment, edited in place. Written by `waiver init`.",
        ]
        app = [
            "      # The team's GitHub App that posts the verdict as the check run `waiver`, the one",
            "      # check no pull request's own workflow can post (docs/review.md, \"Which check to",
            '      # require"): its client ID, its key the secret WAIVER_APP_PRIVATE_KEY of the',
            "      # environment waiver-verdict, which only the default branch may use. Empty: the",
            "      # commit status `waiver`, which a same-repository pull request could also post.",
            '      app-client-id: ""',
        ]
    else:
        verdict = [
            "# The gate's verdict on the pull request: after every run of the waiver workflow, the",
            "# check run `waiver` of the team's GitHub App on the head commit, which the branch rule",
            "# should require from that app, and one comment, edited in place. Written by",
            "# `waiver init`.",
        ]
        app = [
            "      # The team's GitHub App that posts the check run `waiver`: its key is the secret",
            "      # WAIVER_APP_PRIVATE_KEY of the environment waiver-verdict, which only the default",
            "      # branch may use, so no pull request's workflow can post its check.",
            f"      app-client-id: {_quoted(setup.app_client_id)}",
        ]
    lines = [
        *verdict,
        "#",
        "# GitHub runs this file from the default branch, with a token that can write even for",
        "# a fork's pull request. It runs the gate itself on the triggering run's reports, with",
        "# the lock, registry and policy of the pull request's base; nothing of the change runs.",
        "# Only reports that a run of .github/workflows/waiver.yml, as the base holds it, made",
        "# for this pull request, on its base, are judged: any other run's get a failure.",
        "# Keep its inputs and its commit the same as the waiver workflow's.",
        "name: waiver report",
        "on:",
        "  # It runs none of the change's code: the gate reads the checkout in its container.",
        "  workflow_run: # zizmor: ignore[dangerous-triggers]",
        "    workflows: [waiver]",
        "    types: [completed]",
        "permissions: {}",
        "jobs:",
        "  report:",
        "    permissions:",
        "      actions: read # the triggering run's reports",
        "      contents: read # the merge ref and the base commit",
        "      pull-requests: write # the reviews, and the one comment",
        "      statuses: write # the `waiver` commit status on the head commit, without an app",
        "    cache-mode: none # it restores and saves no cache, so none can be poisoned for it",
        *_pinned(setup, "waiver-report.yml"),
        *_gate_inputs(setup),
        "      # The history shown beside each unstable or failing row: the newest one this",
        "      # file's runs on the default branch uploaded.",
        f"      history-workflow: {_quoted(HISTORY_WORKFLOW)}",
        *app,
        "      # false posts no comment; the verdict is posted whatever this says.",
        "      comment: true",
    ]
    return "\n".join(lines) + "\n"


def render_history_workflow(setup: Setup) -> str:
    lines = [
        "# The default branch's history of each test: after every run of the waiver workflow on",
        f"# a push to {setup.default_branch} or its schedule, that run's waiver.json is folded into the",
        "# artifact `waiver-history` (`waiver history show` reads it). A pull request's run is",
        "# never recorded. Written by `waiver init`; keep its commit the same as the waiver",
        "# workflow's.",
        "name: waiver history",
        "on:",
        "  # It runs none of the repository's code: waiver runs in its own image.",
        "  workflow_run: # zizmor: ignore[dangerous-triggers]",
        "    workflows: [waiver]",
        "    types: [completed]",
        "permissions: {}",
        "jobs:",
        "  history:",
        "    permissions:",
        "      actions: read # the run's waiver.json, and the latest history",
        "      contents: read # the policy file at the run's commit",
        "    cache-mode: none # it restores and saves no cache, so none can be poisoned for it",
        *_pinned(setup, "waiver-history.yml"),
        f"      config: {_quoted(POLICY)}",
    ]
    return "\n".join(lines) + "\n"
