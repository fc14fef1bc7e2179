"""The plugin names a module gives pytest, read without running it (the configuration
files' are `waiver.read.harness.plugin_options`).

A module sets `pytest_plugins`. It is parsed with `ast` under its declared encoding: only
a literal `pytest_plugins` (a string, or a list or tuple of strings) can be read, and any
other way of setting it is told apart so that it can be refused. A module whose
import-time code can write its own namespace (`globals()`, `exec`, `setattr`,
`sys.modules`) can set it without naming it, so where pytest reads the list (conftests,
test modules, plugins) such code is refused in the same way. A star import binds only
what the other module exports (`star_exports`).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import unicodedata
from dataclasses import dataclass, replace

from waiver.errors import InputError
from waiver.read.trusted.trees import escaped

PLUGIN_MARK = "pytest_plugins"
SETTERS = frozenset({"setattr", "__setattr__", "setdefault"})


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
