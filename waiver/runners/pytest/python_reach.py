"""Python code under test that newly reaches into pytest: what the lock cannot close.

The replays run the change's code in pytest's own process, so a source module can register
hooks, rewrite a report at exit, load a Hypothesis profile that runs one example, or stand
in for pytest itself, and no file pytest is configured by changes. The gate cannot see
inside the run; it can see the change's source name what only a test harness needs to.

In every Python module the change's commit adds or edits that pytest does not collect as a
test module or load as a conftest (by the trusted revision's `python_files`, `testpaths`
and conftests, `waiver.runners.pytest.harness.collected`; never by a folder's name), each line the
trusted revision's same file does not have that names the runner or its reporting is a
reach-in: `pytest`, `_pytest`, `pluggy`, `hypothesis` (and names that start with them and
`_`), `conftest`, anything with `junit` in it, `PYTEST_`, `HYPOTHESIS_` and `WAIVER_`
names, `sys.modules` read or written, `atexit`, and dynamic imports (`importlib`,
`__import__`, `import_module`, `runpy`) under any alias. So is a line that tells how the
code is being run (the `CI` and `GITHUB_ACTIONS` variables; `PYTEST_…` names, a runner's
name in `sys.argv` and `'pytest' in sys.modules` are runner names already), and one that
replaces what assertions rely on: an attribute of `builtins`, `operator` or `unittest`
assigned, deleted or `setattr` (under any name they are imported by), and `__eq__`,
`__ne__` or `__bool__` defined on a subclass of a builtin type, which a function can
return where a test compares with `==`. The lists are the constants below, and
docs/harness.md says them in words. Names are read as Python's tokenizer reads them, and
strings as the syntax tree holds their values, so a comment or a docstring that mentions
pytest is no reach-in, and a line counts as changed by its tokens, not its layout. Each
one blocks the run until a reviewer has read it.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import unicodedata
from collections.abc import Iterator, Sequence

from waiver.errors import InputError
from waiver.read.harness.named import MAX_MODULE_BYTES
from waiver.read.harness.reach_in import ReachIn, Reading, new_names
from waiver.read.trusted.protected import Committed
from waiver.runners.pytest.harness.collected import collection, folders_above

# Modules of the runner and its reporting: the name, or a name that starts with it and `_`.
RUNNER_STEMS = ("pytest", "_pytest", "pluggy", "hypothesis", "_hypothesis", "conftest")
# Environment variables that carry the report's path or the runner's options and settings.
RUNNER_VARIABLES = ("WAIVER_", "PYTEST_", "HYPOTHESIS_")
DYNAMIC_IMPORTS = frozenset({"importlib", "__import__", "import_module", "runpy"})
EXIT_HOOKS = "atexit"
# How code tells that it runs under test or in CI, besides naming the runner: the
# environment variables it reads by these names.
TEST_MODE_VARIABLES = frozenset({"CI", "GITHUB_ACTIONS"})
# What assertions rely on: modules whose attributes code under test must not replace (the
# builtins that `assert` and unittest use, the operators pytest's rewritten assertions
# call, unittest's own), and the methods by which a subclass of a builtin type answers
# `==` and truth tests.
ASSERTION_MODULES = frozenset({"builtins", "__builtins__", "operator", "unittest"})
BUILTIN_TYPES = frozenset(
    {"int", "float", "complex", "str", "bytes", "bytearray", "list", "tuple", "dict", "set"}
    | {"frozenset"}
)
COMPARISON_METHODS = frozenset({"__eq__", "__ne__", "__bool__"})
PATCHERS = frozenset({"setattr", "delattr"})
SILENT = frozenset(
    {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    | {tokenize.ENCODING, tokenize.ENDMARKER}
)
DOTTED_WORD = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
WORD_SHOWN = 60


def runner_name(name: str) -> str | None:
    """What naming the identifier `name` does, when it names the runner or its reporting."""
    if name == EXIT_HOOKS:
        return "registers exit hooks (atexit)"
    if name in DYNAMIC_IMPORTS:
        return f"imports by name ({name})"
    stems = any(name == stem or name.startswith(stem + "_") for stem in RUNNER_STEMS)
    if stems or name.startswith(RUNNER_VARIABLES) or "junit" in name.lower():
        return f"names {name}"
    return None


def _string_names(value: str) -> Iterator[str]:
    if value in TEST_MODE_VARIABLES:
        yield f"reads how it is run ({value})"
    for match in DOTTED_WORD.finditer(value):
        word = match[0]
        if any(runner_name(part) for part in word.split(".")):
            yield f"names {word[:WORD_SHOWN]}"


def _identifier(token: tokenize.TokenInfo) -> str:
    text = token.string
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def _token_reading(source: bytes, reading: Reading) -> None:
    lines: dict[int, list[str]] = {}
    for token in tokenize.tokenize(io.BytesIO(source).readline):
        if token.type in SILENT:
            continue
        line = token.start[0]
        text = _identifier(token) if token.type == tokenize.NAME else token.string
        lines.setdefault(line, []).append(text)
        what = runner_name(text) if token.type == tokenize.NAME else None
        if what is not None:
            reading.names.append((line, line, what))
    reading.lines = {line: tuple(texts) for line, texts in lines.items()}


def _span(node: ast.AST) -> tuple[int, int]:
    first = getattr(node, "lineno", 0)
    return first, getattr(node, "end_lineno", None) or first


def _tree_reading(module: ast.Module, reading: Reading) -> None:
    """Strings by their value (escapes and pieces side by side joined), but a statement
    that is a string alone (a docstring); and `sys.modules` under any name `sys` has."""
    nodes = list(ast.walk(module))
    prose = {id(node.value) for node in nodes if isinstance(node, ast.Expr)}
    systems = {"sys"} | {
        alias.asname or alias.name
        for node in nodes
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name == "sys"
    }
    relied = _bound_names(nodes, ASSERTION_MODULES)
    for node in nodes:
        whats = dict.fromkeys(_node_names(node, prose, systems))
        reading.names += [(*_span(node), what) for what in whats]
        reading.names += _replaces(node, relied)


def _bound_names(nodes: Sequence[ast.AST], modules: frozenset[str]) -> set[str]:
    """The names by which a module refers to `modules`, and to what it imports from them."""
    found = set(modules)
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {
                alias.asname or alias.name.partition(".")[0]
                for alias in node.names
                if alias.name.partition(".")[0] in modules
            }
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            top = node.module.partition(".")[0]
            found |= {alias.asname or alias.name for alias in node.names if top in modules}
    return found


def _root(node: ast.AST) -> str | None:
    """`builtins` of `builtins.len` or `__builtins__["len"]`: the name an attribute or
    item chain starts from; None for a bare name or anything else."""
    if not isinstance(node, ast.Attribute | ast.Subscript):
        return None
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _replaces(node: ast.AST, relied: set[str]) -> list[tuple[int, int, str]]:
    """What a statement replaces of what assertions rely on, with its lines: an attribute
    or item of such a module assigned or deleted (a bare name rebound replaces nothing),
    an attribute set on one (`setattr(builtins, …)`), a comparison method of a subclass of
    a builtin type."""
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign | ast.Delete):
        targets = [t for t in node.targets if _root(t) in relied]
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target] if _root(node.target) in relied else []
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
        first = node.args[0]
        named = isinstance(first, ast.Name) and first.id in relied
        if node.func.id in PATCHERS and (named or _root(first) in relied):
            targets = [node]
    elif isinstance(node, ast.ClassDef):
        bases = [base.id for base in node.bases if isinstance(base, ast.Name)]
        builtin = next((base for base in bases if base in BUILTIN_TYPES), None)
        return [
            (item.lineno, item.lineno, f"redefines {item.name} of a subclass of {builtin}")
            for item in node.body
            if builtin is not None
            and isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            and item.name in COMPARISON_METHODS
        ]
    return [
        (*_span(node), f"replaces what assertions rely on ({ast.unparse(t)[:WORD_SHOWN]})")
        for t in targets
    ]


def _node_names(node: ast.AST, prose: set[int], systems: set[str]) -> list[str]:
    if isinstance(node, ast.Constant) and id(node) not in prose:
        value = node.value
        if isinstance(value, bytes):
            value = value.decode("latin-1")
        return list(_string_names(value)) if isinstance(value, str) else []
    if isinstance(node, ast.Attribute) and node.attr == "modules":
        sys_modules = isinstance(node.value, ast.Name) and node.value.id in systems
        return ["uses sys.modules"] if sys_modules else []
    if isinstance(node, ast.ImportFrom) and node.module == "sys" and node.level == 0:
        return ["uses sys.modules"] if any(a.name == "modules" for a in node.names) else []
    return []


def read_module(source: bytes) -> Reading | None:
    """The scan's reading of a module; None when Python cannot import it either."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    reading = Reading()
    try:
        _token_reading(source, reading)
    except (tokenize.TokenError, SyntaxError, ValueError, LookupError):
        reading.names = [(1, 1, "cannot be read as tokens")]
        return reading
    _tree_reading(module, reading)
    return reading


def reaches(before: bytes | None, after: bytes) -> list[tuple[int, str]]:
    """What the lines `after` adds or changes against `before` name of the runner, each
    with its line, in order."""
    reading = read_module(after)
    if reading is None:
        return []
    return new_names(None if before is None else read_module(before), reading)


def new_reach_ins(committed: Committed) -> list[ReachIn]:
    """The reach-ins the change's commit adds to the modules pytest does not collect."""
    paths = sorted(path for path in committed.changed if path.endswith(".py"))
    if not paths:
        return []
    collected = collection(committed.trusted, folders_above(paths))
    found = []
    for path in paths:
        if collected.is_test_code(path):
            continue
        try:
            after = committed.head.read(path, MAX_MODULE_BYTES)
            before = committed.trusted.read(path, MAX_MODULE_BYTES)
        except InputError as error:  # too large, or no regular file: unread is not harmless
            found.append(ReachIn(path, 0, f"cannot be read ({error.problem})"))
            continue
        if after is not None:
            found += [ReachIn(path, line, what) for line, what in reaches(before, after)]
    return sorted(found, key=lambda reach: (reach.path, reach.line, reach.what))
