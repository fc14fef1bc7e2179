"""The pipeline's layers stay apart: reading never imports writing, the gate or the commands,
deciding imports neither reading nor writing, and nothing below the commands imports one;
and the top of the package holds only the entry points and the shared types."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "waiver"
# What each layer may not import, by the first parts of the module name.
FORBIDDEN = {
    "read": ("waiver.write", "waiver.commands", "waiver.gate", "waiver.cli", "waiver.github"),
    "decide": ("waiver.read", "waiver.write", "waiver.commands", "waiver.gate", "waiver.github"),
    "model.py": (
        "waiver.read",
        "waiver.write",
        "waiver.commands",
        "waiver.gate",
        "waiver.decide",
        "waiver.github",
    ),
    "write": ("waiver.commands", "waiver.cli"),
    "gate": ("waiver.commands", "waiver.cli"),
    "init": ("waiver.commands", "waiver.cli"),
    "github": ("waiver.commands", "waiver.cli"),
    "diagnose": ("waiver.commands", "waiver.cli"),
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


def modules(place: str) -> list[Path]:
    path = PACKAGE / place
    return sorted(path.rglob("*.py")) if path.is_dir() else [path]


@pytest.mark.parametrize("place", FORBIDDEN)
def test_a_layer_imports_nothing_above_it(place: str) -> None:
    found = [
        (str(module.relative_to(PACKAGE)), name)
        for module in modules(place)
        for name in sorted(imported(module))
        if name.startswith(FORBIDDEN[place])
    ]
    assert found == []


def test_the_top_of_the_package_holds_only_the_entry_points_and_the_shared_types() -> None:
    assert {path.name for path in PACKAGE.glob("*.py")} <= TOP


def test_the_check_sees_an_import_it_forbids(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from waiver.write.summary.summary import render_summary\nimport waiver.gate\n"
    )
    assert imported(module) == {"waiver.write.summary.summary", "waiver.gate"}
