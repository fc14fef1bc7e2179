"""How a JavaScript project runs its own tests, read from `package.json`'s `test` script, for
the commands `waiver init` writes: they start the runner as the project does, with what the
script sets, and say what they leave out and why.

The script is read, never run. It is split at the shell's `&&`, `||`, `;` and `|` into
commands; a command that runs another script (`npm run test:unit`, `pnpm test:unit`, `yarn
test:unit`) is followed, and the one that starts the runner is taken apart: the variables
set before it (`NODE_OPTIONS=… jest`, `cross-env NODE_ENV=test jest`), the options `node`
gets when it starts the runner's file (`node --experimental-vm-modules
node_modules/jest/bin/jest.js`, which become `NODE_OPTIONS`), however it is started (`npx`,
`pnpm exec`, `yarn`, the binary's path), and its own options and arguments. Each option is
kept unless the runner's module leaves it out (`NodeRunner.left_out`: coverage, watching,
reporters, …), and the script's own test paths are kept for the test command. Every other
command of the script is left out, named: it is not the test runner.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from itertools import takewhile

from waiver.runners.node import Invocation, NodeRunner

SCRIPT = "test"
OPERATORS = frozenset({"&&", "||", ";", "|", "&", "(", ")"})
ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.DOTALL)
# What starts a package's binary without being it, by the words it takes.
LAUNCHERS = (
    ("npx", "--no-install"),
    ("npx", "--no"),
    ("npx",),
    ("pnpm", "exec"),
    ("pnpm",),
    ("yarn", "exec"),
    ("yarn", "run"),
    ("yarn",),
    ("npm", "exec", "--"),
    ("npm", "exec"),
    ("cross-env",),
    ("env",),
)
# The commands that run another script of package.json.
SCRIPT_RUNNERS = (("npm", "run"), ("npm", "run-script"), ("pnpm", "run"), ("yarn", "run"))
SHORT_RUNNERS = ("pnpm", "yarn")
# vitest's subcommands: `run` is what the written commands do; the others never end.
VITEST_SUBCOMMANDS = {"run": None, "watch": "a replay must end", "dev": "a replay must end"}
MAX_INDIRECTIONS = 5


@dataclass(frozen=True)
class ScriptRun:
    """How the test script starts the runner, and what the written commands say of it."""

    invocation: Invocation
    lines: tuple[str, ...]  # what was kept and what was left out, and why


def _commands(script: str) -> list[list[str]]:
    """The script's commands: its words, split at the shell's operators."""
    lexer = shlex.shlex(script, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    try:
        for word in lexer:
            if word in OPERATORS:
                commands.append([])
            else:
                commands[-1].append(word)
    except ValueError:
        return []  # an unbalanced quote: the shell would not run it either
    return [command for command in commands if command]


def _starts(words: list[str], launcher: tuple[str, ...]) -> bool:
    return tuple(words[: len(launcher)]) == launcher


def _runs_script(words: list[str], scripts: dict[str, object]) -> str | None:
    """The name of the package script a command runs, if it runs one."""
    for runner in SCRIPT_RUNNERS:
        if _starts(words, runner) and len(words) > len(runner):
            return words[len(runner)]
    if words[0] in SHORT_RUNNERS and len(words) > 1 and words[1] in scripts:
        return words[1]
    if words[:2] == ["npm", "test"] or words[:2] == ["npm", "t"]:
        return SCRIPT
    return None


def _is_binary(word: str, runner: str) -> bool:
    """Whether `word` starts `runner`: its name, its linked binary, or its package's file."""
    name = word.rsplit("/", 1)[-1]
    return name in (runner, f"_{runner}") or f"node_modules/{runner}/" in word


def _unwrap(words: list[str], runner: str) -> tuple[list[tuple[str, str]], list[str]] | None:
    """The variables a command sets and the runner's own words, when the command starts
    `runner`; None when it does not."""
    environment: list[tuple[str, str]] = []
    rest = list(words)
    while rest:
        assignment = ASSIGNMENT.fullmatch(rest[0])
        if assignment is not None:
            environment.append((assignment[1], assignment[2]))
            rest = rest[1:]
            continue
        launcher = next((each for each in LAUNCHERS if _starts(rest, each)), None)
        if launcher is not None:
            rest = rest[len(launcher) :]
            continue
        if rest[0] == "node":
            options = list(takewhile(lambda word: word.startswith("-"), rest[1:]))
            rest = rest[1 + len(options) :]
            if options:
                environment.append(("NODE_OPTIONS", " ".join(options)))
            continue
        break
    if not rest or not _is_binary(rest[0], runner):
        return None
    return environment, rest[1:]


def _option_name(word: str) -> str:
    return word.partition("=")[0]


def _left_out(name: str, runner: NodeRunner) -> tuple[bool, str] | None:
    """Whether the option `name` is left out: (whether it takes a value, why)."""
    found = runner.left_out.get(name)
    if found is None:
        found = next(
            (
                each
                for key, each in runner.left_out.items()
                if key.endswith(".") and name.startswith(key)
            ),
            None,
        )
    return None if found is None else (found.takes_value, found.why)


def _taken_apart(words: list[str], runner: NodeRunner) -> tuple[list[str], list[str], list[str]]:
    """The runner's words: the options kept, the test paths, and a line for each word
    left out."""
    options: list[str] = []
    arguments: list[str] = []
    left: list[str] = []
    if runner.name == "vitest" and words and words[0] in VITEST_SUBCOMMANDS:
        why = VITEST_SUBCOMMANDS[words[0]]
        if why is not None:
            left.append(f"`{words[0]}` ({why})")
        words = words[1:]
    pending = iter(words)
    for word in pending:
        if not word.startswith("-") or word == "--":
            if word != "--":
                arguments.append(word)
            continue
        name = _option_name(word)
        out = _left_out(name, runner)
        if out is not None:
            takes_value, why = out
            value = next(pending, "") if takes_value and "=" not in word else ""
            left.append(f"`{shlex.join([word, value]) if value else word}` ({why})")
        elif name in runner.value_options and "=" not in word:
            options += [word, next(pending, "")]
        else:
            options.append(word)
    return options, arguments, left


def read_test_script(package: dict[str, object], runner: NodeRunner) -> ScriptRun:
    """How `package.json`'s test script starts `runner`, and the lines that say what the
    written commands keep of it and leave out."""
    table = package.get("scripts")
    scripts = table if isinstance(table, dict) else {}
    name: str | None = SCRIPT
    seen: set[str] = set()
    left: list[str] = []
    for _ in range(MAX_INDIRECTIONS):
        script = scripts.get(name) if name is not None and name not in seen else None
        if name is None or not isinstance(script, str):
            break
        seen.add(name)
        found = None
        others: list[list[str]] = []
        for words in _commands(script):
            unwrapped = _unwrap(words, runner.name)
            if unwrapped is not None and found is None:
                found = unwrapped
            else:
                others.append(words)
        runs = [(words, _runs_script(words, scripts)) for words in others]
        named = [each for _, each in runs if each is not None and each not in seen]
        # The script run that leads to the runner: one that names it, else the first.
        name = (
            None
            if found is not None
            else next(
                (each for each in named if runner.name in str(scripts.get(each, ""))),
                next(iter(named), None),
            )
        )
        left += [
            f"`{shlex.join(words)}` (not {runner.name})"
            for words, each in runs
            if each is None or each != name
        ]
        if found is not None:
            return _found(runner, script, found, left)
    lines = [f"left out of the test script: {line}" for line in left]
    if SCRIPT in scripts:
        lines.append(
            f"package.json's test script does not start {runner.name} itself: the written "
            "commands start it with no option of the script's"
        )
    return ScriptRun(Invocation(), tuple(lines))


def _found(
    runner: NodeRunner,
    script: str,
    unwrapped: tuple[list[tuple[str, str]], list[str]],
    left: list[str],
) -> ScriptRun:
    environment, words = unwrapped
    options, arguments, left_words = _taken_apart(words, runner)
    invocation = Invocation(tuple(environment), tuple(options), tuple(arguments))
    kept = [f"{name}={value}" for name, value in environment] + options + arguments
    lines = []
    if kept:
        lines.append(f"kept from the test script `{script}`: {shlex.join(kept)}")
    lines += [f"left out of the test script: {line}" for line in [*left_words, *left]]
    return ScriptRun(invocation, tuple(lines))
