"""Code under test that newly reaches into the test runner: what the lock cannot close.

The replays run the change's code in pytest's own process, so a source module can register
hooks, rewrite a report at exit, or stand in for pytest itself, and no file pytest is
configured by changes. The gate cannot see inside the run; it can see the change's source
start to do what only a test harness needs to: import `pytest`, `_pytest` or `pluggy`,
register `atexit` hooks, name the variables that carry the report path or pytest's options
(`WAIVER_JUNIT`, `PYTEST_ADDOPTS`, …), or write `sys.modules`. Each such construct that a
non-test module of the change's commit has and the trusted revision's same file does not is
listed, and blocks the run until a reviewer has read it.

Test code (conftests, test modules, anything under a `tests`/`test`/`testing` folder) is
not looked at: it uses pytest by nature, and the harness lock covers what configures it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from waiver.errors import InputError
from waiver.read.harness.resolve import MAX_MODULE_BYTES
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import FileTree

TEST_FOLDERS = frozenset({"tests", "test", "testing"})
# Test code by its file name: pytest's default test modules (resolve.TEST_MODULES) and
# conftest.py.
TEST_CODE_FILES = ("test_*.py", "*_test.py", "conftest.py")
RUNNER_MODULES = frozenset({"pytest", "_pytest", "pluggy"})
# Environment variables that carry the report's path or pytest's own options and plugins.
RUNNER_VARIABLES = ("WAIVER_", "PYTEST_")
SHOWN = 20  # reach-ins named in the blocker's text; all of them are in the report


@dataclass(frozen=True)
class ReachIn:
    path: str
    line: int
    what: str


def is_test_code(path: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    return bool(TEST_FOLDERS & set(parts[:-1])) or any(
        fnmatchcase(name, p) for p in TEST_CODE_FILES
    )


def _imported(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        yield node.module
    elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
        function = node.func
        name = function.id if isinstance(function, ast.Name) else getattr(function, "attr", "")
        if name in ("__import__", "import_module") and isinstance(node.args[0].value, str):
            yield node.args[0].value


def _writes_sys_modules(node: ast.AST) -> bool:
    target = None
    if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
        target = node.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        target = node.func.value if node.func.attr in ("update", "setdefault") else None
    return isinstance(target, ast.Attribute) and target.attr == "modules"


def _node_constructs(node: ast.AST) -> list[str]:
    imported = list(_imported(node))
    whats = [f"imports {name}" for name in imported if _runner_module(name)]
    if any(name.partition(".")[0] == "atexit" for name in imported):
        whats.append("registers exit hooks (atexit)")
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(value, str) and value.startswith(RUNNER_VARIABLES) and value.isupper():
        whats.append(f"names {value[:60]}")
    if _writes_sys_modules(node):
        whats.append("writes sys.modules")
    return whats


def constructs(source: bytes) -> dict[str, int]:
    """What a module does that reaches into the test runner, each with its first line."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}  # Python cannot import it either
    found: dict[str, int] = {}
    for node in ast.walk(module):
        line = getattr(node, "lineno", 0)
        for what in _node_constructs(node):
            found[what] = min(found.get(what, line), line)
    return found


def _runner_module(name: str) -> bool:
    return name.partition(".")[0] in RUNNER_MODULES


def _constructs_in(tree: FileTree, path: str) -> dict[str, int]:
    try:
        data = tree.read(path, MAX_MODULE_BYTES)
    except InputError as error:  # too large, or no regular file: unread is not harmless
        return {f"cannot be read ({error.problem})": 0}
    return {} if data is None else constructs(data)


def new_reach_ins(committed: Committed) -> list[ReachIn]:
    """The reach-ins the change's commit adds to its non-test modules."""
    found = []
    for path in sorted(committed.changed):
        if not path.endswith(".py") or is_test_code(path):
            continue
        before = _constructs_in(committed.trusted, path)
        for what, line in _constructs_in(committed.head, path).items():
            if what not in before:
                found.append(ReachIn(path, line, what))
    return sorted(found, key=lambda reach: (reach.path, reach.line, reach.what))


def reach_ins_json(reach_ins: Sequence[ReachIn]) -> list[dict[str, object]]:
    return [{"path": r.path, "line": r.line, "what": r.what} for r in reach_ins]


def reach_in_blocker(reach_ins: list[ReachIn]) -> str:
    """The run blocker that names them, in plain words."""
    named = "; ".join(f"{r.path} line {r.line} {r.what}" for r in reach_ins[:SHOWN])
    more = f"; and {len(reach_ins) - SHOWN} more" if len(reach_ins) > SHOWN else ""
    return (
        "the change's source code newly reaches into the test runner, which can grade its "
        "own replays from inside them and which the lock cannot see: a reviewer must read "
        f"it ({named}{more})"
    )
