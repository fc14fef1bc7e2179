"""Edited JavaScript and TypeScript tests, per test, by syntax tree (tree-sitter).

A test's definition, compared between the trusted revision and the change's commit:

- its body: the `it`/`test` call with its title and callback, and for `test.each(table)`
  the table; a test made in a loop (`cases.forEach(… it(…))`) is the loop's statement;
- each `describe` around it: its title and every statement of its callback that holds no
  test or describe (`beforeEach`, `beforeAll`, `afterEach`, `afterAll`, local helpers);
- every module-level name it (or those) uses, followed through the module's functions,
  classes, variables and imports; a relative module of the test code (in a `test`,
  `tests`, `__tests__`, `spec` folder …) it imports a used name from is compared whole,
  while the code under test is what the change is for, and is not followed;
- the module's code that binds no name (`jest.mock(…)`, a top-level `beforeEach`), which
  is part of every test of the module.

Comments and layout are no edit. A test is found by its id: the describe titles and its
title, where a title that is not a literal (`test.each` placeholders such as `%i` and
`$name`, template substitutions, computed titles) matches any text. A test the id matches
no definition of, or more than one, is compared as its whole file.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from tree_sitter import Node

from waiver.read.harness.listing import folder_of, join
from waiver.read.harness.named import MAX_MODULE_BYTES
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import FileTree
from waiver.runners.node.js_each import each_rows, row_title
from waiver.runners.node.js_tests import (
    EMPTY_TITLE,
    binding_dump,
    binding_parts,
    bound_names,
    display,
    dump,
    holds_tests,
    kind,
    names_used,
    relative_source,
    statement_of,
    suite_parts,
    test_code,
    title,
)
from waiver.runners.node.node_harness import CODE_SUFFIXES, EXTENSIONS
from waiver.runners.node.syntax import literal, parse, walk

FILE_CHANGED = "its file changed"
MODULE_KEY = "the module "
BODY = "its body"
DESCRIBE = "its describe "
MODULE_CODE = "module code of "


@dataclass
class Definition:
    """One test call, the statement that holds it, and the suites around it; for a row of
    a `test.each` table, the row (`waiver.runners.node.js_each`), whose title is exact."""

    call: Node
    statement: Node
    suites: list[Node]
    pattern: re.Pattern[str]
    row: Node | None = None
    exact: str | None = None  # the whole title, when the id's text is known


@dataclass
class Module:
    """A parsed test module: its top-level statements and its tests."""

    path: str
    tree: FileTree
    root: Node
    bindings: dict[str, list[Node]] = field(default_factory=dict)
    unbound: list[Node] = field(default_factory=list)
    definitions: list[Definition] = field(default_factory=list)

    @classmethod
    def read(cls, tree: FileTree, path: str, separator: str) -> Module | None:
        data = tree.read(path, MAX_MODULE_BYTES)
        if data is None:
            return None
        module = cls(path, tree, parse(data, path))
        for statement in module.root.named_children:
            if statement.type == "comment" or holds_tests(statement):
                continue
            names = bound_names(statement)
            if not names:
                module.unbound.append(statement)
            for name in names:
                module.bindings.setdefault(name, []).append(statement)
        for found in walk(module.root):
            if kind(found) == "test":
                module.definitions += module._definitions(found, separator)
        return module

    def _definitions(self, call: Node, separator: str) -> list[Definition]:
        """The test a call defines, or one a row of its literal `each` table."""
        definition = self._definition(call, separator)
        rows = each_rows(call)
        template = _literal_title(call)
        prefix = [_literal_title(suite) for suite in definition.suites]
        if rows is None or template is None or None in prefix:
            return [definition]
        runner = "vitest" if separator.strip() == ">" else "jest"
        titles = [row_title(template, row, index, runner) for index, row in enumerate(rows)]
        if None in titles:
            return [definition]
        # The call as a whole stays, for an id its rows' titles do not spell.
        found = [definition]
        for row, own in zip(rows, titles, strict=True):
            exact = separator.join([*(p or "" for p in prefix), own or EMPTY_TITLE])
            pattern = re.compile(re.escape(exact))
            found.append(replace(definition, pattern=pattern, row=row, exact=exact))
        return found

    def _definition(self, call: Node, separator: str) -> Definition:
        suites: list[Node] = []
        statement = call
        node = call.parent
        while node is not None:
            if kind(node) == "suite":
                suites.insert(0, node)
            node = node.parent
        # The statement that holds the call, directly in its innermost suite's callback or
        # in the module: the call itself, or a loop that makes it.
        container = suites[-1] if suites else self.root
        while statement.parent is not None and not statement_of(statement, container):
            statement = statement.parent
        titles = [title(suite) for suite in suites] + [title(call)]
        return Definition(call, statement, suites, re.compile(re.escape(separator).join(titles)))

    def find(self, title: str) -> Definition | None:
        """The one definition the title of an id names: the one whose title is exactly it,
        else the one whose title's pattern it matches; None when none or several do."""
        exact = [d for d in self.definitions if d.exact == title]
        matches = exact or [
            d for d in self.definitions if d.row is None and d.pattern.fullmatch(title)
        ]
        return matches[0] if len(matches) == 1 else None

    def prints(self, definition: Definition) -> dict[str, str]:
        """What the test's outcome depends on in its module, each part as text: of a row of
        an `each` table, the call with that row alone."""
        prints = {BODY: _body(definition)}
        used = names_used([definition.statement])
        for suite in definition.suites:
            parts = [dump(part) for part in suite_parts(suite)]
            used |= names_used(suite_parts(suite))
            prints[DESCRIBE + display(suite)] = "\n".join(parts)
        if self.unbound:
            prints[MODULE_CODE + self.path] = "\n".join(dump(s) for s in self.unbound)
            used |= names_used(self.unbound)
        seen: set[str] = set()
        pending = sorted(used)
        while pending:
            name = pending.pop()
            if name in seen or name not in self.bindings:
                continue
            seen.add(name)
            statements = self.bindings[name]
            prints[f"`{name}` in {self.path}"] = self.binding(name, statements)
            said = [part for statement in statements for part in binding_parts(statement, name)]
            pending += sorted(names_used(said) - seen)
            for statement in statements:
                source = relative_source(statement)
                if source is not None:
                    prints.update(self._imported(source))
        return prints

    def _imported(self, source: str) -> dict[str, str]:
        """A relative module of the test code a used name comes from, compared whole; the
        code under test is what the change is for, and is not followed."""
        path = posixpath.normpath(join(folder_of(self.path), source))
        if not test_code(path):
            return {}
        for candidate in (
            path,
            *(path + suffix for suffix in EXTENSIONS),
            *(join(path, "index" + suffix) for suffix in EXTENSIONS),
        ):
            found = self.module_print(candidate)
            if found is not None:
                return {f"{MODULE_KEY}{candidate}": found}
        return {f"{MODULE_KEY}{path}": "absent"}

    def module_print(self, path: str) -> str | None:
        """A module's syntax tree as text (another file's digest); None when it is absent."""
        data = None if path.startswith("../") else self.tree.read(path, MAX_MODULE_BYTES)
        if data is None:
            return None
        if path.endswith(CODE_SUFFIXES):
            return dump(parse(data, path))
        return hashlib.sha256(data).hexdigest()

    @staticmethod
    def binding(name: str, statements: list[Node]) -> str:
        """What the module's statements say of `name` (`binding_dump`)."""
        return "\n".join(binding_dump(statement, name) for statement in statements)

    def bound(self, key: str) -> list[Node] | None:
        """The statements that bind the name a part `` `name` in path `` of this module
        names; None when it names another part, or a name this module does not bind."""
        if key.startswith("`") and key.endswith(f"` in {self.path}"):
            return self.bindings.get(key[1 : -len(f"` in {self.path}")])
        return None

    def lookup(self, key: str) -> str | None:
        """A part the other side's test reaches and this side's does not, as this side
        has it: a name's binding, or a module; None when it has none."""
        statements = self.bound(key)
        if statements is not None:
            return self.binding(key[1 : key.index("` in ")], statements)
        if key.startswith(MODULE_KEY):
            return self.module_print(key[len(MODULE_KEY) :])
        return None


def _literal_title(call: Node) -> str | None:
    """A call's title when it is a literal, else None."""
    arguments = call.child_by_field_name("arguments")
    first = next(
        (c for c in (arguments.named_children if arguments else []) if c.type != "comment"), None
    )
    return None if first is None else literal(first)


def _body(definition: Definition) -> str:
    """The test's own part: its statement, or for a row of an `each` table the call, its
    callee and that row."""
    if definition.row is None:
        return dump(definition.statement)
    call = definition.call
    table = call.child_by_field_name("function")
    callee = None if table is None else table.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    parts = [callee, definition.row, arguments]
    return " ".join(dump(part) for part in parts if part is not None)


def edited_scripts(
    committed: Committed, test_ids: Sequence[str], separator: str
) -> dict[str, tuple[str, ...]]:
    """Each of `test_ids` naming a JavaScript or TypeScript file whose definition the
    change's commit edited, with what changed."""
    edited: dict[str, tuple[str, ...]] = {}
    if not committed.changed:
        return edited
    for test_id, path, named, before, after in on_both(committed, test_ids, separator):
        changes = _changes(before, after, named, path in committed.changed)
        if changes:
            edited[test_id] = changes
    return edited


def on_both(
    committed: Committed, test_ids: Iterable[str], separator: str
) -> Iterator[tuple[str, str, str, Module | None, Module | None]]:
    """Each test id with its file, its title, and its module on the trusted revision and on
    the change's commit (None where absent), each module read once."""
    modules: dict[str, tuple[Module | None, Module | None]] = {}
    for test_id in test_ids:
        path, _, named = test_id.partition("::")
        if path not in modules:
            modules[path] = (
                Module.read(committed.trusted, path, separator),
                Module.read(committed.head, path, separator),
            )
        yield test_id, path, named, *modules[path]


def _changes(
    before: Module | None, after: Module | None, title: str, file_changed: bool
) -> tuple[str, ...]:
    if before is None or after is None:
        return (FILE_CHANGED,) if file_changed else ()
    old, new = before.find(title), after.find(title)
    if old is None or new is None:
        return (FILE_CHANGED,) if file_changed else ()
    first, second = before.prints(old), after.prints(new)
    found = []
    for key in sorted(first.keys() | second.keys()):
        # A part only one side's test reaches is compared with the other side's binding:
        # a name the test stopped using is no edit of that name.
        was = first[key] if key in first else before.lookup(key)
        now = second[key] if key in second else after.lookup(key)
        if was == now:
            continue
        found.append(
            key
            if was is not None and now is not None
            else f"{key} ({'added' if was is None else 'removed'})"
        )
    return tuple(found)


def declared_scripts(tree: FileTree, path: str, separator: str) -> list[str]:
    """The ids of the tests a JavaScript or TypeScript test file declares, in its order,
    where its text spells them whole: every title a literal (a describe's not empty), each
    row of a literal `each` table by the title the runner gives it. A test whose title the
    run computes (a template, a table that is not a literal) is left to the change's own
    run."""
    module = Module.read(tree, path, separator) if path.endswith(CODE_SUFFIXES) else None
    found: dict[str, None] = {}
    for definition in [] if module is None else module.definitions:
        if definition.exact is not None:
            found[f"{path}::{definition.exact}"] = None
            continue
        function = definition.call.child_by_field_name("function")
        suites = [_literal_title(suite) or "" for suite in definition.suites]
        own = _literal_title(definition.call)
        table = function is not None and function.type == "call_expression"
        if not table and own is not None and all(suites):
            found[f"{path}::" + separator.join([*suites, own or EMPTY_TITLE])] = None
    return list(found)


def script_ids(test_ids: Iterable[str]) -> Iterator[str]:
    """The ids that name a JavaScript or TypeScript file."""
    for test_id in test_ids:
        path, separator, _ = test_id.partition("::")
        if separator and path.endswith(CODE_SUFFIXES):
            yield test_id
