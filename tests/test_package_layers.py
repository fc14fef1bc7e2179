"""The pipeline's layers stay apart: reading never imports writing, the gate, the commands,
the runners, init, the replays or the model step; deciding imports neither reading nor
writing; a runner's package imports nothing above reading, deciding, writing and init's
shared parts, none of which imports a runner's package; nothing below the commands imports
one; the top of the package holds only the entry points and the shared types; and
no import of the package runs in a circle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "waiver"
# What each layer may not import, by the first parts of the module name.
FORBIDDEN = {
    "read": (
        "waiver.write",
        "waiver.commands",
        "waiver.gate",
        "waiver.cli",
        "waiver.github",
        "waiver.runners",
        "waiver.init",
        "waiver.replay",
        "waiver.diagnose",
    ),
    "decide": (
        "waiver.read",
        "waiver.write",
        "waiver.commands",
        "waiver.gate",
        "waiver.github",
        "waiver.runners",
        "waiver.init",
        "waiver.replay",
        "waiver.diagnose",
    ),
    "model.py": (
        "waiver.read",
        "waiver.write",
        "waiver.commands",
        "waiver.gate",
        "waiver.decide",
        "waiver.github",
        "waiver.runners",
    ),
    "runners": (
        "waiver.gate",
        "waiver.commands",
        "waiver.cli",
        "waiver.github",
        "waiver.diagnose",
        "waiver.replay",
    ),
    "write": ("waiver.commands", "waiver.cli", "waiver.runners"),
    "gate": ("waiver.commands", "waiver.cli"),
    "init": ("waiver.commands", "waiver.cli", "waiver.runners"),
    "github": ("waiver.commands", "waiver.cli", "waiver.runners"),
    "diagnose": ("waiver.commands", "waiver.cli", "waiver.runners"),
    "replay": ("waiver.commands", "waiver.cli", "waiver.gate"),
}
# The top of the package holds the entry points and what every layer shares; the rest of
# the code sits in a package of its layer.
TOP = {"__init__.py", "__main__.py", "cli.py", "errors.py", "model.py"}


def imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def modules(package: Path, place: str) -> list[Path]:
    path = package / place
    if not path.exists():
        return []
    return sorted(path.rglob("*.py")) if path.is_dir() else [path]


def forbidden_imports(package: Path, place: str) -> list[tuple[str, str]]:
    """Each (module, name) by which a module of `place` imports what its layer may not."""
    return [
        (str(module.relative_to(package)), name)
        for module in modules(package, place)
        for name in sorted(imported(module))
        if name.startswith(FORBIDDEN[place])
    ]


@pytest.mark.parametrize("place", FORBIDDEN)
def test_a_layer_imports_nothing_above_it(place: str) -> None:
    assert forbidden_imports(PACKAGE, place) == []


def test_the_top_of_the_package_holds_only_the_entry_points_and_the_shared_types() -> None:
    assert {path.name for path in PACKAGE.glob("*.py")} <= TOP


def test_the_check_sees_an_import_it_forbids(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from waiver.write.summary.summary import render_summary\nimport waiver.gate\n"
    )
    assert imported(module) == {"waiver.write.summary.summary", "waiver.gate"}


def test_the_check_sees_a_runner_that_imports_a_command_and_a_reader_that_imports_init(
    tmp_path: Path,
) -> None:
    for place in ("runners", "read", "decide"):
        (tmp_path / place).mkdir()
    (tmp_path / "runners" / "base.py").write_text("from waiver.commands.support import now\n")
    (tmp_path / "read" / "x.py").write_text("from waiver.init.plan import plan\n")
    (tmp_path / "decide" / "policy.py").write_text("from waiver.runners.jest import JEST\n")
    assert forbidden_imports(tmp_path, "runners") == [
        ("runners/base.py", "waiver.commands.support")
    ]
    assert forbidden_imports(tmp_path, "read") == [("read/x.py", "waiver.init.plan")]
    assert forbidden_imports(tmp_path, "decide") == [("decide/policy.py", "waiver.runners.jest")]


def import_graph(package: Path) -> dict[str, set[str]]:
    """Each module of the package, by dotted name, with the package's modules it imports
    (a name imported from a package is its module where it is one)."""
    names = {
        ".".join(path.relative_to(package.parent).with_suffix("").parts).removesuffix(
            ".__init__"
        ): path
        for path in package.rglob("*.py")
    }
    graph: dict[str, set[str]] = {name: set() for name in names}
    for name, path in names.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                graph[name] |= {alias.name for alias in node.names if alias.name in names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in names:
                submodules = {f"{node.module}.{alias.name}" for alias in node.names}
                graph[name] |= (submodules & names.keys()) or {node.module}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of `graph`: its strongly connected parts of more than one module,
    or of one that imports itself (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        for other in sorted(graph[name]):
            if other not in index:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in stack:
                low[name] = min(low[name], index[other])
        if low[name] == index[name]:
            part = []
            while not part or part[-1] != name:
                part.append(stack.pop())
            if len(part) > 1 or name in graph[name]:
                found.append(sorted(part))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return found


def test_no_import_of_the_package_runs_in_a_circle() -> None:
    assert circles(import_graph(PACKAGE)) == []


def test_the_circle_check_sees_a_circle(tmp_path: Path) -> None:
    package = tmp_path / "waiver"
    (package / "read").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "read" / "__init__.py").write_text("")
    (package / "read" / "a.py").write_text("from waiver.read import b\n")
    (package / "read" / "b.py").write_text("import waiver.read.c\n")
    (package / "read" / "c.py").write_text("from waiver.read.a import x\n")
    (package / "model.py").write_text("from waiver.read.b import y\n")
    assert circles(import_graph(package)) == [["waiver.read.a", "waiver.read.b", "waiver.read.c"]]
