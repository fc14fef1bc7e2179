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
from dataclasses import dataclass, field

from tree_sitter import Node

from waiver.read.harness.listing import folder_of, join
from waiver.read.harness.resolve import MAX_MODULE_BYTES
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import FileTree
from waiver.runners.node_harness import CODE_SUFFIXES, EXTENSIONS
from waiver.runners.syntax import literal, parse, text, walk

TESTS = frozenset({"it", "test", "specify", "xit", "xtest", "fit", "bench"})
SUITES = frozenset({"describe", "context", "suite", "xdescribe", "fdescribe", "xcontext"})
# `test.each` placeholders (jest, vitest) and `$name` interpolations of a table's keys.
PLACEHOLDER = re.compile(r"%[sdifjop#%]|\$[\w.]+")
BINDING_NAMES = frozenset(
    {"identifier", "shorthand_property_identifier_pattern", "type_identifier"}
)
DECLARATIONS = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "class_declaration",
        "abstract_class_declaration",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
    }
)
FILE_CHANGED = "its file changed"
MODULE_KEY = "the module "
# Folders of test code: a relative module under one of them is followed; any other is
# code under test.
TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing", "__mocks__"})


def _callee(call: Node) -> str | None:
    """`it`, `describe`, … for a call of one of them or of a variant (`it.only`,
    `test.each(table)`, `describe.skip.each(table)`); None for any other call."""
    function = call.child_by_field_name("function")
    while function is not None:
        if function.type == "identifier":
            return text(function)
        if function.type == "member_expression":
            function = function.child_by_field_name("object")
        elif function.type == "call_expression":
            function = function.child_by_field_name("function")
        else:
            return None
    return None


def _kind(node: Node) -> str | None:
    """`test` or `suite` for a call that defines one, else None."""
    if node.type != "call_expression":
        return None
    outer = node.parent
    if outer is not None and outer.type == "call_expression":
        function = outer.child_by_field_name("function")
        if function is not None and function == node:
            return None  # `test.each(table)`, which the outer call gives its title
    name = _callee(node)
    if name in TESTS:
        return "test"
    return "suite" if name in SUITES else None


def _title(call: Node) -> str:
    """A call's title as a pattern: literal text escaped, anything computed `.*`."""
    arguments = call.child_by_field_name("arguments")
    first = next(
        (
            child
            for child in (arguments.named_children if arguments else [])
            if child.type != "comment"
        ),
        None,
    )
    if first is None:
        return ".*"
    value = literal(first)
    if value is not None:
        pieces = PLACEHOLDER.split(value)
        return ".*".join(re.escape(piece) for piece in pieces)
    if first.type == "template_string":
        return "".join(
            ".*" if part.type == "template_substitution" else re.escape(text(part))
            for part in first.named_children
        )
    return ".*"


def _display(call: Node) -> str:
    """A suite's title as written: its text, or its first argument's source."""
    arguments = call.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments and arguments.named_children else None
    if first is None:
        return "(untitled)"
    value = literal(first)
    return value if value is not None else text(first)


def dump(node: Node) -> str:
    """The syntax tree under `node` as text: node kinds and the text of leaves, without
    comments, so that layout and comments change nothing."""
    out: list[str] = []
    pending: list[Node | None] = [node]
    while pending:
        current = pending.pop()
        if current is None:
            out.append(")")
            continue
        if current.type == "comment":
            continue
        if current.child_count == 0:
            out.append(f"{current.type}:{text(current)} ")
            continue
        out.append(f"({current.type} ")
        pending.append(None)
        pending.extend(reversed(current.children))
    return "".join(out)


def _names_used(nodes: Iterable[Node]) -> set[str]:
    return {
        text(found)
        for node in nodes
        for found in walk(node)
        if found.type in ("identifier", "shorthand_property_identifier", "type_identifier")
    }


def _bound_names(statement: Node) -> set[str]:
    """The module-level names a statement binds."""
    target = statement
    if statement.type == "export_statement":
        declaration = statement.child_by_field_name("declaration")
        if declaration is None:
            return set()
        target = declaration
    if target.type in DECLARATIONS:
        name = target.child_by_field_name("name")
        return set() if name is None else {text(name)}
    if target.type in ("lexical_declaration", "variable_declaration"):
        names = set()
        for declarator in target.named_children:
            name = declarator.child_by_field_name("name")
            if name is not None:
                names |= {text(n) for n in walk(name) if n.type in BINDING_NAMES}
        return names
    if target.type == "import_statement":
        names = set()
        for child in target.named_children:
            if child.type != "import_clause":
                continue
            for found in walk(child):
                if found.type == "import_specifier":
                    alias = found.child_by_field_name("alias") or found.child_by_field_name("name")
                    if alias is not None:
                        names.add(text(alias))
                elif (
                    found.type == "identifier"
                    and found.parent is not None
                    and (found.parent.type in ("import_clause", "namespace_import"))
                ):
                    names.add(text(found))
        return names
    return set()


def _holds_tests(node: Node) -> bool:
    return any(_kind(found) is not None for found in walk(node))


def _relative_source(statement: Node) -> str | None:
    """The relative module an import or a `require` statement loads, if any."""
    for found in walk(statement):
        if found.type == "import_statement":
            source = found.child_by_field_name("source")
            value = None if source is None else literal(source)
            if value is not None and value.startswith("."):
                return value
        if found.type == "call_expression" and _callee(found) == "require":
            arguments = found.child_by_field_name("arguments")
            first = arguments.named_children[0] if arguments and arguments.named_children else None
            value = None if first is None else literal(first)
            if value is not None and value.startswith("."):
                return value
    return None


@dataclass
class Definition:
    """One test call, the statement that holds it, and the suites around it."""

    call: Node
    statement: Node
    suites: list[Node]
    pattern: re.Pattern[str]


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
            if statement.type == "comment" or _holds_tests(statement):
                continue
            names = _bound_names(statement)
            if not names:
                module.unbound.append(statement)
            for name in names:
                module.bindings.setdefault(name, []).append(statement)
        for found in walk(module.root):
            if _kind(found) == "test":
                module.definitions.append(module._definition(found, separator))
        return module

    def _definition(self, call: Node, separator: str) -> Definition:
        suites: list[Node] = []
        statement = call
        node = call.parent
        while node is not None:
            if _kind(node) == "suite":
                suites.insert(0, node)
            node = node.parent
        # The statement that holds the call, directly in its innermost suite's callback or
        # in the module: the call itself, or a loop that makes it.
        container = suites[-1] if suites else self.root
        while statement.parent is not None and not _statement_of(statement, container):
            statement = statement.parent
        titles = [_title(suite) for suite in suites] + [_title(call)]
        return Definition(call, statement, suites, re.compile(re.escape(separator).join(titles)))

    def find(self, title: str) -> Definition | None:
        matches = [d for d in self.definitions if d.pattern.fullmatch(title)]
        return matches[0] if len(matches) == 1 else None

    def prints(self, definition: Definition) -> dict[str, str]:
        """What the test's outcome depends on in its module, each part as text."""
        prints = {"its body": dump(definition.statement)}
        used = _names_used([definition.statement])
        for suite in definition.suites:
            parts = [dump(part) for part in _suite_parts(suite)]
            used |= _names_used(_suite_parts(suite))
            prints[f"its describe {_display(suite)}"] = "\n".join(parts)
        if self.unbound:
            prints[f"module code of {self.path}"] = "\n".join(dump(s) for s in self.unbound)
            used |= _names_used(self.unbound)
        seen: set[str] = set()
        pending = sorted(used)
        while pending:
            name = pending.pop()
            if name in seen or name not in self.bindings:
                continue
            seen.add(name)
            statements = self.bindings[name]
            prints[f"`{name}` in {self.path}"] = "\n".join(dump(s) for s in statements)
            pending += sorted(_names_used(statements) - seen)
            for statement in statements:
                source = _relative_source(statement)
                if source is not None:
                    prints.update(self._imported(source))
        return prints

    def _imported(self, source: str) -> dict[str, str]:
        """A relative module of the test code a used name comes from, compared whole; the
        code under test is what the change is for, and is not followed."""
        path = posixpath.normpath(join(folder_of(self.path), source))
        if not _test_code(path):
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

    def lookup(self, key: str) -> str | None:
        """A part the other side's test reaches and this side's does not, as this side
        has it: a name's binding, or a module; None when it has none."""
        if key.startswith("`") and key.endswith(f"` in {self.path}"):
            statements = self.bindings.get(key[1 : -len(f"` in {self.path}")])
            return None if statements is None else "\n".join(dump(s) for s in statements)
        if key.startswith(MODULE_KEY):
            return self.module_print(key[len(MODULE_KEY) :])
        return None


def _test_code(module: str) -> bool:
    """Whether `module` is test code: a module in a test folder (`test/helpers.js`). Any
    other is code under test, which tests sit beside in many projects (`src/calc.js`
    beside `src/calc.test.js`)."""
    return bool(TEST_FOLDERS & set(module.split("/")[:-1]))


def _statement_of(node: Node, container: Node) -> bool:
    """Whether `node` is a statement directly in `container`: the program, or a suite
    call's callback body."""
    parent = node.parent
    if parent is None:
        return False
    if container.type == "program":
        return parent == container
    return parent.type == "statement_block" and _callback_of(parent) == container


def _callback_of(block: Node) -> Node | None:
    """The call whose callback's body is `block`."""
    function = block.parent
    arguments = None if function is None else function.parent
    call = None if arguments is None else arguments.parent
    if call is not None and call.type == "call_expression":
        return call
    return None


def _suite_parts(suite: Node) -> list[Node]:
    """A suite's title and the statements of its callback that hold no test or suite."""
    arguments = suite.child_by_field_name("arguments")
    parts: list[Node] = []
    for argument in arguments.named_children if arguments else []:
        body = argument.child_by_field_name("body")
        if argument.type in ("arrow_function", "function_expression", "function") and body:
            parts += [s for s in body.named_children if s.type != "comment" and not _holds_tests(s)]
        else:
            parts.append(argument)
    function = suite.child_by_field_name("function")
    return [*(part for part in [function] if part is not None), *parts]


def edited_scripts(
    committed: Committed, test_ids: Sequence[str], separator: str
) -> dict[str, tuple[str, ...]]:
    """Each of `test_ids` naming a JavaScript or TypeScript file whose definition the
    change's commit edited, with what changed."""
    edited: dict[str, tuple[str, ...]] = {}
    if not committed.changed:
        return edited
    modules: dict[str, tuple[Module | None, Module | None]] = {}
    for test_id in test_ids:
        path, _, title = test_id.partition("::")
        if path not in modules:
            modules[path] = (
                Module.read(committed.trusted, path, separator),
                Module.read(committed.head, path, separator),
            )
        before, after = modules[path]
        changes = _changes(before, after, title, path in committed.changed)
        if changes:
            edited[test_id] = changes
    return edited


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


def script_ids(test_ids: Iterable[str]) -> Iterator[str]:
    """The ids that name a JavaScript or TypeScript file."""
    for test_id in test_ids:
        path, separator, _ = test_id.partition("::")
        if separator and path.endswith(CODE_SUFFIXES):
            yield test_id
