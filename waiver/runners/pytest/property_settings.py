"""Where the change's commit can set the property suite's Hypothesis settings.

A property protects only as many cases as its run generates, and Hypothesis takes its
settings from more places than the locked property modules: a profile registered and loaded
by any module the run imports, `settings(...)` objects a property is given, the
`HYPOTHESIS_…` environment and the `--hypothesis-…` options of the command line. So with a
trusted revision, each line the change's commit adds or changes that does one of these is a
settings change, named with its file and line:

- in a Python module: registering or loading a profile (`register_profile`,
  `load_profile`), assigning an attribute of Hypothesis's `settings`, a `HYPOTHESIS_…`
  name or a `--hypothesis-…` option; and, outside the modules pytest collects as tests
  (where a test's own `@settings` is part of its definition, compared as an edit), making
  a `settings(...)` object or naming `max_examples` or `derandomize`;
- in any other text file (a workflow's property command, a script, a configuration
  file): a `HYPOTHESIS_…` name or a `--hypothesis-…` option.

`settings` is Hypothesis's when the module binds it from `hypothesis` (`from hypothesis
import settings as s`, `import hypothesis as h; h.settings`), so a project's own `settings`
module is not taken for it. Lines are compared as the reach-in scan compares them
(`waiver.read.harness.reach_in`): a new comment or new layout of an old line is no change.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from waiver.errors import InputError
from waiver.read.harness.bytecode import is_bytecode
from waiver.read.harness.named import MAX_MODULE_BYTES
from waiver.read.harness.reach_in import ReachIn, new_lines
from waiver.read.trusted.protected import Committed
from waiver.runners.pytest.harness.collected import collection, folders_above
from waiver.runners.pytest.python_reach import read_module

PROFILE_CALLS = {
    "register_profile": "registers a Hypothesis profile (register_profile)",
    "load_profile": "loads a Hypothesis profile (load_profile)",
}
# Settings that decide how many cases a property generates and which.
CASE_SETTINGS = frozenset({"max_examples", "derandomize"})
# A `HYPOTHESIS_…` variable, or a `--hypothesis-…` option of Hypothesis's pytest plugin.
SETTINGS_WORD = re.compile(r"\bHYPOTHESIS_\w*|--hypothesis-[\w-]*")
HYPOTHESIS_MODULES = frozenset({"hypothesis", "hypothesis._settings"})
WORD_SHOWN = 60


def _bindings(module: ast.Module) -> tuple[set[str], set[str]]:
    """The names the module binds to Hypothesis's `settings`, and to `hypothesis` itself."""
    settings, packages = set(), set()
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and node.module in HYPOTHESIS_MODULES:
            settings |= {a.asname or a.name for a in node.names if a.name == "settings"}
        elif isinstance(node, ast.Import):
            packages |= {a.asname or a.name for a in node.names if a.name == "hypothesis"}
    return settings, packages


def _is_settings(node: ast.expr, settings: set[str], packages: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in settings
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "settings"
        and isinstance(node.value, ast.Name)
        and node.value.id in packages
    )


def _words(value: str) -> Iterator[str]:
    for match in SETTINGS_WORD.finditer(value):
        yield match[0][:WORD_SHOWN]


def _node_changes(
    node: ast.AST, settings: set[str], packages: set[str], collected: bool
) -> Iterator[str]:
    """What `node` does to the settings; `collected`, whether its module is a test module."""
    if isinstance(node, ast.Attribute):
        if node.attr in PROFILE_CALLS:
            yield PROFILE_CALLS[node.attr]
        if isinstance(node.ctx, ast.Store) and _is_settings(node.value, settings, packages):
            yield f"assigns settings.{node.attr}"
    elif isinstance(node, ast.Name | ast.Constant):
        text = node.id if isinstance(node, ast.Name) else node.value
        if isinstance(text, str):
            yield from (f"names {word}" for word in _words(text))
    if collected:
        return
    if isinstance(node, ast.Call) and _is_settings(node.func, settings, packages):
        yield "makes Hypothesis settings (settings(...))"
    name = node.arg if isinstance(node, ast.keyword) else getattr(node, "id", None)
    if name in CASE_SETTINGS:
        yield f"sets {name}"


def python_changes(before: bytes | None, after: bytes, collected: bool) -> list[tuple[int, str]]:
    """The settings changes of the lines `after` adds or changes against `before`."""
    reading = read_module(after)
    if reading is None:  # Python cannot import it either
        return []
    module = ast.parse(after)
    added = new_lines(None if before is None else read_module(before), reading)
    settings, packages = _bindings(module)
    nodes = list(ast.walk(module))
    # A string that stands alone as a statement (a docstring) is prose and sets nothing.
    prose = {id(node.value) for node in nodes if isinstance(node, ast.Expr)}
    found = set()
    for node in nodes:
        if id(node) in prose:
            continue
        for what in _node_changes(node, settings, packages, collected):
            first = getattr(node, "lineno", 0)
            last = getattr(node, "end_lineno", None) or first
            line = next((n for n in range(first, last + 1) if n in added), None)
            if line is not None:
                found.add((line, what))
    return sorted(found)


def text_changes(before: bytes | None, after: bytes) -> list[tuple[int, str]]:
    """The `HYPOTHESIS_…` names and `--hypothesis-…` options on lines of a text file that
    `before` does not have (as many times); nothing for a file that is not UTF-8 text."""
    try:
        lines = after.decode("utf-8").splitlines()
        old = [] if before is None else before.decode("utf-8", "replace").splitlines()
    except UnicodeDecodeError:
        return []
    left: dict[str, int] = {}
    for text in old:
        left[text.strip()] = left.get(text.strip(), 0) + 1
    found = []
    for number, text in enumerate(lines, 1):
        if left.get(text.strip()):
            left[text.strip()] -= 1
            continue
        found += [(number, f"names {word}") for word in dict.fromkeys(_words(text))]
    return found


def settings_changes(committed: Committed) -> list[ReachIn]:
    """Every line of the change's commit that can set the property suite's settings."""
    paths = sorted(path for path in committed.changed if not is_bytecode(path))
    modules = [path for path in paths if path.endswith(".py")]
    collected = collection(committed.trusted, folders_above(modules)) if modules else None
    found = []
    for path in paths:
        try:
            after = committed.head.read(path, MAX_MODULE_BYTES)
            before = committed.trusted.read(path, MAX_MODULE_BYTES)
        except InputError:
            continue  # too large or not a file: the reach-in scan names what it cannot read
        if after is None:
            continue
        if collected is not None and path.endswith(".py"):
            changes = python_changes(before, after, collected.collects(path))
        else:
            changes = text_changes(before, after)
        found += [ReachIn(path, line, what) for line, what in changes]
    return sorted(found, key=lambda change: (change.path, change.line, change.what))
