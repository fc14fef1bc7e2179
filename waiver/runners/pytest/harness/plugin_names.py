"""The plugin names a module gives pytest, read without running it (the configuration
files' are `waiver.runners.pytest.harness.plugin_options`).

A module sets `pytest_plugins`. It is parsed with `ast` under its declared encoding: only
a literal `pytest_plugins` (a string, or a list or tuple of strings) can be read, and any
other way of setting it is told apart so that it can be refused. A module whose
import-time code writes its own namespace without naming the key (`globals()[key] = …`,
`exec`, `setattr` with a computed name, `sys.modules[__name__] = …`:
`waiver.runners.pytest.harness.namespace_writes`) can set it without naming it, so where the list is
the harness's (conftests, plugins) such code is refused in the same way. A star import
binds only what the other module exports (`star_exports`).
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
from waiver.runners.pytest.harness.namespace_writes import (
    NAMESPACE_TEXT,
    import_time_nodes,
    namespace_writes,
    writes_namespace,
)

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


def static_all(module: ast.Module, path: str) -> frozenset[str] | None:
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
    if not literal or writes_namespace(module, path):
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
    exported = static_all(module, path)
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
        for node in import_time_nodes(module)
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
    ]


@dataclass(frozen=True)
class PluginList:
    """What a module gives pytest as `pytest_plugins`, as far as its file tells."""

    names: tuple[str, ...]
    literal: bool  # False when some binding of pytest_plugins is not a literal
    # The line of import-time code that writes the namespace (looked for only where the
    # list is the harness's), 0 when none does: then the list cannot be known from the file.
    dynamic: int = 0
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


def module_plugins(
    data: bytes, path: str, strict: bool = False, stars: bool = False
) -> PluginList | None:
    """What a module's `pytest_plugins` names; None when the module does not set it.

    `strict` is for the modules whose list is the harness's (conftests, plugins): there
    import-time code that writes the namespace counts as setting it
    (`waiver.runners.pytest.harness.namespace_writes`). The modules a strict one star-imports are
    listed, and so are a test module's (`stars`), whose list pytest reads too.
    """
    text = python_text(data)
    if text is None:
        if PLUGIN_MARK.encode() in data:
            raise _parse_error(path)
        return None  # Python cannot import it either
    marked = PLUGIN_MARK in text
    follows = strict or stars
    if not (
        marked or (strict and NAMESPACE_TEXT.search(text)) or (follows and STAR_TEXT.search(text))
    ):
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
    dynamic = next(namespace_writes(module, path), 0) if strict else 0
    starred = tuple(star_imports(module)) if follows else ()
    if not literal_targets and not bound and not dynamic:
        return PluginList((), True, stars=starred, sets=False) if starred else None
    return PluginList(tuple(names), literal and not bound, dynamic, starred)
