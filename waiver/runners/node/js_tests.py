"""How a JavaScript or TypeScript test module reads, by its syntax tree (tree-sitter): which
calls are tests (`it`, `test`, `specify`, …) and suites (`describe`, `context`, …), their
titles, the names a statement binds and uses, the relative module an import names, and
which files are test code. Nothing here runs the code it reads."""

from __future__ import annotations

import re
from collections.abc import Iterable

from tree_sitter import Node

from waiver.runners.node.syntax import literal, text, walk

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
# How an id names a test whose own title is empty: a title that ends the id in a space
# (or in `::`) would read as none, and be lost to an editor that trims lines.
EMPTY_TITLE = "(empty title)"
# Tokens whose presence is a matter of layout: a semicolon that ends a statement, which
# JavaScript inserts itself where a line ends.
OPTIONAL_TOKENS = frozenset({";"})
CLOSING = frozenset({")", "]", "}"})
# Folders of test code: a relative module under one of them is followed; any other is
# code under test.
TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing", "__mocks__"})


def callee(call: Node) -> str | None:
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


def kind(node: Node) -> str | None:
    """`test` or `suite` for a call that defines one, else None."""
    if node.type != "call_expression":
        return None
    outer = node.parent
    if outer is not None and outer.type == "call_expression":
        function = outer.child_by_field_name("function")
        if function is not None and function == node:
            return None  # `test.each(table)`, which the outer call gives its title
    name = callee(node)
    if name in TESTS:
        return "test"
    return "suite" if name in SUITES else None


def title(call: Node) -> str:
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
    if value == "":
        return re.escape(EMPTY_TITLE)
    if value is not None:
        pieces = PLACEHOLDER.split(value)
        return ".*".join(re.escape(piece) for piece in pieces)
    if first.type == "template_string":
        return "".join(
            ".*" if part.type == "template_substitution" else re.escape(text(part))
            for part in first.named_children
        )
    return ".*"


def display(call: Node) -> str:
    """A suite's title as written: its text, or its first argument's source."""
    arguments = call.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments and arguments.named_children else None
    if first is None:
        return "(untitled)"
    value = literal(first)
    return value if value is not None else text(first)


def _number(value: str) -> str:
    """A number literal by its value: `0.5` is `.5`, `0xFF` is `255`."""
    plain = value.replace("_", "").lower()
    try:
        return repr(int(plain, 0))
    except ValueError:
        pass
    try:
        return repr(float(plain))
    except ValueError:
        return plain


def _lone_parameter(node: Node) -> Node | None:
    """The one plain name a parameter list holds (`(x) =>`), which reads as `x =>`."""
    if node.type != "formal_parameters" or node.named_child_count != 1:
        return None
    only = node.named_children[0]
    if only.type == "required_parameter" and only.named_child_count == 1:
        only = only.named_children[0]
    return only if only.type == "identifier" else None


def _trailing_comma(node: Node) -> bool:
    following = node.next_sibling
    return node.type == "," and (following is None or following.type in CLOSING)


def dump(node: Node) -> str:
    """The syntax tree under `node` as text: node kinds and the text of leaves, without
    what a formatter changes, so that layout, comments, quotes, semicolons, trailing commas,
    the parentheses around a lone arrow parameter and how a number is spelled change
    nothing."""
    out: list[str] = []
    pending: list[Node | None] = [node]
    while pending:
        current = pending.pop()
        if current is None:
            out.append(")")
            continue
        lone = _lone_parameter(current)
        if lone is not None:
            current = lone
        if current.type == "comment" or current.type in OPTIONAL_TOKENS:
            continue
        if _trailing_comma(current):
            continue
        value = literal(current) if current.type == "string" else None
        if value is not None:
            out.append(f"string:{value!r} ")
            continue
        if current.type == "number":
            out.append(f"number:{_number(text(current))} ")
            continue
        if current.child_count == 0:
            out.append(f"{current.type}:{text(current)} ")
            continue
        out.append(f"({current.type} ")
        pending.append(None)
        pending.extend(reversed(current.children))
    return "".join(out)


def names_used(nodes: Iterable[Node]) -> set[str]:
    return {
        text(found)
        for node in nodes
        for found in walk(node)
        if found.type in ("identifier", "shorthand_property_identifier", "type_identifier")
    }


def bound_names(statement: Node) -> set[str]:
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


def _binds(node: Node, name: str) -> bool:
    return any(found.type in BINDING_NAMES and text(found) == name for found in walk(node))


def binding_parts(statement: Node, name: str) -> list[Node]:
    """The parts of a module-level statement that say what one name it binds is: of an
    import, that name's specifier and the module; of a declaration, that name's declarator
    (of a destructuring one, its part of the pattern, and the value); else the whole
    statement. So adding a name to a shared import list edits no test that uses another."""
    target = statement
    if statement.type == "export_statement":
        target = statement.child_by_field_name("declaration") or statement
    if target.type == "import_statement":
        source = target.child_by_field_name("source")
        for found in walk(target):
            named = found.child_by_field_name("alias") or found.child_by_field_name("name")
            if found.type == "import_specifier" and named is not None and text(named) == name:
                return [part for part in (found, source) if part is not None]
            if found.type in ("import_clause", "namespace_import"):
                own = [c for c in found.children if c.type == "identifier" and text(c) == name]
                if own:
                    return [
                        part
                        for part in (found if found.type == "namespace_import" else own[0], source)
                        if part is not None
                    ]
    if target.type in ("lexical_declaration", "variable_declaration"):
        keyword = target.children[:1]
        for declarator in target.named_children:
            pattern = declarator.child_by_field_name("name")
            if pattern is None or not _binds(pattern, name):
                continue
            if pattern.type == "identifier":
                return [*keyword, declarator]
            value = declarator.child_by_field_name("value")
            part = next((c for c in pattern.named_children if _binds(c, name)), pattern)
            return [*keyword, part, *([value] if value is not None else [])]
    return [statement]


def binding_dump(statement: Node, name: str) -> str:
    """What a module-level statement says of one name it binds (`binding_parts`), as
    `dump` writes it."""
    return " ".join(dump(part) for part in binding_parts(statement, name))


def holds_tests(node: Node) -> bool:
    return any(kind(found) is not None for found in walk(node))


def relative_source(statement: Node) -> str | None:
    """The relative module an import or a `require` statement loads, if any."""
    for found in walk(statement):
        if found.type == "import_statement":
            source = found.child_by_field_name("source")
            value = None if source is None else literal(source)
            if value is not None and value.startswith("."):
                return value
        if found.type == "call_expression" and callee(found) == "require":
            arguments = found.child_by_field_name("arguments")
            first = arguments.named_children[0] if arguments and arguments.named_children else None
            value = None if first is None else literal(first)
            if value is not None and value.startswith("."):
                return value
    return None


def test_code(module: str) -> bool:
    """Whether `module` is test code: a module in a test folder (`test/helpers.js`). Any
    other is code under test, which tests sit beside in many projects (`src/calc.js`
    beside `src/calc.test.js`)."""
    return bool(TEST_FOLDERS & set(module.split("/")[:-1]))


def statement_of(node: Node, container: Node) -> bool:
    """Whether `node` is a statement directly in `container`: the program, or a suite
    call's callback body."""
    parent = node.parent
    if parent is None:
        return False
    if container.type == "program":
        return parent == container
    return parent.type == "statement_block" and callback_of(parent) == container


def callback_of(block: Node) -> Node | None:
    """The call whose callback's body is `block`."""
    function = block.parent
    arguments = None if function is None else function.parent
    call = None if arguments is None else arguments.parent
    if call is not None and call.type == "call_expression":
        return call
    return None


def suite_parts(suite: Node) -> list[Node]:
    """A suite's title and the statements of its callback that hold no test or suite."""
    arguments = suite.child_by_field_name("arguments")
    parts: list[Node] = []
    for argument in arguments.named_children if arguments else []:
        body = argument.child_by_field_name("body")
        if argument.type in ("arrow_function", "function_expression", "function") and body:
            parts += [s for s in body.named_children if s.type != "comment" and not holds_tests(s)]
        else:
            parts.append(argument)
    function = suite.child_by_field_name("function")
    return [*(part for part in [function] if part is not None), *parts]
