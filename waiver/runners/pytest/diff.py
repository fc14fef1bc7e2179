"""What a reviewer reads of an edited test: a short diff of its definition, the trusted
revision's against the change's, as the syntax-tree comparison sees it.

Each part the comparison named as changed (`its body`, `` `helper` in tests/h.py ``, its
class, the module code that cannot be followed) is shown as `ast.unparse` gives it on each
side, so comments and layout make no diff line, as they make no edit. The diff is capped
in lines and in characters a line; it is untrusted text (the change wrote it), which every
renderer escapes and caps again. A part this module cannot find on either side (a module
that is not Python) shows no lines: its name is still among the changes.
"""

from __future__ import annotations

import ast
import copy
import difflib
from collections.abc import Iterable, Mapping, Sequence

from waiver.read.trusted.protected import Committed
from waiver.runners.pytest.edited import BINDING_KEY, bound_name
from waiver.runners.pytest.sources import PARAMETERS, Parsed, Sources, class_parts

MAX_DIFF_LINES = 40  # lines of one test's diff, over all its parts
MAX_DIFF_LINE = 200  # characters of one line
CONTEXT = 1  # unchanged lines shown around each change
# Beyond this many lines on the two sides together, the changed middle is shown whole
# rather than matched line by line: difflib's matching is quadratic at worst.
MAX_MATCHED_LINES = 4000
# The two parts of a test's own function are shown as the one function.
OWN = frozenset({"its decorators", "its body"})
OWN_PART = "its definition"
SUFFIXES = (" (added)", " (removed)")


def _unparsed(nodes: Iterable[ast.AST]) -> str:
    try:
        return "\n".join(ast.unparse(node) for node in nodes)
    except (RecursionError, ValueError):  # a tree too deep, or one unparse cannot write
        return "(too deep to show)"


def _binding(sources: Sources, name: str, path: str) -> str | None:
    """The statements that bind `name` in `path`: of an import, only its own alias, as the
    comparison reads it."""
    scope = sources.scope(path)
    if scope is None or name not in scope.bindings:
        return None
    parts = []
    for statement in scope.bindings[name]:
        if isinstance(statement, ast.Import | ast.ImportFrom):
            is_from = isinstance(statement, ast.ImportFrom)
            aliases = [a for a in statement.names if bound_name(a, is_from) == name]
            part = copy.copy(statement)
            part.names = aliases
            parts.append(_unparsed([part]))
        else:
            parts.append(_unparsed([statement]))
    return "\n".join(parts)


def _class(node: ast.ClassDef) -> ast.ClassDef:
    """The class as it is part of its tests: its header and the members that are not tests."""
    shown = copy.copy(node)
    members = [part for part in class_parts(node) if isinstance(part, ast.stmt)]
    shown.body = members or [ast.Expr(ast.Constant(...))]
    return shown


def _module_part(sources: Sources, test_module: str, key: str) -> str | None:
    """A part of the module around a test, or of test code it reaches, by the name the
    comparison gave it."""
    scope = sources.scope(test_module)
    if scope is None:
        return None
    if key == f"module code of {test_module} that cannot be followed":
        return _unparsed(sources.module_code(test_module, scope))
    for module, code in sources.loaded(test_module):
        if key == f"import-time code of {module}":
            return _unparsed(code)
    for what, node in scope.around.values():
        if key == f"its module's {what}":
            return _unparsed([node])
    for module, what, node in sources.pulled_in(test_module):
        if key == f"its module's {what}, from {module}":
            return _unparsed([node])
    if key.startswith("module "):
        path = key.removeprefix("module ").removesuffix(", where its definition cannot be found")
        inner = sources.scope(path)
        return None if inner is None else _unparsed(inner.body)
    return None


def part_source(sources: Sources, definition: str, key: str) -> str | None:
    """The source of one part of a test's definition on one side, as `ast.unparse` writes
    it; None where the part is not there."""
    path, _, rest = definition.partition("::")
    binding = BINDING_KEY.match(key)
    if binding is not None:
        return _binding(sources, binding[1], binding[2])
    scope = sources.scope(path)
    found = None if scope is None else scope.definition(rest.split("::"))
    if found is not None:
        classes, function = found
        if key == OWN_PART:
            return _unparsed([function])
        for node in classes:
            if key == f"its class {node.name}":
                return _unparsed([_class(node)])
    return _module_part(sources, path, key)


def _line(text: str) -> str:
    return text if len(text) <= MAX_DIFF_LINE else text[: MAX_DIFF_LINE - 1] + "…"


def diff_lines(part: str, old: str, new: str) -> list[str]:
    """The unified diff of one part, each hunk headed `@@ part @@`, with CONTEXT lines
    around each change; a middle too long to match is shown removed and added whole."""
    before, after = old.splitlines(), new.splitlines()
    if len(before) + len(after) <= MAX_MATCHED_LINES:
        found = difflib.unified_diff(before, after, n=CONTEXT, lineterm="")
        return [
            f"@@ {part} @@" if line.startswith("@@") else line
            for line in list(found)[2:]  # the two file header lines
        ]
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    end = 0
    while end < min(len(before), len(after)) - start and before[-1 - end] == after[-1 - end]:
        end += 1
    removed, added = before[start : len(before) - end], after[start : len(after) - end]
    return [f"@@ {part} @@", *(f"-{line}" for line in removed), *(f"+{line}" for line in added)]


def capped(lines: Sequence[str]) -> tuple[str, ...]:
    """One test's diff lines, at most MAX_DIFF_LINES of at most MAX_DIFF_LINE characters;
    the last says how many more there were."""
    if len(lines) <= MAX_DIFF_LINES:
        return tuple(map(_line, lines))
    shown = [_line(line) for line in lines[: MAX_DIFF_LINES - 1]]
    return (*shown, f"… {len(lines) - len(shown)} more lines")


def definition_diffs(
    committed: Committed, edited: Mapping[str, Sequence[str]]
) -> dict[str, tuple[str, ...]]:
    """The diff of each edited Python test's definition, by test id, from the parts the
    comparison named (`edited`); ids of one parametrized function share theirs, and a
    part many tests reach (a helper, their module's code) is unparsed once a side."""
    parsed = Parsed()
    trusted = Sources(committed.trusted, committed.changed, parsed)
    head = Sources(committed.head, committed.changed, parsed)
    by_definition: dict[str, tuple[str, ...]] = {}
    # A part's lines, by what it depends on: the definition for the test's own parts, the
    # binding for a name it uses, else the test's module.
    parts_seen: dict[tuple[str, str], list[str]] = {}
    found: dict[str, tuple[str, ...]] = {}
    for test_id, changes in edited.items():
        path = test_id.partition("::")[0]
        if not path.endswith(".py"):
            continue
        definition = PARAMETERS.sub("", test_id)
        if definition not in by_definition:
            lines: list[str] = []
            for part in dict.fromkeys(map(_part_name, changes)):
                own = part == OWN_PART or part.startswith("its class ")
                key = (definition if own else "" if BINDING_KEY.match(part) else path, part)
                if key not in parts_seen:
                    old = part_source(trusted, definition, part) or ""
                    new = part_source(head, definition, part) or ""
                    parts_seen[key] = diff_lines(part, old, new) if old != new else []
                lines += parts_seen[key]
            by_definition[definition] = capped(lines)
        if by_definition[definition]:
            found[test_id] = by_definition[definition]
    return found


def _part_name(change: str) -> str:
    """The part a change names: the function's two parts as one, without `(added)`."""
    for suffix in SUFFIXES:
        change = change.removesuffix(suffix)
    return OWN_PART if change in OWN else change
