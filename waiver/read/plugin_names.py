"""The plugin names a file gives pytest, read without running it.

A configuration file names plugins with `-p NAME` in `addopts` (and its `pythonpath`
says where to import from); a `pyproject.toml` or `setup.cfg` declares pytest11 entry
points; a module sets `pytest_plugins`. Text is split the way pytest splits it, TOML is
parsed, and a module is parsed with `ast`: only a literal `pytest_plugins` (a string, or
a list or tuple of strings) can be read, and any other way of setting it is told apart
so that it can be refused.
"""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from waiver.errors import InputError
from waiver.read.file_tree import escaped
from waiver.read.lock import ENTRY_POINTS_TABLE

PLUGIN_MARK = "pytest_plugins"
SETTERS = frozenset({"setattr", "__setattr__", "setdefault"})
MODULE_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\Z", re.ASCII)


def split_options(values: Iterable[str]) -> list[str]:
    """Command-line words, split the way pytest splits `addopts`."""
    words: list[str] = []
    for value in values:
        try:
            words.extend(shlex.split(value))
        except ValueError:  # an unbalanced quote: pytest refuses it; read the words anyway
            words.extend(value.split())
    return words


def plugin_options(words: list[str]) -> list[str]:
    """The module names of `-p NAME` and `-pNAME` (not `-p no:NAME`, which blocks one)."""
    names = []
    for position, word in enumerate(words):
        if word == "-p":
            name = words[position + 1] if position + 1 < len(words) else ""
        elif word.startswith("-p"):
            name = word[2:]
        else:
            continue
        if MODULE_NAME.match(name):
            names.append(name)
    return names


INI_KEY = re.compile(r"([\w-]+)\s*[=:]\s*(.*)")


def ini_values(text: str) -> dict[str, list[str]]:
    """`addopts`, `pythonpath` and the `pytest11` entry points (`setup.cfg`) of an ini file,
    in any section, continuation lines too."""
    values: dict[str, list[str]] = {"addopts": [], "pythonpath": [], "pytest11": []}
    key = None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        if line[0] in " \t" and key is not None:
            values[key].append(stripped)
            continue
        match = INI_KEY.match(stripped)
        key = match[1] if match is not None and match[1] in values else None
        if key is not None and match is not None:
            values[key].append(match[2])
    return values


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def toml_values(document: dict[str, object], table: tuple[str, ...]) -> dict[str, list[str]]:
    """`addopts` and `pythonpath` of pytest's table (and its `ini_options`) in a TOML file."""
    value: object = document
    for key in table:
        value = value.get(key) if isinstance(value, dict) else None
    values: dict[str, list[str]] = {"addopts": [], "pythonpath": []}
    tables = [value, value.get("ini_options") if isinstance(value, dict) else None]
    for found in tables:
        if isinstance(found, dict):
            for key, listed in values.items():
                listed.extend(_strings(found.get(key)))
    return values


def entry_point_modules(document: dict[str, object]) -> list[str]:
    """The modules of the pytest11 entry points a `pyproject.toml` declares."""
    value: object = document
    for key in ENTRY_POINTS_TABLE.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    if not isinstance(value, dict):
        return []
    return entry_modules(item for item in value.values() if isinstance(item, str))


def entry_modules(entries: Iterable[str]) -> list[str]:
    """The module part of entry-point values (`module:attribute [extra]`)."""
    modules = (entry.partition(":")[0].strip() for entry in entries)
    return [module for module in modules if MODULE_NAME.match(module)]


def _literal_names(value: ast.expr) -> list[str] | None:
    """The names a literal `pytest_plugins` value gives, or None when it is not a literal."""
    try:
        literal = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(literal, str):
        return literal.split(",") if literal else []
    if isinstance(literal, list | tuple) and all(isinstance(item, str) for item in literal):
        return list(literal)
    return None


def _literal_assignment(statement: ast.stmt) -> tuple[ast.Name, list[str] | None] | None:
    """A top-level `pytest_plugins = …` (or `: …`, `+= …`): its target and its names."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target: ast.expr = statement.targets[0]
        value: ast.expr | None = statement.value
    elif isinstance(statement, ast.AnnAssign | ast.AugAssign):
        target, value = statement.target, statement.value
    else:
        return None
    if not isinstance(target, ast.Name) or target.id != PLUGIN_MARK or value is None:
        return None
    return target, _literal_names(value)


def _is_mark(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == PLUGIN_MARK


def _binds_otherwise(node: ast.AST, literal: set[int]) -> bool:
    """Whether `node` binds or names `pytest_plugins` in any way but a literal assignment."""
    if isinstance(node, ast.Name):
        return (
            node.id == PLUGIN_MARK
            and not isinstance(node.ctx, ast.Load)
            and id(node) not in literal
        )
    if isinstance(node, ast.Attribute):
        return node.attr == PLUGIN_MARK and not isinstance(node.ctx, ast.Load)
    if isinstance(node, ast.alias):
        return PLUGIN_MARK in (node.name, node.asname)
    if isinstance(node, ast.Subscript):  # globals()["pytest_plugins"] = …
        return _is_mark(node.slice) and not isinstance(node.ctx, ast.Load)
    if isinstance(node, ast.Call):  # setattr(module, "pytest_plugins", …), update(pytest_plugins=…)
        function = node.func
        name = function.id if isinstance(function, ast.Name) else getattr(function, "attr", "")
        setter = name in SETTERS and any(map(_is_mark, node.args))
        return setter or any(keyword.arg == PLUGIN_MARK for keyword in node.keywords)
    if isinstance(node, ast.Global | ast.Nonlocal):
        return PLUGIN_MARK in node.names
    if isinstance(node, ast.MatchAs | ast.MatchStar):
        return node.name == PLUGIN_MARK
    return False


@dataclass(frozen=True)
class PluginList:
    names: tuple[str, ...]
    literal: bool  # False when some binding of pytest_plugins is not a literal


def module_plugins(data: bytes, path: str) -> PluginList | None:
    """What a module's `pytest_plugins` names; None when the module does not set it."""
    if PLUGIN_MARK.encode() not in data:
        return None
    try:
        module = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise InputError(
            escaped(path),
            "mentions pytest_plugins but cannot be parsed as Python, so the plugins "
            "it names cannot be resolved",
        ) from None
    names: list[str] = []
    literal_targets: set[int] = set()
    literal = True
    for statement in module.body:
        assignment = _literal_assignment(statement)
        if assignment is None:
            continue
        target, found = assignment
        literal_targets.add(id(target))
        literal = literal and found is not None
        names.extend(found or [])
    dynamic = any(_binds_otherwise(node, literal_targets) for node in ast.walk(module))
    if not literal_targets and not dynamic:
        return None
    return PluginList(tuple(names), literal and not dynamic)
