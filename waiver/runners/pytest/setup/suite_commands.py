"""The commands `waiver init` writes and prints: the workflow's property and test commands,
each starting with the install step, and the command that refreshes the registry."""

from __future__ import annotations

import os
import re
import shlex
from fnmatch import fnmatchcase

from waiver.errors import UsageError
from waiver.init.layout import Layout, inside
from waiver.runners.pytest.setup.pyproject import PYPROJECT, read_install_tables
from waiver.runners.pytest.setup.tool_envs import ToolEnvs, install_words
from waiver.write.files.setup_files import REGISTRY

# The names a project gives its test dependencies, as an extra or a dependency group.
TEST_SETS = ("test", "tests", "testing")
# The set of every tool a developer uses, the tests' dependencies among them: installed
# only when nothing names the tests' own, since its linters and type checkers cost each
# test job their install and no test imports them.
DEV_SET = "dev"
# Requirements files, by folder ("" the root): the names a project gives the file of its
# tests' dependencies, and of its developers' tools (taken as the dev set is).
REQUIREMENTS = {
    "": ("requirements-test*.txt", "requirements_test*.txt", "test-requirements*.txt"),
    "requirements": ("test*.txt",),
}
DEV_REQUIREMENTS = {
    "": ("requirements-dev*.txt", "requirements_dev*.txt", "dev-requirements*.txt",
         "requirements-ci.txt"),
    "requirements": ("dev*.txt", "ci.txt"),
}  # fmt: skip
# Tools a test environment lists that no test imports: linters, formatters, type checkers
# (and, by prefix or suffix below, their plugins and stubs), the environment managers,
# coverage uploaders and packaging tools. pytest's own plugins stay: a configuration may
# name them (`--cov` in addopts).
TOOLS = frozenset({
    "ruff", "mypy", "pyright", "flake8", "pylint", "black", "isort", "autopep8", "yapf",
    "pyupgrade", "pycodestyle", "pydocstyle", "pyflakes", "bandit", "pre-commit", "tox",
    "nox", "hatch", "codecov", "coveralls", "twine", "build", "check-manifest", "sphinx",
    "mkdocs",
})  # fmt: skip
TOOL_PREFIXES = ("types-", "flake8-", "sphinx-", "mkdocs-")
# A requirement's distribution name: what precedes its extras, version, marker or URL.
DISTRIBUTION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
# The first pip that installs a dependency group (`--group`).
GROUPS_PIP = "pip>=25.1"
# The pytest options a property selection may be given by, each with an expression.
SELECTING_FLAGS = ("-m", "-k")


def requirement_files(names: dict[str, tuple[str, ...]]) -> list[str]:
    """The requirements files whose names match `names` (patterns by folder, "" the root),
    sorted: `test-requirements.txt`, `requirements/tests-py3.txt`, …"""
    found = []
    for folder, patterns in names.items():
        if not os.path.isdir(folder or "."):
            continue
        for name in sorted(os.listdir(folder or ".")):
            path = os.path.join(folder, name) if folder else name
            if os.path.isfile(path) and any(fnmatchcase(name, p) for p in patterns):
                found.append(path.replace(os.sep, "/"))
    return found


def is_tool(requirement: str) -> bool:
    """Whether a requirement names a tool no test imports (TOOLS)."""
    match = DISTRIBUTION.match(requirement)
    name = re.sub(r"[-_.]+", "-", match[0]).lower() if match else ""
    return name in TOOLS or name.startswith(TOOL_PREFIXES) or name.endswith("-stubs")


def without_tools(words: list[str]) -> list[str]:
    """pip words but the requirements that name a tool no test imports; a file option
    keeps its file."""
    kept: list[str] = []
    pending = iter(words)
    for word in pending:
        if word in ("-r", "-c"):
            kept += [word, next(pending, "")]
        elif not is_tool(word):
            kept.append(word)
    return kept


def install_step(envs: ToolEnvs) -> str:
    """The install step both commands start with, from what the repository declares: the
    project with its test extra or dependency group, else its requirements; the
    requirements files of its test dependencies; and what its tox, nox or hatch test
    environment installs (`envs`), but the tools no test imports. The dev set (a `dev`
    extra or group, `requirements-dev.txt`) stands in only when none of those names the
    tests' dependencies: each test job pays for every package the step installs.

    pyproject.toml is read strictly (`read_install_tables`): a step written around a
    guess at a malformed table would fail on every pull request.
    """
    project, extras, groups = read_install_tables(PYPROJECT)
    extra = next((name for name in TEST_SETS if name in extras), None)
    group = next((name for name in TEST_SETS if name in groups), None)
    files = requirement_files(REQUIREMENTS)
    if not (extra or group or files or envs.words or envs.extras):
        extra = DEV_SET if DEV_SET in extras else None
        group = DEV_SET if DEV_SET in groups else None
        files = requirement_files(DEV_REQUIREMENTS)
    if project or os.path.isfile("setup.py") or os.path.isfile("setup.cfg"):
        wanted = ",".join(dict.fromkeys([*([extra] if extra else []), *envs.extras]))
        words = ["-e", f".[{wanted}]" if wanted else "."]
    elif os.path.isfile("requirements.txt"):
        words = ["-r", "requirements.txt"]
    else:
        words = []
    for path in files:
        words += ["-r", path]
    words = install_words(words, ToolEnvs(without_tools(envs.words), envs.extras))
    runners = [name for name in ("pytest", "hypothesis") if name not in words]
    install = f"python -m pip install {shlex.join([*words, *runners])}"
    if group is None:
        return install
    # pip reads dependency groups from 25.1 on; a fresh venv of Python 3.11 brings 23.2.
    return f"python -m pip install {shlex.quote(GROUPS_PIP)} && {install} --group {group}"


def pytest_words(layout: Layout) -> tuple[list[str], list[str]]:
    """The pytest arguments of the property suite and of the assertion suite.

    Both run with `--rootdir=.`, so ids are relative to the repository root whatever the
    configuration. The property suite runs with `-m ''` unless it is selected by marker:
    a project that keeps its properties opt-in (`addopts = -m "not property"`) would
    otherwise run none of them. A selection runs in the test folders, and the assertion
    suite there is its complement.
    """
    if layout.property_selection:
        return _selected_words(layout.test_folders, layout.property_selection)
    suites = list(layout.property_suites)
    tests = list(layout.test_folders) + [
        f"--ignore={suite}"
        for suite in suites
        if any(inside(suite, folder) for folder in layout.test_folders)
    ]
    return ["--rootdir=.", "-m", "", *suites], ["--rootdir=.", *tests]


def _selected_words(
    folders: tuple[str, ...], selection: tuple[str, ...]
) -> tuple[list[str], list[str]]:
    """The property and assertion arguments of a selection: `-m EXPR` and `-m "not EXPR"`,
    `-k EXPR` and `-k "not EXPR"`, or the test ids and the folders without them."""
    flag = selection[0]
    if flag in SELECTING_FLAGS:
        expression = selection[1]
        negated = f"not {expression}" if expression.isidentifier() else f"not ({expression})"
        lifted = ["-m", ""] if flag == "-k" else []
        return (
            ["--rootdir=.", *lifted, *folders, flag, expression],
            ["--rootdir=.", *folders, flag, negated],
        )
    return (
        ["--rootdir=.", "-m", "", *selection],
        ["--rootdir=.", *folders, *(f"--deselect={test_id}" for test_id in selection)],
    )


def parse_selection(text: str) -> tuple[str, ...]:
    """The words of --property-select: `-m EXPR`, `-k EXPR`, or one or more test ids."""
    try:
        words = tuple(shlex.split(text))
    except ValueError as error:
        raise UsageError(f"--property-select {text!r}: {error}") from None
    by_flag = len(words) == 2 and words[0] in SELECTING_FLAGS and words[1].strip()
    ids = bool(words) and all("::" in word and not word.startswith("-") for word in words)
    if not (by_flag or ids):
        raise UsageError(
            f"--property-select takes -m EXPR, -k EXPR or test ids (path::name), got {text!r}"
        )
    return words


def commands(
    layout: Layout,
    property_command: str | None,
    test_command: str | None,
    envs: ToolEnvs,
    setup_command: str | None = None,
) -> tuple[str, str, str]:
    """The workflow's setup command, and its property and test commands, each writing
    "$WAIVER_JUNIT": the ones given, else pytest. The setup command is the one given, else
    the install step init finds, whatever commands were given: they run after it."""
    property_words, test_words = pytest_words(layout)
    junit = '--junitxml="$WAIVER_JUNIT"'
    setup = setup_command if setup_command is not None else install_step(envs)
    property_command = property_command or f"python -m pytest {shlex.join(property_words)} {junit}"
    test_command = test_command or f"python -m pytest {shlex.join(test_words)} {junit}"
    for flag, command in (
        ("--property-command", property_command),
        ("--test-command", test_command),
        ("--setup-command" if setup_command is not None else "the install step", setup),
    ):
        if "${{" in command:
            raise UsageError(f"{flag}: GitHub would read '${{{{' in it as an expression")
    return setup, property_command, test_command


def _argument(text: str) -> str:
    """`text` as one shell word, in double quotes when nothing in it is special there, so
    that the `''` inside reads plainly."""
    if not any(char in text for char in '"$`\\!'):
        return f'"{text}"'
    return shlex.quote(text)


def registry_refresh(
    layout: Layout, property_command: str | None = None, test_command: str | None = None
) -> str:
    """The command that writes the registry again from one real run: the property and test
    commands given to init (run by `sh -c`, so "$WAIVER_JUNIT" is the report), else pytest
    as init runs it."""
    property_words, test_words = pytest_words(layout)
    properties = (
        f"python -m pytest {shlex.join(property_words)} --junitxml={{junit}}"
        if property_command is None
        else shlex.join(["sh", "-c", property_command])
    )
    tests = (
        f"python -m pytest {shlex.join(test_words)} --junitxml={{junit}}"
        if test_command is None
        else shlex.join(["sh", "-c", test_command])
    )
    # The replay's reports go to a folder of their own outside the repository, so the
    # refresh leaves nothing behind in the work tree but the registry.
    return (
        f'scratch="$(mktemp -d)" && waiver replay -n 1 --out "$scratch" '
        f"--properties-first {_argument(properties)} -- {tests} && waiver baseline "
        f'--reports "$scratch" --properties "$scratch/properties.xml" --out {REGISTRY}'
    )
