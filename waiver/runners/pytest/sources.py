"""Test modules as edited-test detection reads them on both commits: each parsed once, and
what is worked out of them (names used, dumps, imports followed, import-time code) kept.

The same bytes at the same path are the same source, so a module the change left alone is
parsed once for both commits, and every walk of one of its nodes serves both.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Hashable, Iterable

from waiver.errors import InputError
from waiver.read.trusted.trees import FileTree
from waiver.runners.pytest.reach import Texts, is_test_code
from waiver.runners.pytest.scope import Definition, ModuleScope, dump, read_scope, used_names

PARAMETERS = re.compile(r"\[.*\Z", re.DOTALL)
Prints = dict[str, str]


class Parsed:
    """Modules parsed once for both commits. The same bytes at the same path are the same
    source, so most test modules, which a change leaves as they were, are parsed once, and
    each walk of a node (its names, its dump) serves both commits; nodes are kept by their
    scopes, so a node's id stays its own."""

    def __init__(self) -> None:
        self.texts = Texts()
        self._scopes: dict[tuple[str, bytes], ModuleScope | None] = {}
        self.dumps: dict[int, str] = {}
        self.names: dict[int, tuple[set[str], set[tuple[str, str]]]] = {}

    def scope(self, path: str, data: bytes) -> ModuleScope | None:
        key = (path, data)
        if key not in self._scopes:
            try:
                self._scopes[key] = read_scope(ast.parse(data), path)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._scopes[key] = None
        return self._scopes[key]


class Sources:
    """The parsed modules of one tree, each read once."""

    def __init__(self, tree: FileTree, changed: frozenset[str], parsed: Parsed) -> None:
        self.tree = tree
        self.changed = changed
        self.parsed = parsed
        self._scopes: dict[str, ModuleScope | None] = {}
        self._dumps = parsed.dumps
        self._names = parsed.names
        self._reached: dict[Hashable, Prints] = {}
        self._loaded: dict[str, list[tuple[str, list[ast.stmt]]]] = {}
        self._pulled: dict[str, list[tuple[str, str, ast.stmt]]] = {}
        self._module_code: dict[str, list[ast.stmt]] = {}
        self._files: dict[tuple[str, int, str], str | None] = {}

    def scope(self, path: str) -> ModuleScope | None:
        if path not in self._scopes:
            self._scopes[path] = self._read(path)
        return self._scopes[path]

    def definition(
        self, definition_id: str
    ) -> tuple[ModuleScope, list[ast.ClassDef], Definition] | None:
        """The module of a test (`path::Class::test`, without parameters), the classes on
        the way to it and its function; None when either cannot be found."""
        path, _, rest = definition_id.partition("::")
        scope = self.scope(path)
        found = None if scope is None else scope.definition(rest.split("::"))
        if scope is None or found is None:
            return None
        return scope, *found

    def _read(self, path: str) -> ModuleScope | None:
        try:
            data = self.parsed.texts.read(self.tree, path)
        except InputError:
            return None
        return None if data is None else self.parsed.scope(path, data)

    def reached(self, start: Hashable, follow: Callable[[], Prints]) -> Prints:
        """What a test's names reach, `follow`ed from `start` (its module and names): the
        tests of a module mostly use the same names, so each start is followed once."""
        found = self._reached.get(start)
        if found is None:
            found = self._reached[start] = follow()
        return found

    def names_in(self, node: ast.AST) -> tuple[set[str], set[tuple[str, str]]]:
        """`used_names` of a node, worked out once: every test that reaches a helper walks
        the same statements."""
        found = self._names.get(id(node))
        if found is None:
            found = self._names[id(node)] = used_names(node)
        return found

    def dumps_in(self, path: str, nodes: Iterable[ast.AST]) -> str:
        """`dumps` of nodes of the module at `path`; a module the change did not touch has
        the same syntax tree on both commits, so its nodes need no dump to be compared."""
        return self.dumps(nodes) if path in self.changed else "unchanged"

    def dumps(self, nodes: Iterable[ast.AST]) -> str:
        found = []
        for node in nodes:
            text = self._dumps.get(id(node))
            if text is None:
                text = self._dumps[id(node)] = dump(node)
            found.append(text)
        return "\n".join(found)

    def module_file(self, importer: str, level: int, dotted: str) -> str | None:
        """The file an import in `importer` loads: relative to its package, or found from
        its folder up to the root (where pytest's rootdir insertion would find it). The
        answer depends on the importer's folder alone: modules side by side share it."""
        key = (importer.rpartition("/")[0], level, dotted)
        if key not in self._files:
            self._files[key] = self._module_file(key[0], level, dotted)
        return self._files[key]

    def _module_file(self, folder: str, level: int, dotted: str) -> str | None:
        if level:
            for _ in range(level - 1):
                folder = folder.rpartition("/")[0]
            bases = [folder]
        else:
            bases = [folder]
            while folder:
                folder = folder.rpartition("/")[0]
                bases.append(folder)
        tail = dotted.replace(".", "/")
        for base in bases:
            stem = "/".join(part for part in (base, tail) if part)
            for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
                if stem and self.scope(candidate) is not None:
                    return candidate
        return None

    def module_code(self, path: str, scope: ModuleScope) -> list[ast.stmt]:
        """`import_time` of a module, worked out once for all its tests."""
        found = self._module_code.get(path)
        if found is None:
            found = self._module_code[path] = scope.import_time(self.names_in)
        return found

    def imported_files(self, importer: str, statement: ast.Import | ast.ImportFrom) -> list[str]:
        """The module files an import statement loads that are in the tree: each package on
        the way, the module, and a submodule that `from package import name` names."""
        names: list[tuple[int, str]] = []
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                parts = alias.name.split(".")
                names += [(0, ".".join(parts[: n + 1])) for n in range(len(parts))]
        else:
            level, parts = statement.level, (statement.module or "").split(".")
            dotted = [".".join(parts[: n + 1]) for n in range(len(parts)) if parts[n]]
            names += [(level, name) for name in dotted]
            base = statement.module or ""
            names += [
                (level, ".".join(p for p in (base, alias.name) if p))
                for alias in statement.names
                if alias.name != "*"
            ]
        found = (self.module_file(importer, level, name) for level, name in names)
        return list(dict.fromkeys(file for file in found if file is not None))

    def loaded(self, test_module: str) -> list[tuple[str, list[ast.stmt]]]:
        """The test code whose top level importing `test_module` runs, with what it does
        there besides defining names, where it does: the packages the module lies in, and
        every module that it and they import at module level, followed through test code
        (the code under test is not followed)."""
        found = self._loaded.get(test_module)
        if found is not None:
            return found
        folder, packages = test_module.rpartition("/")[0], []
        while folder and self.scope(f"{folder}/__init__.py") is not None:
            packages.append(f"{folder}/__init__.py")
            folder = folder.rpartition("/")[0]
        seen = {test_module, *packages}
        pending = [test_module, *packages]
        while pending:
            path = pending.pop()
            scope = self.scope(path)
            for statement in [] if scope is None else scope.imports:
                for file in self.imported_files(path, statement):
                    if file not in seen and followable(file, test_module):
                        seen.add(file)
                        pending.append(file)
        found = []
        for module in sorted(seen - {test_module}):
            inner = self.scope(module)
            code = [] if inner is None else self.module_code(module, inner)
            if code:
                found.append((module, code))
        self._loaded[test_module] = found
        return found

    def pulled_in(self, test_module: str) -> list[tuple[str, str, ast.stmt]]:
        """What pytest runs around every test of `test_module` that an import brings into
        its namespace from test code: an autouse fixture imported by name or by a star, a
        `setup_module` and its kin imported under their own names. Each with the module
        that defines it and what pytest runs it as."""
        found = self._pulled.get(test_module)
        if found is not None:
            return found
        found = []
        scope = self.scope(test_module)
        for statement in [] if scope is None else scope.imports:
            if not isinstance(statement, ast.ImportFrom):
                continue
            module = self.module_file(test_module, statement.level, statement.module or "")
            inner = None if module is None else self.scope(module)
            if module is None or inner is None or not followable(module, test_module):
                continue
            for alias in statement.names:
                for name, (what, node) in inner.around.items():
                    by_name = alias.name == name and (
                        alias.asname in (None, name) or "autouse" in what
                    )
                    if alias.name == "*" or by_name:
                        found.append((module, what, node))
        self._pulled[test_module] = found
        return found


def followable(path: str, test_module: str) -> bool:
    """Whether a module a test imports is test code to follow, not the code under test."""
    top = test_module.partition("/")[0] if "/" in test_module else ""
    return is_test_code(path) or (bool(top) and path.startswith(top + "/"))


def class_parts(node: ast.ClassDef) -> list[ast.AST]:
    """What of a test's class is part of the test: its header and every member that is not
    another test (`setup_method`, class attributes)."""
    members = [
        s
        for s in node.body
        if not (isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name.startswith("test"))
        and not (isinstance(s, ast.ClassDef) and s.name.startswith("Test"))
    ]
    return [*node.decorator_list, *node.bases, *node.keywords, *members]
