"""What a test or property command runs by name, read from its words, never run: the
definitions a change could edit to grade its own replays without touching a test.

- a package script (`npm test`, `npm run test:unit`, `pnpm test`, `yarn test`, `yarn x`,
  `bun run x`), followed into the scripts it runs in turn: `waiver init` names each in the
  policy's `package_scripts`, which locks its definition (with its `pre` and `post`
  scripts) as a table of the root `package.json`;
- the file a task runner reads (`make` its Makefile or `-f FILE`, `nox` its noxfile, `tox`
  its `tox.ini` or `tox.toml`, `hatch` its `hatch.toml`) and a script the command runs
  (`./scripts/test.sh`, `bash ci/test.sh`, `python tools/run.py`): init adds each to the
  policy's `harness:` globs, so the whole file is locked.

A word the command computes (`$SCRIPT`, `$(…)`) names nothing that can be read here; a
file outside the repository, or under `node_modules`, is not the change's.
"""

from __future__ import annotations

import os
import posixpath
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from waiver.init.layout import literal_glob
from waiver.read.lock.lock_file import PACKAGE_JSON, SCRIPTS, scripts_around
from waiver.read.untrusted.bounded import read_json
from waiver.read.untrusted.files import read_small

# The words that end one simple command of a shell line.
SEPARATORS = frozenset({"&&", "||", ";", "|", "&", "\n", "(", ")"})
# Package managers, and the words by which each runs a script: `npm test`, `npm run x`.
PACKAGE_MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun"})
TEST_WORDS = frozenset({"test", "t", "tst"})
RUN_WORDS = frozenset({"run", "run-script", "rum", "urn"})
# What each task runner reads, when no option names another file.
TASK_FILES = {
    "make": ("GNUmakefile", "makefile", "Makefile"),
    "nox": ("noxfile.py",),
    "tox": ("tox.ini", "tox.toml"),
    "hatch": ("hatch.toml",),
}
FILE_OPTIONS = {"make": ("-f", "--file", "--makefile"), "nox": ("-f", "--noxfile"), "tox": ("-c",)}
INTERPRETERS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "python", "python3", "node"})
NOT_THE_CHANGES = "node_modules"
MAX_PACKAGE_BYTES = 1 << 20


@dataclass(frozen=True)
class RunByName:
    """The package scripts and the files that commands run by name."""

    scripts: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    def globs(self, given: Iterable[str]) -> tuple[str, ...]:
        """The `harness:` globs `given`, and one for each file, anchored at the root."""
        return tuple(dict.fromkeys([*given, *("/" + literal_glob(path) for path in self.files)]))


def _simple_commands(command: str) -> Iterator[list[str]]:
    """The words of each simple command of a shell line, environment assignments and
    `env` in front of it left out; a line that does not split as a shell's gives none."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:
        return
    current: list[str] = []
    for word in [*words, ";"]:
        if word in SEPARATORS or set(word) <= set("&|;()"):
            if current:
                yield current
            current = []
        elif current or not ("=" in word and word.partition("=")[0].isidentifier()):
            current.append(word)


def _program(words: list[str]) -> list[str]:
    while words and posixpath.basename(words[0]) in ("env", "exec", "command", "time"):
        words = [w for w in words[1:] if not w.startswith("-")]
        while words and "=" in words[0] and words[0].partition("=")[0].isidentifier():
            words = words[1:]
    return words


class _Reader:
    """The repository's files, as a command run from its root names them."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.scripts = self._package_scripts()

    def _package_scripts(self) -> dict[str, str]:
        """The root package.json's scripts; none without one."""
        if self.file(PACKAGE_JSON) is None:
            return {}
        path = os.path.join(self.root, PACKAGE_JSON)
        document = read_json(read_small(path, MAX_PACKAGE_BYTES, PACKAGE_JSON), PACKAGE_JSON)
        scripts = document.get(SCRIPTS) if isinstance(document, dict) else None
        if not isinstance(scripts, dict):
            return {}
        return {name: text for name, text in scripts.items() if isinstance(text, str)}

    def file(self, word: str) -> str | None:
        """The repository file a word names, relative to the root; None for anything else."""
        if not word or word.startswith(("-", "$")) or "$(" in word or "`" in word:
            return None
        path = posixpath.normpath(word)
        if path.startswith(("../", "/")) or path == ".." or NOT_THE_CHANGES in path.split("/"):
            return None
        full = os.path.join(self.root, path)
        return path if os.path.isfile(full) and not os.path.islink(full) else None


def _script_named(words: list[str], reader: _Reader) -> str | None:
    """The package script a package manager's words run, if they run one."""
    manager, rest = posixpath.basename(words[0]), [w for w in words[1:] if not w.startswith("-")]
    if manager not in PACKAGE_MANAGERS or not rest:
        return None
    first = rest[0]
    if first in TEST_WORDS and manager != "bun":  # `bun test` is bun's own runner
        return "test"
    if first in RUN_WORDS:
        return rest[1] if len(rest) > 1 else None
    # `yarn x` and `pnpm x` run the script x when the package has one.
    return first if manager in ("yarn", "pnpm") and first in reader.scripts else None


def _task_file(words: list[str], reader: _Reader) -> str | None:
    """The file a task runner reads: the one an option names, else its default."""
    program = posixpath.basename(words[0])
    if program not in TASK_FILES:
        return None
    options = FILE_OPTIONS.get(program, ())
    for index, word in enumerate(words[1:], start=1):
        name, equals, value = word.partition("=")
        if equals and name in options:
            return reader.file(value)
        if word in options and index + 1 < len(words):
            return reader.file(words[index + 1])
    return next((f for f in TASK_FILES[program] if reader.file(f) is not None), None)


def _script_file(words: list[str], reader: _Reader) -> str | None:
    """A script the command runs: the program itself as a path, or the first file an
    interpreter is given."""
    if "/" in words[0]:
        return reader.file(words[0])
    if posixpath.basename(words[0]) in INTERPRETERS:
        return next((reader.file(w) for w in words[1:] if not w.startswith("-")), None)
    return None


def run_by_name(commands: Iterable[str | None], root: str = ".") -> RunByName:
    """The package scripts and the files the `commands` (a shell line each) run by name,
    scripts followed into what they run in turn."""
    reader = _Reader(root)
    scripts: dict[str, None] = {}
    files: dict[str, None] = {}
    pending: list[str] = [command for command in commands if command]
    while pending:
        for words in map(_program, _simple_commands(pending.pop())):
            if not words:
                continue
            script = _script_named(words, reader)
            if script is not None and script not in scripts:
                scripts[script] = None
                around = scripts_around(script)
                pending += [reader.scripts[s] for s in around if s in reader.scripts]
            for found in (_task_file(words, reader), _script_file(words, reader)):
                if found is not None:
                    files[found] = None
    return RunByName(tuple(sorted(scripts)), tuple(sorted(files)))
