"""The pipeline's layers stay apart: reading never imports writing, the gate or the commands,
deciding imports neither reading nor writing, and nothing below the commands imports one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "waiver"
# What each layer may not import, by the first parts of the module name.
FORBIDDEN = {
    "read": ("waiver.write", "waiver.commands", "waiver.gate", "waiver.cli", "waiver.github"),
    "decide.py": ("waiver.read", "waiver.write", "waiver.commands", "waiver.gate"),
    "model.py": ("waiver.read", "waiver.write", "waiver.commands", "waiver.gate"),
    "write": ("waiver.commands", "waiver.cli"),
    "gate": ("waiver.commands", "waiver.cli"),
    "init": ("waiver.commands", "waiver.cli"),
    "github": ("waiver.commands", "waiver.cli"),
    "diagnose": ("waiver.commands", "waiver.cli"),
}


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


def test_the_check_sees_an_import_it_forbids(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from waiver.write.summary import render_summary\nimport waiver.gate\n")
    assert imported(module) == {"waiver.write.summary", "waiver.gate"}
