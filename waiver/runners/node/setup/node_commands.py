"""The commands `waiver init` writes for a JavaScript project: the install step, and the
runner's property, test and red-green commands, each starting the project's local binary as
its own test script does (`waiver.runners.node.setup.test_script`), never a download.

jest reports through jest-junit. A project that does not depend on it gets it from the
install step, into a folder of its own under `node_modules` (`node_modules/.waiver`, which
git ignores with the rest), whatever its package manager: the commands load it from there,
and the project's `package.json` and lockfile stay as they are.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from waiver.init.plan import InitOptions
from waiver.init.problems import Problems
from waiver.runners import NODE_RUNNERS
from waiver.runners.node import JEST_JUNIT
from waiver.runners.node.setup.node_layout import BUN_LOCKFILES, NodeLayout, install_step
from waiver.runners.node.setup.test_script import read_test_script

INSTALLS = "node_modules"
# jest-junit for a project that does not depend on it: the version the gate's ids are
# read from (docs/junit.md), installed apart from the project's own packages.
REPORTER_FOLDER = f"{INSTALLS}/.waiver"
JEST_JUNIT_VERSION = "16.0.0"
REPORTER_INSTALL = (
    "npm install --no-save --no-package-lock --no-audit --no-fund "
    f"--prefix {REPORTER_FOLDER} {JEST_JUNIT}@{JEST_JUNIT_VERSION}"
)
REPORTER_MODULE = f"./{REPORTER_FOLDER}/{INSTALLS}/{JEST_JUNIT}"
DEPENDENCY_TABLES = ("devDependencies", "dependencies")


@dataclass(frozen=True)
class NodeCommands:
    """The install step (the workflow's setup command), the runner's property, test and
    red-green commands, and what init says of them."""

    packages: str | None  # None: bun's lockfile without --setup-command (a problem already)
    properties: str
    tests: str
    red_green: str | None  # None beside a --test-command, whose settings init cannot know
    lines: tuple[str, ...] = ()
    reporter_install: str | None = None  # the install of jest-junit the commands need

    @property
    def install(self) -> str | None:
        """The workflow's setup command: the packages' install, then the reporter's."""
        if self.packages is None or self.reporter_install is None:
            return self.packages
        return f"{self.packages} && {self.reporter_install}"


def _depends_on(package: dict[str, object], name: str) -> bool:
    tables = (package.get(key) for key in DEPENDENCY_TABLES)
    return any(isinstance(table, dict) and name in table for table in tables)


def node_commands(
    layout: NodeLayout, options: InitOptions, package: dict[str, object], problems: Problems
) -> NodeCommands:
    """The commands init writes; what stops them goes to `problems`."""
    runner = NODE_RUNNERS[layout.runner]
    if (options.property_command is None) != (options.test_command is None):
        problems.add("give --property-command and --test-command together")
    install = options.setup_command or install_step(".")
    if install is None:
        problems.add(
            f"{' or '.join(BUN_LOCKFILES)}: init writes the install step of npm, pnpm and "
            "yarn, and this project locks its packages with bun; give the install step with "
            "--setup-command"
        )
    script = read_test_script(package, runner)
    invocation = script.invocation
    lines = list(script.lines)
    reporter_install = None
    if layout.runner == "jest" and not _depends_on(package, JEST_JUNIT):
        invocation = replace(invocation, reporter=REPORTER_MODULE)
        reporter_install = REPORTER_INSTALL
        lines.append(
            f"{JEST_JUNIT} is no dependency of package.json: the setup command installs "
            f"{JEST_JUNIT} {JEST_JUNIT_VERSION} into {REPORTER_FOLDER}, which the commands "
            "report with"
        )
    properties, tests = runner.suite_commands(
        layout.property_folders, layout.property_files, invocation
    )
    given = options.test_command is not None
    return NodeCommands(
        install,
        options.property_command or properties,
        options.test_command or tests,
        None if given else runner.red_green(invocation),
        () if given else tuple(lines),
        reporter_install,
    )


def missing_runner(layout: NodeLayout, options: InitOptions, commands: NodeCommands) -> str | None:
    """The problem of a runner init cannot run its commands with: its binary is not in
    `node_modules/.bin`, and no `npm ci` of init's will put it there. None with given
    commands, which name their own."""
    if options.test_command is not None or commands.packages is None:
        return None
    if options.verify and layout.lockfile is not None:
        return None  # `npm ci` installs it first
    binary = os.path.join(INSTALLS, ".bin", layout.runner)
    if os.path.exists(binary):
        return None
    return (
        f"{binary} is missing, and init runs the suite once with it: install the project's "
        f"packages first ({commands.packages})"
    )
