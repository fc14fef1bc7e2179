"""Whether a module's import-time code writes its own namespace without naming what it binds:
what a module pytest reads `pytest_plugins` of as harness (a conftest, a plugin) could do to
set that list where no assignment names it.

It is judged by what the code does, from its syntax tree, never by words in its text (`import
sys` beside a `pipeline.execute()` is nothing). At import time a module reaches its own
namespace through `globals()`, `vars()` and, outside a class body, `locals()`; an object's
`__dict__`, a frame's `f_globals` or `f_locals` and a function's `__globals__`; and
`sys.modules`, which holds its own module object. Such a namespace is written when the code

- stores into it or deletes from it (`globals()[key] = value`), or into `sys.modules` under a
  key that is not a literal name of another module (`sys.modules[__name__] = other` replaces
  the module pytest reads);
- calls a method that changes it (`update`, `setdefault`, `pop`, `clear`, …);
- lets it go where the file cannot follow it: assigned to a name, passed to a function,
  returned by a default argument.

Reading it is no write: iterating it, `in` and other comparisons, `.items()`, `.keys()`,
`.values()`, `.get()`, `.copy()`, a subscript read, or handing it to `list()`, `dict()`,
`sorted()`, `len()` and the like. And `exec` and `eval` can do anything, and `setattr` or
`delattr` with a name that is not a literal can bind any name (a literal `pytest_plugins` is
read as a binding of the list, any other literal name binds something else).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

# A cheap first look: a module whose text holds none of these reaches no namespace.
NAMESPACE_TEXT = re.compile(
    r"globals|vars|locals|exec|eval|setattr|delattr|__dict__|f_globals|f_locals|__globals__"
    r"|modules"
)
NAMESPACE_CALLS = frozenset({"globals", "vars", "locals"})
NAMESPACE_ATTRIBUTES = frozenset({"__dict__", "f_globals", "f_locals", "__globals__"})
MODULES = "modules"
EXECUTORS = frozenset({"exec", "eval"})
SETTERS = frozenset({"setattr", "delattr"})
METHOD_SETTERS = frozenset({"__setattr__", "__delattr__"})
# Methods of a mapping that only read it.
READ_METHODS = frozenset(
    {"items", "keys", "values", "get", "copy", "__contains__", "__getitem__", "__len__"}
)
# Methods of `sys.modules` that write the key their first argument names.
KEYED_WRITES = frozenset({"setdefault", "pop", "__setitem__", "__delitem__"})
# Built-ins that read what they are given and keep no hold of it.
READERS = frozenset(
    {"list", "dict", "set", "frozenset", "tuple", "sorted", "len", "iter", "reversed"}
    | {"enumerate", "any", "all", "min", "max", "sum", "repr", "str", "print", "bool"}
    | {"id", "hash", "type", "isinstance", "format", "zip", "map", "filter"}
)
# Called bare in a class body, these two give the class's namespace, not the module's.
CLASS_SCOPED = frozenset({"locals", "vars"})


def import_time_nodes(module: ast.Module) -> list[ast.AST]:
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


def _class_scoped(module: ast.Module) -> set[int]:
    """The bare `locals()` and `vars()` calls a class body runs at import time: they reach
    the class's namespace, never the module's. (`vars(module)` can reach a module's, and is
    not among them.)"""
    found: set[int] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    continue
                found.update(
                    id(call)
                    for call in ast.walk(statement)
                    if isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Name)
                    and call.func.id in CLASS_SCOPED
                    and not call.args
                    and not call.keywords
                )
    return found


class _Module:
    """A parsed module with each node's parent, and the names it knows itself by."""

    def __init__(self, module: ast.Module, path: str) -> None:
        self.parents = {
            id(child): parent
            for parent in ast.walk(module)
            for child in ast.iter_child_nodes(parent)
        }
        name = path.rpartition("/")[2].removesuffix(".py")
        if name == "__init__":
            name = path.rpartition("/")[0].rpartition("/")[2]
        self.name = name
        self.in_classes = _class_scoped(module)
        # `from sys import modules as loaded`: the names `sys.modules` goes by.
        self.modules_names = {
            alias.asname or alias.name
            for node in ast.walk(module)
            if isinstance(node, ast.ImportFrom) and node.module == "sys" and node.level == 0
            for alias in node.names
            if alias.name == MODULES
        }

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(id(node))

    def own_key(self, key: ast.expr | None) -> bool:
        """Whether a `sys.modules` key may be this module's own name: anything but a literal
        string that names another module."""
        if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
            return True
        return key.value == self.name or key.value.endswith("." + self.name)

    def read_only(self, node: ast.AST) -> bool:
        """Whether the namespace `node` evaluates to is only read where it is used."""
        parent = self.parent(node)
        while isinstance(parent, ast.BoolOp | ast.IfExp) and node is not getattr(
            parent, "test", None
        ):
            node, parent = parent, self.parent(parent)
        if isinstance(parent, ast.Subscript) and parent.value is node:
            return isinstance(parent.ctx, ast.Load)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            call = self.parent(parent)
            return (
                isinstance(call, ast.Call) and call.func is parent and parent.attr in READ_METHODS
            )
        if isinstance(parent, ast.Call) and node in parent.args:
            return isinstance(parent.func, ast.Name) and parent.func.id in READERS
        if isinstance(parent, ast.For | ast.AsyncFor | ast.comprehension):
            return parent.iter is node
        return isinstance(parent, ast.Compare | ast.Expr | ast.Starred) or (
            isinstance(parent, ast.keyword) and parent.arg is None
        )

    def modules_written(self, node: ast.AST) -> bool:
        """Whether `sys.modules`, which `node` evaluates to, has a key written that may be
        this module's own; reading it, deleting from it and writing other modules' keys
        set nothing here."""
        parent = self.parent(node)
        if isinstance(parent, ast.Subscript) and parent.value is node:
            return isinstance(parent.ctx, ast.Store) and self.own_key(parent.slice)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            call = self.parent(parent)
            if not isinstance(call, ast.Call) or call.func is not parent:
                return True
            if parent.attr in READ_METHODS:
                return False
            if parent.attr in KEYED_WRITES:
                return self.own_key(call.args[0] if call.args else None)
            if parent.attr == "update" and len(call.args) == 1 and not call.keywords:
                table = call.args[0]
                return not isinstance(table, ast.Dict) or any(map(self.own_key, table.keys))
            return True
        return not self.read_only(node)

    def writes(self, node: ast.AST) -> bool:
        """Whether import-time `node` writes the module's namespace without naming the key."""
        if isinstance(node, ast.Name):
            if node.id in EXECUTORS:
                return True
            if node.id in self.modules_names:
                return self.modules_written(node)
            if node.id not in NAMESPACE_CALLS | SETTERS:
                return False
            call = self.parent(node)
            if not isinstance(call, ast.Call) or call.func is not node:
                return True  # the function itself handed on: it can be called anywhere
            if node.id in SETTERS:
                return not _literal_name(call.args[1] if len(call.args) > 1 else None)
            return id(call) not in self.in_classes and not self.read_only(call)
        if isinstance(node, ast.Attribute):
            if node.attr in METHOD_SETTERS:
                call = self.parent(node)
                if not isinstance(call, ast.Call) or call.func is not node or not call.args:
                    return True
                return not _literal_name(call.args[0])
            if node.attr == MODULES:
                return self.modules_written(node)
            if node.attr in NAMESPACE_ATTRIBUTES:
                return not isinstance(node.ctx, ast.Load) or not self.read_only(node)
        return False


def _literal_name(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def namespace_writes(module: ast.Module, path: str) -> Iterator[int]:
    """The lines of `module`'s import-time code that write its namespace without naming the
    key."""
    parsed = _Module(module, path)
    for node in import_time_nodes(module):
        if parsed.writes(node):
            yield getattr(node, "lineno", 0)


def writes_namespace(module: ast.Module, path: str) -> bool:
    """Whether the module's import-time code writes its namespace without naming the key."""
    return next(namespace_writes(module, path), None) is not None
