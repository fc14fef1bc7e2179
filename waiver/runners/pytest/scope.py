"""A test module as Python reads it: its module-level bindings, the code that cannot be
followed, and the definition of each test, from the syntax tree alone.

Comments and layout are not in the tree, so they are no edit. What a name is bound to is
kept statement by statement (`def`, `class`, an assignment, an import), so that a new test
and the import it needs leave every other binding as it was.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# A name a test module binds at module level: the statements that bind it, in order.
Bindings = dict[str, list[ast.stmt]]
Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Module functions pytest runs around every test of the module, by their names.
MODULE_HOOKS = frozenset(
    {"setup_module", "teardown_module", "setup_function", "teardown_function"}
    | {"setUpModule", "tearDownModule"}
)


@dataclass
class ModuleScope:
    """One module's top level."""

    path: str
    bindings: Bindings = field(default_factory=dict)
    # Statements that run at import and cannot be followed by name (a call, a loop, a
    # star import, an assignment to another object's attribute): part of every test.
    opaque: list[ast.stmt] = field(default_factory=list)
    body: list[ast.stmt] = field(default_factory=list)
    # What pytest runs around every test of the module though no test names it: autouse
    # fixtures and `setup_module`, `setup_function` and their kin, by name.
    # Keyed by the function's name, each with what pytest runs it as.
    around: dict[str, tuple[str, ast.stmt]] = field(default_factory=dict)
    # The module-level imports, star imports too: each module they load runs its top level.
    imports: list[ast.Import | ast.ImportFrom] = field(default_factory=list)
    # Each test's definition, by the parts of its id, once looked up.
    definitions: dict[tuple[str, ...], tuple[list[ast.ClassDef], Definition] | None] = field(
        default_factory=dict
    )

    def import_time(self, names_in: NamesIn | None = None) -> list[ast.stmt]:
        """What the module does at import besides defining names: the code that cannot be
        followed, and each assignment whose value calls a builtin that writes another
        object or namespace (`_ = setattr(calc, "double", …)`) or binds with `:=`.
        `names_in` is `used_names`, or a cache of it."""
        read = names_in or used_names
        writes = []
        for statement in self.body:
            if not isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
                continue
            if statement.value is None:
                continue
            names, attributes = read(statement.value)
            if not names.isdisjoint(WRITERS) or any(a in WRITERS for _, a in attributes):
                writes.append(statement)
        return [*self.opaque, *writes]

    def definition(self, names: list[str]) -> tuple[list[ast.ClassDef], Definition] | None:
        """The classes on the way to a test and its function, by the parts of its id. A
        module the change left as it was is one scope for both commits: each test is
        looked up once."""
        key = tuple(names)
        if key not in self.definitions:
            self.definitions[key] = self._definition(names)
        return self.definitions[key]

    def _definition(self, names: list[str]) -> tuple[list[ast.ClassDef], Definition] | None:
        found: list[ast.stmt] = self.body
        classes: list[ast.ClassDef] = []
        for depth, name in enumerate(names):
            match: list[Definition] = [
                s for s in found if isinstance(s, DEFINITIONS) and s.name == name
            ]
            if not match:
                return None
            node = match[-1]  # the last binding is the one pytest collects
            if depth == len(names) - 1:
                return classes, node
            if not isinstance(node, ast.ClassDef):
                return None
            classes.append(node)
            found = node.body
        return None


# Builtins that write another object or a namespace when called, and the name `used_names`
# gives a `:=` (a binding hidden inside a value), which no identifier can be.
WALRUS = ":="
WRITERS = frozenset(
    {"setattr", "delattr", "exec", "eval", "globals", "vars", "__import__", "compile", WALRUS}
)
NamesIn = Callable[[ast.AST], tuple[set[str], set[tuple[str, str]]]]


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def is_autouse(node: ast.stmt) -> bool:
    """A fixture pytest uses for every test in reach (`@pytest.fixture(autouse=True)`): any
    decorator call that says `autouse=` with anything but a false constant."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    for decorator in node.decorator_list:
        if not isinstance(decorator, ast.Call):
            continue
        for keyword in decorator.keywords:
            value = keyword.value
            if keyword.arg == "autouse":
                return not (isinstance(value, ast.Constant) and not value.value)
    return False


def around_name(node: ast.stmt) -> str | None:
    """What pytest runs `node` as around the tests in reach, when it does."""
    name = getattr(node, "name", "")
    if is_autouse(node):
        return f"autouse fixture {name}"
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and name in MODULE_HOOKS:
        return name
    return None


def _bind(scope: ModuleScope, target: ast.expr, statement: ast.stmt) -> None:
    if isinstance(target, ast.Name):
        scope.bindings.setdefault(target.id, []).append(statement)
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            _bind(scope, element.value if isinstance(element, ast.Starred) else element, statement)
    else:  # `other.name = …`, `table[key] = …`: rebinds what another object holds
        scope.opaque.append(statement)


def read_scope(module: ast.Module, path: str) -> ModuleScope:
    scope = ModuleScope(path, body=module.body)
    for statement in module.body:
        if isinstance(statement, ast.Import | ast.ImportFrom):
            scope.imports.append(statement)
        if isinstance(statement, DEFINITIONS):
            scope.bindings.setdefault(statement.name, []).append(statement)
            # The last definition of a name is the one pytest sees.
            around = around_name(statement)
            scope.around.pop(statement.name, None)
            if around is not None:
                scope.around[statement.name] = (around, statement)
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                _bind(scope, target, statement)
        elif isinstance(statement, ast.AnnAssign | ast.AugAssign):
            _bind(scope, statement.target, statement)
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                name = alias.asname or alias.name.partition(".")[0]
                scope.bindings.setdefault(name, []).append(statement)
        elif isinstance(statement, ast.ImportFrom) and all(a.name != "*" for a in statement.names):
            for alias in statement.names:
                scope.bindings.setdefault(alias.asname or alias.name, []).append(statement)
        elif not _is_docstring(statement):
            scope.opaque.append(statement)
    return scope


# The fields of each kind of node that a walk reads: all but `ctx`, whose node (`Load`,
# `Store`) has nothing to read, on one of every attribute, subscript and name.
_WALKED: dict[type, tuple[str, ...]] = {}


def used_names(node: ast.AST) -> tuple[set[str], set[tuple[str, str]]]:
    """The names `node` reads, and the attributes it reads of a name (`helpers.same`).

    A walk of its own rather than `ast.walk`, the cost of edited-test detection in a suite
    of thousands of tests: nodes are told apart by their exact type (the syntax tree's
    node classes are never subclassed), and each kind's fields are listed once
    (`_WALKED`), as `ast.iter_child_nodes` reads them, without its generators. A list
    field's items go on the stack as they are; one that is not a node (a `global`
    statement's names, a `None` key of a dict display) has no fields to read."""
    names: set[str] = set()
    attributes: set[tuple[str, str]] = set()
    # Any: a node's fields are read by its exact type, which the checker cannot follow.
    pending: list[Any] = [node]
    pop, push, extend = pending.pop, pending.append, pending.extend
    name_type, attribute_type, node_type = ast.Name, ast.Attribute, ast.AST
    while pending:
        inner = pop()
        kind = type(inner)
        if kind is name_type:
            names.add(inner.id)
            continue
        if kind is attribute_type:
            value = inner.value
            if type(value) is name_type:
                attributes.add((value.id, inner.attr))
            push(value)
            continue
        if kind is ast.arg:
            names.add(inner.arg)  # a test's argument names its fixture
        elif kind is ast.NamedExpr:
            names.add(WALRUS)
        fields = _WALKED.get(kind)
        if fields is None:
            fields = _WALKED[kind] = tuple(
                name for name in getattr(kind, "_fields", ()) if name != "ctx"
            )
        for field_name in fields:
            value = getattr(inner, field_name, None)
            if type(value) is list:
                extend(value)
            elif isinstance(value, node_type):
                push(value)
    return names, attributes


def dump(node: ast.AST) -> str:
    """The node as the syntax tree holds it: no positions, so layout is no edit."""
    return ast.dump(node, annotate_fields=False, include_attributes=False)
