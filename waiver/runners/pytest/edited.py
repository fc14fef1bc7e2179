"""Registered tests the change edited: each one's definition on the trusted revision against
the change's commit, compared the way Python reads it.

A test's definition is its function with its decorators (marks, parametrize values), the
classes around it, the module code that cannot be followed by name, and every module-level
name it uses, followed through functions, classes, assignments and imports into the
modules under the test folders (`from tests.helpers import same`). The fixtures it names
are names it uses. A conftest is harness, locked already, so it is not followed here.

A new test beside untouched neighbours edits none of them: what each name is bound to is
compared, not the lines. A test whose id is not a Python module's (another producer's) is
edited when the file its id names changed. Only modules that a changed file can reach are
parsed, so a change that edits no test code costs nothing here.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Hashable, Iterable, Sequence

from waiver.read.trusted.protected import Committed
from waiver.runners.pytest.reach import reached_modules
from waiver.runners.pytest.scope import ModuleScope
from waiver.runners.pytest.sources import (
    PARAMETERS,
    Parsed,
    Prints,
    Sources,
    class_parts,
    followable,
)


def _class_prints(sources: Sources, path: str, classes: Sequence[ast.ClassDef]) -> Prints:
    return {f"its class {node.name}": sources.dumps_in(path, class_parts(node)) for node in classes}


def _imported(
    sources: Sources, scope: ModuleScope, statement: ast.stmt, name: str, test_module: str
) -> str | None:
    """The module file a name's import binds it to, when it is test code to follow."""
    if isinstance(statement, ast.Import):
        for alias in statement.names:
            if bound_name(alias, False) == name:
                dotted = alias.name if alias.asname else name
                found = sources.module_file(scope.path, 0, dotted)
                return found if found and followable(found, test_module) else None
    return None


class Follow:
    """The names a test reaches, module by module, and what each is bound to."""

    def __init__(self, sources: Sources, test_module: str) -> None:
        self.sources = sources
        self.test_module = test_module
        self.prints: Prints = {}
        self.pending: list[tuple[str, str, str | None]] = []
        self.seen: set[tuple[str, str, str | None]] = set()

    def uses(self, path: str, nodes: Iterable[ast.AST]) -> None:
        for node in nodes:
            names, attributes = self.sources.names_in(node)
            self.pending += [(path, name, None) for name in names]
            self.pending += [(path, name, attribute) for name, attribute in attributes]

    def run(self) -> Prints:
        while self.pending:
            item = self.pending.pop()
            if item not in self.seen:
                self.seen.add(item)
                self.follow(*item)
        return self.prints

    def follow(self, path: str, name: str, attribute: str | None) -> None:
        scope = self.sources.scope(path)
        statements = None if scope is None else scope.bindings.get(name)
        if scope is None or not statements:
            return  # a builtin, a local, or a name bound elsewhere
        if attribute is None:
            self.prints[binding_key(name, path)] = bound_to(self.sources, path, statements, name)
        for statement in statements:
            if isinstance(statement, ast.ImportFrom):
                self.from_import(scope, statement, name, attribute)
            elif isinstance(statement, ast.Import):
                module = _imported(self.sources, scope, statement, name, self.test_module)
                if module is not None and attribute is not None:
                    self.pending.append((module, attribute, None))
                elif attribute is None:
                    self.dotted_imports(scope, statement, name)
            elif attribute is None:
                self.uses(path, [statement])

    def dotted_imports(self, scope: ModuleScope, statement: ast.Import, name: str) -> None:
        """`import tests.helpers` binds `tests`: the module it names is followed whole."""
        for alias in statement.names:
            if alias.asname or "." not in alias.name or alias.name.partition(".")[0] != name:
                continue
            module = self.sources.module_file(scope.path, 0, alias.name)
            inner = None if module is None else self.sources.scope(module)
            if module is not None and inner is not None and followable(module, self.test_module):
                self.prints[f"module {module}"] = self.sources.dumps_in(module, inner.body)

    def from_import(
        self, scope: ModuleScope, statement: ast.ImportFrom, name: str, attribute: str | None
    ) -> None:
        for alias in statement.names:
            if bound_name(alias, True) != name:
                continue
            dotted = statement.module or ""
            module = self.sources.module_file(scope.path, statement.level, dotted)
            if module is not None and followable(module, self.test_module):
                inner = self.sources.scope(module)
                if inner is not None and alias.name in inner.bindings:
                    self.pending.append((module, alias.name, attribute))
                    continue
            # `from tests import helpers`: the name is a module of its own.
            submodule = self.sources.module_file(
                scope.path, statement.level, ".".join(p for p in (dotted, alias.name) if p)
            )
            if submodule is not None and followable(submodule, self.test_module) and attribute:
                self.pending.append((submodule, attribute, None))


BINDING_KEY = re.compile(r"`(.+)` in (.+)\Z", re.DOTALL)


def binding_key(name: str, path: str) -> str:
    return f"`{name}` in {path}"


def bound_name(alias: ast.alias, from_import: bool) -> str:
    """The name an import's alias binds: `import a.b` binds `a`, `from a import b` `b`."""
    if alias.asname:
        return alias.asname
    return alias.name if from_import else alias.name.partition(".")[0]


def bound_to(sources: Sources, path: str, statements: Sequence[ast.stmt], name: str) -> str:
    """What the statements bind `name` to: an import says only its own alias, so that a
    name added to the same import line leaves this one as it was."""
    parts = []
    for statement in statements:
        if isinstance(statement, ast.ImportFrom):
            source = "." * statement.level + (statement.module or "")
            parts += [
                f"from {source} import {alias.name} as {alias.asname}"
                for alias in statement.names
                if bound_name(alias, True) == name
            ]
        elif isinstance(statement, ast.Import):
            parts += [
                f"import {alias.name} as {alias.asname}"
                for alias in statement.names
                if bound_name(alias, False) == name
            ]
        else:
            parts.append(sources.dumps_in(path, [statement]))
    return "\n".join(parts)


def fingerprint(sources: Sources, test_id: str) -> Prints:
    """What a test's outcome depends on in its module and the test code it reaches."""
    path, _, rest = test_id.partition("::")
    scope = sources.scope(path)
    if scope is None:
        return {f"module {path}": "absent or not Python"}
    found = scope.definition(PARAMETERS.sub("", rest).split("::"))
    if found is None:  # made at run time, say by module code: any edit of the module counts
        key = f"module {path}, where its definition cannot be found"
        return {key: sources.dumps_in(path, scope.body)}
    classes, function = found
    body: list[ast.AST] = [function]
    if not isinstance(function, ast.ClassDef):
        body = [function.args, *function.body]
    prints = {
        "its decorators": sources.dumps_in(path, function.decorator_list),
        "its body": sources.dumps_in(path, body),
        **_class_prints(sources, path, classes),
    }
    module_code = sources.module_code(path, scope)
    if module_code:
        prints[f"module code of {path} that cannot be followed"] = sources.dumps_in(
            path, module_code
        )
    follow = Follow(sources, path)
    follow.uses(path, [function, *(part for node in classes for part in class_parts(node))])
    follow.uses(path, module_code)
    # What pytest runs around every test of the module, though no test names it.
    for what, node in scope.around.values():
        prints[f"its module's {what}"] = sources.dumps_in(path, [node])
        follow.uses(path, [node])
    for module, what, node in sources.pulled_in(path):
        prints[f"its module's {what}, from {module}"] = sources.dumps_in(module, [node])
        follow.uses(module, [node])
    follow.pending.append((path, "pytestmark", None))
    # The top level of the test code that importing the module runs, where it does more
    # than define names: a new import of such a module is an edit of every test here.
    for module, code in sources.loaded(path):
        prints[f"import-time code of {module}"] = sources.dumps_in(module, code)
        follow.uses(module, code)
    prints.update(sources.reached((path, frozenset(follow.pending)), follow.run))
    return prints


def _bound_in(sources: Sources, key: str) -> str | None:
    """A name's binding in a tree where the test did not reach it, to compare it with."""
    match = BINDING_KEY.match(key)
    scope = None if match is None else sources.scope(match[2])
    if match is None or scope is None or match[1] not in scope.bindings:
        return None
    return bound_to(sources, match[2], scope.bindings[match[1]], match[1])


def differences(trusted: Sources, before: Prints, head: Sources, after: Prints) -> tuple[str, ...]:
    """What changed, in words: each part whose syntax tree differs, added or removed. A
    name only one side's test reaches is compared with its binding on the other side:
    a new mark that uses `pytest` adds no edit of `pytest`."""
    found = []
    for key in sorted(before.keys() | after.keys()):
        old = before[key] if key in before else _bound_in(trusted, key)
        new = after[key] if key in after else _bound_in(head, key)
        if old == new:
            continue
        found.append(
            key
            if old is not None and new is not None
            else f"{key} ({'added' if old is None else 'removed'})"
        )
    return tuple(found)


def edited_tests(committed: Committed, test_ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each registered test id the change's commit edited, with what changed."""
    changed = committed.changed
    ids = list(test_ids)
    edited: dict[str, tuple[str, ...]] = {}
    python_ids = []
    for test_id in ids:
        path = test_id.partition("::")[0]
        if path.endswith(".py"):
            python_ids.append(test_id)
        elif path in changed:
            edited[test_id] = ("its file changed",)
    if not any(path.endswith(".py") for path in changed):
        return edited
    modules = {test_id.partition("::")[0] for test_id in python_ids}
    parsed = Parsed()
    reached = reached_modules(committed.head, changed, modules)
    reached |= reached_modules(committed.trusted, changed, modules)
    trusted, head = (
        Sources(committed.trusted, changed, parsed),
        Sources(committed.head, changed, parsed),
    )
    # Parametrized ids share one definition: each is compared once.
    compared: dict[str, tuple[str, ...]] = {}
    alike: dict[Hashable, tuple[str, ...]] = {}
    for test_id in python_ids:
        path = test_id.partition("::")[0]
        if path not in reached:
            continue
        definition = PARAMETERS.sub("", test_id)
        if definition not in compared:
            compared[definition] = _compared(trusted, head, definition, path in changed, alike)
        if compared[definition]:
            edited[test_id] = compared[definition]
    return edited


def _compared(
    trusted: Sources,
    head: Sources,
    definition: str,
    module_changed: bool,
    alike: dict[Hashable, tuple[str, ...]],
) -> tuple[str, ...]:
    """What changed in a test, or what changed in a test of the same module that uses the
    same module-level names (`names_key`, kept in `alike`)."""
    key = None if module_changed else names_key(head, definition)
    if key is not None and key in alike:
        return alike[key]
    found = differences(
        trusted, fingerprint(trusted, definition), head, fingerprint(head, definition)
    )
    if key is not None:
        alike[key] = found
    return found


def names_key(sources: Sources, definition: str) -> Hashable | None:
    """What the comparison of a test in a module the change left as it was depends on: the
    module, and the names its function and classes use that the module binds. Its own
    code is the same on both commits, so only what those names lead to elsewhere can
    differ, and a name the module does not bind leads nowhere (`Follow.follow`): tests of
    one module that use the same module-level names compare the same. None when the
    definition cannot be found."""
    found = sources.definition(definition)
    if found is None:
        return None
    scope, classes, function = found
    bound = scope.bindings
    names: set[str] = set()
    attributes: set[tuple[str, str]] = set()
    for node in [function, *(part for cls in classes for part in class_parts(cls))]:
        used, read = sources.names_in(node)
        names.update(name for name in used if name in bound)
        attributes.update(pair for pair in read if pair[0] in bound)
    return scope.path, frozenset(names), frozenset(attributes)
