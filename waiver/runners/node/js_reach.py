"""JavaScript and TypeScript code under test that newly reaches into the test runner.

jest, vitest and mocha run the code under test in their own process, as pytest does, so a
source module can grade the run from inside it. Each line that a non-test module of the
change's commit adds or edits (compared by its tokens, so layout and comments are no edit,
as for Python: `waiver.runners.pytest.python_reach`) is a reach-in, named with its file and line,
that blocks the run until a reviewer has read it, when it:

- names the runner: loads a runner, its assertion library or its reporter
  (RUNNER_PACKAGES), names one in a string or a pattern (`process.argv` searched for
  `vitest`), names the variables that carry a report's path or a runner's options
  (RUNNER_VARIABLES), registers exit hooks, rewrites the module loader, or reaches the
  runner's globals (`globalThis.expect`, `expect.extend`, `__vitest_worker__`);
- tells whether it runs under test (TEST_MODE_VARIABLES, TEST_MODE_MEMBERS): reads
  `NODE_ENV`, `CI` and the like from `process.env`, reads `import.meta.env` (vitest sets
  its `MODE` to `test`) or `require.main`, or asks `typeof jest`;
- replaces what assertions rely on: assigns or deletes a member of a builtin object or of
  the global object (`Object.is`, `Array.prototype.includes`, `JSON.stringify`,
  `Error.captureStackTrace`), or defines one (DEFINERS: `Object.defineProperty` on a
  builtin, a prototype of one, or the global object).

A library that legitimately reads `NODE_ENV` gets one approval of the head for the line
that reads it; a line it leaves alone is no reach-in.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from waiver.errors import InputError
from waiver.read.harness.reach_in import ReachIn, Reading, new_names
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import FileTree
from waiver.runners.node.node_harness import CODE_SUFFIXES
from waiver.runners.node.syntax import literal, loads, parse, text, walk

MAX_SOURCE_BYTES = 16 << 20
# The runners, their assertion libraries and their reporters, by package name.
RUNNER_PACKAGES = frozenset(
    {"jest", "expect", "jest-junit", "jest-circus", "jest-environment-node", "mocha"}
    | {"mocha-junit-reporter", "chai", "vitest", "vite"}
)
RUNNER_SCOPES = ("@jest/", "@vitest/")
# A runner's name as a word of a string or a pattern.
RUNNER_WORDS = re.compile(r"(?<![\w-])(jest|vitest|mocha|jasmine)(?![\w-])", re.IGNORECASE)
# Environment variables that carry a report's path or a runner's options.
RUNNER_VARIABLES = ("WAIVER_", "JEST_", "MOCHA_", "VITEST")
EXIT_EVENTS = frozenset({"exit", "beforeExit"})
LISTENERS = frozenset({"process.on", "process.once", "process.addListener"})
LOADER_PARTS = (
    "require.cache",
    "Module._load",
    "Module.prototype.require",
    "Module._resolveFilename",
)
GLOBAL_OBJECTS = frozenset({"global", "globalThis", "window", "self"})
RUNNER_GLOBALS = frozenset({"expect", "it", "test", "describe", "jest", "vi", "chai"})
# Runner globals whose members code under test has no business with (`expect.extend`).
RUNNER_OBJECTS = frozenset({"expect", "jest", "vi", "chai"})
WORKER_GLOBALS = "__vitest"
# How code tells that it runs under test or in CI: the variables it reads by these names
# (`process.env.NODE_ENV`, a destructured `{ CI }`), and what it reads these members of.
TEST_MODE_VARIABLES = frozenset(
    {"NODE_ENV", "BABEL_ENV", "CI", "GITHUB_ACTIONS", "npm_lifecycle_event"}
    | {"npm_lifecycle_script"}
)
TEST_MODE_MEMBERS = ("import.meta.env", "import.meta.vitest", "require.main")
# What assertions rely on: the builtins the assertion libraries call (`Object.is` for
# `toBe`, `JSON.stringify` and the prototypes for their messages and deep equality).
BUILTIN_OBJECTS = frozenset(
    {"Object", "Array", "String", "Number", "Boolean", "BigInt", "Symbol", "Function"}
    | {"JSON", "Math", "Reflect", "Error", "Map", "Set", "WeakMap", "WeakSet", "Date"}
    | {"RegExp", "Promise", "Buffer", "Intl", "ArrayBuffer", "DataView", "TypeError"}
)
DEFINERS = frozenset(
    {"Object.defineProperty", "Object.defineProperties", "Reflect.defineProperty"}
    | {"Object.setPrototypeOf", "Reflect.setPrototypeOf", "Object.assign", "Reflect.set"}
)
ASSIGNMENTS = frozenset({"assignment_expression", "augmented_assignment_expression"})
NAMES = frozenset({"property_identifier", "shorthand_property_identifier_pattern"})
TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing", "__mocks__"})
TEST_NAMES = (".test.", ".spec.")
NOT_SOURCE = frozenset({"node_modules"})
SHOWN = 60

Found = tuple[int, int, str]  # first line, last line, what


def is_source(path: str) -> bool:
    """Whether `path` is a JavaScript or TypeScript module of the code under test: not in
    a test folder or an install, not a test by its name."""
    parts = path.split("/")
    name = parts[-1]
    if not name.endswith(CODE_SUFFIXES) or (TEST_FOLDERS | NOT_SOURCE) & set(parts[:-1]):
        return False
    return not any(mark in name for mark in TEST_NAMES)


def _package(name: str) -> str:
    if name.startswith("@"):
        return "/".join(name.split("/")[:2])
    return name.split("/")[0]


def _span(node: Node, what: str) -> Found:
    return node.start_point[0] + 1, node.end_point[0] + 1, what


def _names(node: Node) -> list[str]:
    """`["globalThis", "Object", "is"]` of `globalThis.Object.is`: the names of a chain of
    members and items, from the object it starts from; [] when it starts from no name."""
    names: list[str] = []
    while node.type in ("member_expression", "subscript_expression"):
        member = node.child_by_field_name("property") or node.child_by_field_name("index")
        names.insert(0, "" if member is None else literal(member) or text(member))
        inner = node.child_by_field_name("object")
        if inner is None:
            return []
        node = inner
    return [text(node), *names] if node.type == "identifier" else []


def _builtin(node: Node) -> bool:
    """A member of a builtin object (`Object.is`, `Array.prototype.includes`), also when
    reached through the global object (`globalThis.JSON.stringify`)."""
    names = _names(node)
    if names[:1] and names[0] in GLOBAL_OBJECTS:
        names = names[1:]
    return len(names) > 1 and names[0] in BUILTIN_OBJECTS


def _shown(node: Node) -> str:
    return " ".join(text(node).split())[:SHOWN]


def _words(node: Node, value: str) -> Iterator[Found]:
    """What a name, a string or a pattern says: a runner variable, a test-mode variable,
    a runner's name, a runner's worker global."""
    if value.startswith(RUNNER_VARIABLES) and value.isupper():
        yield _span(node, f"names {value[:SHOWN]}")
    if value in TEST_MODE_VARIABLES:
        yield _span(node, f"reads how it is run ({value})")
    if value.lower().startswith(WORKER_GLOBALS):
        yield _span(node, f"reaches the runner's globals ({value[:SHOWN]})")
    elif node.type != "property_identifier":
        for word in dict.fromkeys(match[1].lower() for match in RUNNER_WORDS.finditer(value)):
            yield _span(node, f"names {word}")


def _call(node: Node) -> Iterator[Found]:
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    if function is None or arguments is None:
        return
    first = next((a for a in arguments.named_children if a.type != "comment"), None)
    called = text(function)
    if called in LISTENERS and first is not None and literal(first) in EXIT_EVENTS:
        yield (
            node.start_point[0] + 1,
            first.end_point[0] + 1,
            (f"registers exit hooks ({called}('{literal(first)}'))"),
        )
    defined = first is not None and (
        _builtin(first) or text(first) in BUILTIN_OBJECTS | GLOBAL_OBJECTS
    )
    if called in DEFINERS and first is not None and defined:
        yield (
            node.start_point[0] + 1,
            first.end_point[0] + 1,
            (f"replaces what assertions rely on ({called}({_shown(first)}, …))"),
        )


def _member(node: Node) -> Iterator[Found]:
    written = text(node)
    parent = node.parent
    outermost = parent is None or parent.type != "member_expression"
    if any(written.startswith(part) for part in LOADER_PARTS):
        yield _span(node, f"reaches the module loader ({written[:SHOWN]})")
    if outermost and written.startswith(TEST_MODE_MEMBERS):
        yield _span(node, f"reads how it is run ({_shown(node)})")
    target = node.child_by_field_name("object")
    member = node.child_by_field_name("property")
    if target is None or member is None:
        return
    if text(target) in GLOBAL_OBJECTS and text(member) in RUNNER_GLOBALS:
        yield _span(node, f"reaches the runner's globals ({written[:SHOWN]})")
    if target.type == "identifier" and text(target) in RUNNER_OBJECTS:
        yield _span(node, f"reaches the runner's globals ({written[:SHOWN]})")


def _replaced(node: Node) -> Iterator[Found]:
    """An assignment to, or a `delete` of, a member of a builtin or of the global object."""
    if node.type in ASSIGNMENTS:
        target = node.child_by_field_name("left")
    elif node.type == "unary_expression" and text(node).startswith("delete"):
        target = node.child_by_field_name("argument")
    else:
        return
    if target is not None and _builtin(target):
        yield _span(target, f"replaces what assertions rely on ({_shown(target)})")


def _typeof(node: Node) -> Iterator[Found]:
    argument = node.child_by_field_name("argument")
    if (
        node.type == "unary_expression"
        and text(node).startswith("typeof")
        and argument is not None
        and text(argument) in RUNNER_GLOBALS
    ):
        yield _span(node, f"tells whether it runs under test (typeof {text(argument)})")


def reading(data: bytes, path: str) -> Reading:
    """A module as the scan reads it: each line's tokens (the tree's leaves, comments left
    out), and what each span of lines does that reaches into the runner."""
    tree = parse(data, path)
    found = Reading()
    tokens: dict[int, list[str]] = {}
    for node in walk(tree):
        if node.type == "comment":
            continue
        if node.child_count == 0:
            tokens.setdefault(node.start_point[0] + 1, []).append(text(node))
        value = text(node) if node.type in NAMES else literal(node)
        if node.type == "regex":
            pattern = node.child_by_field_name("pattern")
            value = None if pattern is None else text(pattern)
        if value is not None:
            found.names += _words(node, value)
        if node.type == "call_expression":
            found.names += _call(node)
        elif node.type == "member_expression":
            found.names += _member(node)
        found.names += _replaced(node)
        found.names += _typeof(node)
    for name, line in loads(tree):
        if name is not None and (
            _package(name) in RUNNER_PACKAGES or name.startswith(RUNNER_SCOPES)
        ):
            found.names.append((line, line, f"imports {name[:SHOWN]}"))
    found.lines = {line: tuple(words) for line, words in tokens.items()}
    return found


def _read(tree: FileTree, path: str) -> Reading | str | None:
    """The module's reading; None when it is absent; why, when it cannot be read."""
    try:
        data = tree.read(path, MAX_SOURCE_BYTES)
        return None if data is None else reading(data, path)
    except (
        InputError
    ) as error:  # too large, no regular file, too many nodes: unread is not harmless
        return f"cannot be read ({error.problem})"


def new_script_reach_ins(committed: Committed) -> list[ReachIn]:
    """The reach-ins the change's commit adds to its JavaScript and TypeScript sources."""
    found = []
    for path in sorted(committed.changed):
        if not is_source(path):
            continue
        after = _read(committed.head, path)
        if isinstance(after, str):
            found.append(ReachIn(path, 0, after))
            continue
        before = _read(committed.trusted, path)
        if after is not None:
            old = before if isinstance(before, Reading) else None
            found += [ReachIn(path, line, what) for line, what in new_names(old, after)]
    return sorted(found, key=lambda reach: (reach.path, reach.line, reach.what))
