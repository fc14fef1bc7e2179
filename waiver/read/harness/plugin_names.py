"""The plugin names a file gives pytest, read without running it.

A configuration file names plugins with `-p NAME` in `addopts` (and its `pythonpath`
says where to import from); a `pyproject.toml` or `setup.cfg` declares pytest11 entry
points; a module sets `pytest_plugins`. Text is split the way pytest splits it, TOML is
parsed, and a module is parsed with `ast` under its declared encoding: only a literal `pytest_plugins`
(a string, or a list or tuple of strings) can be read, and any other way of setting it is
told apart so that it can be refused. A module whose import-time code can write its own
namespace (`globals()`, `exec`, `setattr`, `sys.modules`) can set it without naming it, so
where pytest reads the list (conftests, test modules, plugins) such code is refused in the
same way. A star import binds only what the other module exports (`star_exports`).
"""

from __future__ import annotations

import ast
import io
import re
import shlex
import tokenize
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace

from waiver.errors import InputError
from waiver.read.lock.lock_file import ENTRY_POINTS_TABLES
from waiver.read.trusted.trees import escaped

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
INI_KEYS = ("addopts", "pythonpath", "python_files")


def ini_values(text: str) -> dict[str, list[str]]:
    """`addopts`, `pythonpath`, `python_files` and the `pytest11` entry points
    (`setup.cfg`) of an ini file, in any section, continuation lines too."""
    values: dict[str, list[str]] = {key: [] for key in (*INI_KEYS, "pytest11")}
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
    """`addopts`, `pythonpath` and `python_files` of pytest's table (and its
    `ini_options`) in a TOML file."""
    value: object = document
    for key in table:
        value = value.get(key) if isinstance(value, dict) else None
    values: dict[str, list[str]] = {key: [] for key in INI_KEYS}
    tables = [value, value.get("ini_options") if isinstance(value, dict) else None]
    for found in tables:
        if isinstance(found, dict):
            for key, listed in values.items():
                listed.extend(_strings(found.get(key)))
    return values


def entry_point_modules(document: dict[str, object]) -> list[str]:
    """The modules of the pytest11 entry points a `pyproject.toml` declares, in the table
    of every build backend that installs them."""
    modules = []
    for table in ENTRY_POINTS_TABLES:
        value: object = document
        for key in table.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, dict):
            modules += entry_modules(item for item in value.values() if isinstance(item, str))
    return modules


def metadata_entry_modules(text: str) -> list[str]:
    """The modules of the `[pytest11]` section of package metadata's `entry_points.txt`,
    which pytest's plugin autoload loads from any folder on `sys.path`."""
    entries, section = [], None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped.strip("[]").strip()
        elif section == "pytest11" and "=" in stripped:
            entries.append(stripped.partition("=")[2])
    return entry_modules(entries)


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
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name == PLUGIN_MARK  # a decorator can make the name any list
    if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
        return node.name == PLUGIN_MARK
    if isinstance(node, ast.Global | ast.Nonlocal):
        return PLUGIN_MARK in node.names
    return False


# Names through which import-time code reaches a module's namespace without naming what it
# binds: `globals()["pytest_" + "plugins"] = …`, `exec(…)`, `setattr(sys.modules[…], …)`.
NAMESPACE_NAMES = frozenset(
    {"globals", "vars", "locals", "exec", "eval", "setattr", "__builtins__", "__import__"}
)
NAMESPACE_MODULES = frozenset({"builtins", "sys", "importlib"})
# A cheap first look: a module whose text holds none of these reaches no namespace.
NAMESPACE_TEXT = re.compile(
    r"globals|vars|locals|exec|eval|setattr|__builtins__|__import__|__dict__|builtins"
    r"|modules|import[\s\\(]*\*"
)


def _import_time_nodes(module: ast.Module) -> list[ast.AST]:
    """The nodes a module runs when it is imported: all but the bodies of its functions
    (their decorators, defaults and annotations run)."""
    found: list[ast.AST] = []
    pending: list[ast.AST] = list(module.body)
    while pending:
        node = pending.pop()
        found.append(node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            pending += [*node.decorator_list, node.args, *([node.returns] if node.returns else [])]
        elif isinstance(node, ast.Lambda):
            pending.append(node.args)
        else:
            pending += ast.iter_child_nodes(node)
    return found


# Called bare in a class body, these two give the class's namespace, not the module's.
CLASS_SCOPED = frozenset({"locals", "vars"})


def _class_scoped(module: ast.Module) -> set[int]:
    """The names of the bare `locals()` and `vars()` calls that a class body runs at import
    time: they reach the class's namespace, never the module's, so they cannot bind
    `pytest_plugins`. (`vars(module)` can reach a module's, and is not among them.)"""
    found: set[int] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    continue
                found.update(
                    id(call.func)
                    for call in ast.walk(statement)
                    if isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Name)
                    and call.func.id in CLASS_SCOPED
                    and not call.args
                    and not call.keywords
                )
    return found


def _reaches_namespace(node: ast.AST) -> bool:
    """Whether import-time `node` can write a module's namespace without naming the key."""
    if isinstance(node, ast.Name):
        return node.id in NAMESPACE_NAMES
    if isinstance(node, ast.Attribute):
        return node.attr in ("__dict__", "modules")
    if isinstance(node, ast.Import):
        return any(alias.name.partition(".")[0] in NAMESPACE_MODULES for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        return node.level == 0 and (node.module or "").partition(".")[0] in NAMESPACE_MODULES
    return False


def _writes_namespace(module: ast.Module) -> bool:
    """Whether the module's import-time code can write its namespace without naming the key."""
    in_classes = _class_scoped(module)
    return any(
        _reaches_namespace(node) and id(node) not in in_classes
        for node in _import_time_nodes(module)
    )


ALL = "__all__"


def _binds_all(node: ast.AST) -> bool:
    """Whether `node` binds `__all__` by name, an attribute, an import or a setter."""
    if isinstance(node, ast.Name | ast.Attribute):
        name = node.id if isinstance(node, ast.Name) else node.attr
        return name == ALL and not isinstance(node.ctx, ast.Load)
    if isinstance(node, ast.alias):
        return ALL in (node.name, node.asname)
    if isinstance(node, ast.Global | ast.Nonlocal):
        return ALL in node.names
    if isinstance(node, ast.Call):
        return any(isinstance(arg, ast.Constant) and arg.value == ALL for arg in node.args)
    return False


def static_all(module: ast.Module) -> frozenset[str] | None:
    """The names of a module's `__all__` when only top-level literal assignments bind it
    (`__all__ = [...]`, `+= (...)`) and no import-time code can write its namespace; None
    when it has no `__all__`, or one that cannot be read from the file."""
    names: list[str] = []
    literal: set[int] = set()
    for statement in module.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target: ast.expr = statement.targets[0]
            augmented = False
        elif isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add):
            target, augmented = statement.target, True
        else:
            continue
        if not isinstance(target, ast.Name) or target.id != ALL:
            continue
        value = _literal_names(statement.value)
        if value is None or isinstance(statement.value, ast.Constant):
            return None
        names = [*names, *value] if augmented else list(value)
        literal.add(id(target))
    if not literal or _writes_namespace(module):
        return None
    if any(_binds_all(node) and id(node) not in literal for node in ast.walk(module)):
        return None
    return frozenset(names)


STAR_TEXT = re.compile(r"import[\s\\(]*\*")


def star_exports(data: bytes, path: str, strict: bool = False) -> PluginList | None:
    """What a module gives a module that star-imports it as `pytest_plugins`; None when it
    gives nothing.

    A star import binds only what the module exports: the names of a static `__all__`, or
    else its public top-level names. So a module whose `__all__` leaves `pytest_plugins`
    out gives nothing. Any other is read for that name alone, as any module that sets it
    is, unless `strict` (a module beside the tests, which pytest reads the list of): then
    as pytest reads a list, import-time code that can write its namespace included. So a
    library's source never becomes harness for being star-imported by a test. The modules
    it star-imports in turn are followed the same way.
    """
    text = python_text(data)
    if text is None or (PLUGIN_MARK not in text and not STAR_TEXT.search(text) and not strict):
        return module_plugins(data, path)  # the parse error of a module that names it
    try:
        module = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return module_plugins(data, path, strict)
    exported = static_all(module)
    if exported is not None and PLUGIN_MARK not in exported:
        return None
    plugins = module_plugins(data, path, strict)
    stars = tuple(star_imports(module))
    if plugins is None:
        return PluginList((), True, stars=stars, sets=False) if stars else None
    return replace(plugins, stars=stars)


def star_imports(module: ast.Module) -> list[tuple[int, str]]:
    """The modules a module star-imports at import time, as `(level, name)`: what they bind,
    the importer binds too."""
    return [
        (node.level, node.module or "")
        for node in _import_time_nodes(module)
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
    ]


@dataclass(frozen=True)
class PluginList:
    """What a module gives pytest as `pytest_plugins`, as far as its file tells."""

    names: tuple[str, ...]
    literal: bool  # False when some binding of pytest_plugins is not a literal
    # True when import-time code can write the namespace (looked for only where pytest
    # reads pytest_plugins): then the list cannot be known from the file.
    dynamic: bool = False
    # The modules it star-imports, which bind in its namespace what they bind in theirs.
    stars: tuple[tuple[int, str], ...] = ()
    sets: bool = True  # False when the module only star-imports


def python_text(data: bytes) -> str | None:
    """A module's text as Python reads its names: decoded by its declared encoding (PEP 263)
    and NFKC-normalised (PEP 3131: a fullwidth letter in a name is its plain letter); None when Python
    could not decode it either."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return None
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def _parse_error(path: str) -> InputError:
    return InputError(
        escaped(path),
        "mentions pytest_plugins but cannot be parsed as Python, so the plugins "
        "it names cannot be resolved",
    )


def module_plugins(data: bytes, path: str, strict: bool = False) -> PluginList | None:
    """What a module's `pytest_plugins` names; None when the module does not set it.

    `strict` is for the modules pytest reads the list from (conftests, test modules,
    plugins): there import-time code that can write the namespace counts as setting it.
    """
    text = python_text(data)
    if text is None:
        if PLUGIN_MARK.encode() in data:
            raise _parse_error(path)
        return None  # Python cannot import it either
    marked = PLUGIN_MARK in text
    if not marked and not (strict and NAMESPACE_TEXT.search(text)):
        return None
    try:
        module = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        if not marked:
            return None  # a module Python cannot import sets nothing
        raise _parse_error(path) from None
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
    bound = marked and any(_binds_otherwise(node, literal_targets) for node in ast.walk(module))
    dynamic = strict and _writes_namespace(module)
    stars = tuple(star_imports(module)) if strict else ()
    if not literal_targets and not bound and not dynamic:
        return PluginList((), True, stars=stars, sets=False) if stars else None
    return PluginList(tuple(names), literal and not bound, dynamic, stars)
