"""JavaScript and TypeScript code under test that newly reaches into the test runner.

jest, vitest and mocha run the code under test in their own process, as pytest does, so a
source module can grade the run from inside it: load the runner's own modules (`expect`,
`jest-junit`, `chai`) to change them, rewrite the report when the process exits, read the
variables that carry the report's path, or rewrite the module loader or the runner's
globals. Each such construct that a non-test module of the change's commit has and the
trusted revision's same file does not is listed, as for Python
(`waiver.read.harness.reach_in`), and blocks the run until a reviewer has read it.
"""

from __future__ import annotations

from waiver.errors import InputError
from waiver.read.harness.reach_in import ReachIn
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import FileTree
from waiver.runners.node_harness import CODE_SUFFIXES
from waiver.runners.syntax import literal, loads, parse, text, walk

MAX_SOURCE_BYTES = 16 << 20
# The runners, their assertion libraries and their reporters, by package name.
RUNNER_PACKAGES = frozenset(
    {"jest", "expect", "jest-junit", "jest-circus", "jest-environment-node", "mocha"}
    | {"mocha-junit-reporter", "chai", "vitest", "vite"}
)
RUNNER_SCOPES = ("@jest/", "@vitest/")
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
GLOBAL_OBJECTS = frozenset({"global", "globalThis"})
RUNNER_GLOBALS = frozenset({"expect", "it", "test", "describe", "jest", "vi", "chai"})
TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing", "__mocks__"})
TEST_NAMES = (".test.", ".spec.")
NOT_SOURCE = frozenset({"node_modules"})


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


def constructs(data: bytes, path: str) -> dict[str, int]:
    """What a module does that reaches into the test runner, each with its first line."""
    found: dict[str, int] = {}

    def note(what: str, line: int) -> None:
        found[what] = min(found.get(what, line), line)

    tree = parse(data, path)
    for name, line in loads(tree):
        if name is not None and (
            _package(name) in RUNNER_PACKAGES or name.startswith(RUNNER_SCOPES)
        ):
            note(f"imports {name[:60]}", line)
    for node in walk(tree):
        line = node.start_point[0] + 1
        value = literal(node)
        if node.type == "property_identifier":
            value = text(node)
        if value is not None and value.startswith(RUNNER_VARIABLES) and value.isupper():
            note(f"names {value[:60]}", line)
        if node.type == "call_expression":
            function = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            first = arguments.named_children[0] if arguments and arguments.named_children else None
            event = None if first is None else literal(first)
            if function is not None and text(function) in LISTENERS and event in EXIT_EVENTS:
                note(f"registers exit hooks ({text(function)}('{event}'))", line)
        elif node.type == "member_expression":
            written = text(node)
            if any(written.startswith(part) for part in LOADER_PARTS):
                note(f"reaches the module loader ({written[:60]})", line)
            target = node.child_by_field_name("object")
            member = node.child_by_field_name("property")
            if (
                target is not None
                and member is not None
                and text(target) in GLOBAL_OBJECTS
                and text(member) in RUNNER_GLOBALS
            ):
                note(f"reaches the runner's globals ({written[:60]})", line)
    return found


def _constructs_in(tree: FileTree, path: str) -> dict[str, int]:
    try:
        data = tree.read(path, MAX_SOURCE_BYTES)
        return {} if data is None else constructs(data, path)
    except (
        InputError
    ) as error:  # too large, no regular file, too many nodes: unread is not harmless
        return {f"cannot be read ({error.problem})": 0}


def new_script_reach_ins(committed: Committed) -> list[ReachIn]:
    """The reach-ins the change's commit adds to its JavaScript and TypeScript sources."""
    found = []
    for path in sorted(committed.changed):
        if not is_source(path):
            continue
        before = _constructs_in(committed.trusted, path)
        for what, line in _constructs_in(committed.head, path).items():
            if what not in before:
                found.append(ReachIn(path, line, what))
    return sorted(found, key=lambda reach: (reach.path, reach.line, reach.what))
