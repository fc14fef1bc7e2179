"""The test environment a project declares for tox, nox or hatch, read from its files alone,
for the install step `waiver init` writes.

- tox: the `deps` and `extras` of `[testenv:test]`, `[testenv:tests]` or else `[testenv]`
  (a named environment takes what it does not set from `[testenv]`, as tox does), in
  `tox.ini`, in `[tool.tox] legacy_tox_ini`, or in tox's own tables of `pyproject.toml`
  (`[tool.tox.env.test]`, `[tool.tox.env_run_base]`); a requirements file as pip takes it
  (`-r FILE`, `-rFILE`, `--requirement=FILE`, and `-c` for constraints), `{toxinidir}` as
  the root, and another section's value (`{[testenv]deps}`) in its place, as tox does;
- nox: the literal arguments of `session.install(...)` in the session named `test` or
  `tests` of `noxfile.py`, read as a syntax tree: the noxfile is never run;
- hatch: the `dependencies`, `extra-dependencies` and `features` of the environment
  `hatch test` runs in (`[tool.hatch.envs.hatch-test]`), else of `[tool.hatch.envs.test]`,
  else of `[tool.hatch.envs.default]` (or `[envs.…]` of `hatch.toml`).

What is not a literal requirement, a requirements file or an extra (a substitution tox
takes from the environment, a tox factor `py38: mock`, a variable passed to
`session.install`, an option pip would read otherwise) is a problem naming where it is and
what to write instead: an install step that guesses around it would fail on every pull
request.
"""

from __future__ import annotations

import ast
import configparser
import os
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from waiver.errors import InputError
from waiver.read.untrusted.bounded import read_toml

TOX_ENVS = ("test", "tests")
NOX_SESSIONS = frozenset(TOX_ENVS)
HATCH_ENVS = ("hatch-test", "test", "tests", "default")
FILE_OPTIONS = {"-r": "-r", "--requirement": "-r", "-c": "-c", "--constraint": "-c"}
# A file option with its file in the same word: `-rrequirements.txt`, `--constraint=c.txt`.
ATTACHED_FILE = re.compile(r"(-r|-c|--requirement=|--constraint=)(\S+)")
# `py38: mock`, `!pypy,py39: mock`: a dependency of some tox environments only.
TOX_FACTOR = re.compile(r"!?[\w.-]+(?:,\s*!?[\w.-]+)*:\s")
# tox's substitution of another section's value: `{[testenv]deps}`.
TOX_REFERENCE = re.compile(r"\{\[([^\]]+)\]([\w-]+)\}")
# The repository root in tox's words, which the install step runs at.
TOX_ROOT = re.compile(r"\{toxinidir\}/?")
# An inline comment, which tox and pip leave out of a requirement line.
INLINE_COMMENT = re.compile(r"\s+#.*$")
# The project itself, as pip is told to install it: `.`, `-e .`, `.[test,docs]`.
PROJECT = re.compile(r"\.(?:\[([\w.,\s-]*)\])?")
INSTEAD = (
    "list the test dependencies in requirements-dev.txt or a `test` extra, which the install "
    "step takes, or give the install step itself with --setup-command"
)


@dataclass
class ToolEnvs:
    """What the declared test environments install besides the project: pip words
    (requirements, `-r FILE`, `-c FILE`), the project's extras, and what could not be read."""

    words: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def take(self, where: str, tokens: Iterable[str]) -> None:
        """The pip arguments `tokens` that `where` declares, each a requirement, a file
        option with its file, or the project with its extras."""
        pending = iter(tokens)
        for token in pending:
            token = TOX_ROOT.sub("", INLINE_COMMENT.sub("", token.strip()))
            attached = ATTACHED_FILE.fullmatch(token)
            if not token or token.startswith("#"):
                continue
            if attached is not None:
                self._option(where, attached[1].rstrip("="), attached[2])
            elif "{" in token or "}" in token:
                self.problems.append(
                    f"{where}: `{token}` is a substitution, not a literal; {INSTEAD}"
                )
            elif TOX_FACTOR.match(token):
                self.problems.append(
                    f"{where}: `{token}` applies to some environments only; {INSTEAD}"
                )
            elif token in FILE_OPTIONS or token in ("-e", "--editable"):
                self._option(where, token, next(pending, ""))
            elif token.startswith("-"):
                self.problems.append(
                    f"{where}: `{token}` is an option init does not read; {INSTEAD}"
                )
            elif PROJECT.fullmatch(token):
                self._project(token)
            else:
                self.words.append(token)

    def _option(self, where: str, option: str, value: str) -> None:
        value = TOX_ROOT.sub("", value)
        if option in ("-e", "--editable"):
            if PROJECT.fullmatch(value):
                self._project(value)
            else:
                self.problems.append(f"{where}: `{option} {value}` is not the project; {INSTEAD}")
            return
        path = os.path.normpath(value).replace(os.sep, "/")
        if not value or path.startswith("../") or os.path.isabs(path) or not os.path.isfile(path):
            self.problems.append(
                f"{where}: `{option} {value}` names no file of the repository; {INSTEAD}"
            )
            return
        self.words += [FILE_OPTIONS[option], path]

    def _project(self, token: str) -> None:
        match = PROJECT.fullmatch(token)
        if match is not None and match[1]:
            self.extras += [name.strip() for name in match[1].split(",") if name.strip()]


def _lines(value: str) -> list[str]:
    """tox's list value: one item a line; a line of options split into its words."""
    found = []
    for line in value.splitlines():
        line = line.strip()
        found += shlex.split(line, comments=True) if line.startswith("-") else [line]
    return found


# How deep one section's value may name another's: tox stops a loop, and so does init.
MAX_REFERENCES = 10


def _expanded(parser: configparser.ConfigParser, value: str, depth: int = 0) -> str:
    """A tox value with each `{[section]key}` replaced by that section's value, as tox reads
    it; one that names no value, or names values too deep, is left for `take` to name."""

    def value_of(match: re.Match[str]) -> str:
        section, key = match[1], match[2]
        if depth >= MAX_REFERENCES or not parser.has_option(section, key):
            return match[0]
        return _expanded(parser, parser.get(section, key), depth + 1)

    return TOX_REFERENCE.sub(value_of, value)


def _tox_ini(text: str, source: str, envs: ToolEnvs) -> None:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text, source)
    except configparser.Error as error:
        envs.problems.append(f"{source}: not an ini file tox reads: {error}")
        return
    named = next((f"testenv:{n}" for n in TOX_ENVS if parser.has_section(f"testenv:{n}")), None)
    for key in ("deps", "extras"):
        section = next((s for s in (named, "testenv") if s and parser.has_option(s, key)), None)
        if section is None:
            continue
        value = _expanded(parser, parser.get(section, key))
        where = f"{source} [{section}] {key}"
        if key == "deps":
            envs.take(where, _lines(value))
        else:
            envs.take(where, [f".[{name}]" for name in re.split(r"[,\s]+", value) if name])


def _strings(value: object, where: str, envs: ToolEnvs) -> list[str]:
    """A TOML array of strings; anything else is a problem."""
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    envs.problems.append(f"{where} is not an array of literal strings; {INSTEAD}")
    return []


def _table(document: dict[str, Any], *keys: str) -> dict[str, Any]:
    found: object = document
    for key in keys:
        found = found.get(key) if isinstance(found, dict) else None
    return found if isinstance(found, dict) else {}


def _tox_toml(tox: dict[str, Any], envs: ToolEnvs) -> None:
    named = next((n for n in TOX_ENVS if n in _table(tox, "env")), None)
    for key in ("deps", "extras"):
        tables = ([(f"env.{named}", _table(tox, "env", named))] if named else []) + [
            ("env_run_base", _table(tox, "env_run_base"))
        ]
        where, table = next(((w, t) for w, t in tables if key in t), ("", {}))
        if not table:
            continue
        items = _strings(table[key], f"pyproject.toml [tool.tox.{where}] {key}", envs)
        tokens = _lines("\n".join(items)) if key == "deps" else [f".[{n}]" for n in items]
        envs.take(f"pyproject.toml [tool.tox.{where}] {key}", tokens)


def _hatch(hatch_envs: dict[str, Any], source: str, envs: ToolEnvs) -> None:
    """The test environment's lists; the dependencies and features it does not set are the
    default environment's, which hatch makes every environment's template."""
    name = next((n for n in HATCH_ENVS if isinstance(hatch_envs.get(n), dict)), None)
    if name is None:
        return
    prefix = "tool.hatch." if source == "pyproject.toml" else ""
    for key in ("dependencies", "extra-dependencies", "features"):
        names = (name,) if key == "extra-dependencies" else dict.fromkeys((name, "default"))
        found = next((n for n in names if key in _table(hatch_envs, n)), None)
        if found is None:
            continue
        where = f"{source} [{prefix}envs.{found}] {key}"
        items = _strings(hatch_envs[found][key], where, envs)
        envs.take(where, items if key != "features" else [f".[{n}]" for n in items])


def _session_name(function: ast.FunctionDef) -> str | None:
    """The name a `@nox.session` gives `function`, or None when it is not a session."""
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name != "session":
            continue
        if isinstance(decorator, ast.Call):
            for keyword in decorator.keywords:
                if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                    return str(keyword.value.value)
        return function.name
    return None


def _noxfile(text: str, envs: ToolEnvs) -> None:
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        envs.problems.append(f"noxfile.py: not Python that init can read; {INSTEAD}")
        return
    for function in module.body:
        if not isinstance(function, ast.FunctionDef) or _session_name(function) not in NOX_SESSIONS:
            continue
        session = function.args.args[0].arg if function.args.args else "session"
        for node in ast.walk(function):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "install"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == session
            ):
                continue
            where = f"noxfile.py line {node.lineno} ({session}.install in {function.name})"
            literal = [
                a.value
                for a in node.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
            if len(literal) < len(node.args):
                envs.problems.append(f"{where}: an argument is not a literal string; {INSTEAD}")
            envs.take(where, literal)


def _read(path: str) -> bytes | None:
    if not os.path.isfile(path) or os.path.islink(path):
        return None
    with open(path, "rb") as stream:
        return stream.read()


def _text(path: str, data: bytes, envs: ToolEnvs) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        envs.problems.append(f"{path}: not UTF-8 text; {INSTEAD}")
        return None


def read_tool_envs() -> ToolEnvs:
    """The test environments of tox, nox and hatch that the repository at the working
    folder declares, each one found taken."""
    envs = ToolEnvs()
    for path in ("tox.ini", "noxfile.py"):
        data = _read(path)
        text = None if data is None else _text(path, data, envs)
        if text is not None and path == "tox.ini":
            _tox_ini(text, path, envs)
        elif text is not None:
            _noxfile(text, envs)
    for path in ("pyproject.toml", "hatch.toml"):
        data = _read(path)
        try:
            document = {} if data is None else read_toml(data, path)
        except InputError as error:
            envs.problems.append(str(error))
            continue
        if path == "hatch.toml":
            _hatch(_table(document, "envs"), path, envs)
            continue
        tox = _table(document, "tool", "tox")
        legacy = tox.get("legacy_tox_ini")
        if isinstance(legacy, str):
            _tox_ini(legacy, "pyproject.toml [tool.tox] legacy_tox_ini", envs)
        elif tox:
            _tox_toml(tox, envs)
        _hatch(_table(document, "tool", "hatch", "envs"), path, envs)
    return envs


def install_words(words: Sequence[str], envs: ToolEnvs) -> list[str]:
    """The install step's own `words` with the declared environments' after them: each
    requirement and each file option with its file once."""
    found = list(words)
    pending = iter(envs.words)
    for word in pending:
        taken = [tuple(found[n : n + 2]) for n in range(len(found)) if found[n] in ("-r", "-c")]
        item = (word, next(pending, "")) if word in ("-r", "-c") else (word,)
        if item not in taken and (len(item) == 2 or word not in found):
            found += item
    return found
