"""The package stays in pieces a reader takes in: no function of 80 lines or more, no
folder of more than 15 modules, and no module's file name repeated in another folder, so
that a name found in a traceback or a diff says which module it is."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "waiver"
MAX_FUNCTION_LINES = 79
MAX_MODULES = 15


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def function_lengths(source: str, module: str) -> dict[str, int]:
    """Each function's lines, from its first decorator to its last line, by `module:name`
    (a nested function or a method by its own name; the longest of a name)."""
    lengths: dict[str, int] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            assert node.end_lineno is not None
            name = f"{module}:{node.name}"
            lengths[name] = max(lengths.get(name, 0), node.end_lineno - first + 1)
    return lengths


def test_no_function_is_80_lines_or_longer() -> None:
    lengths = {}
    for path in modules():
        module = path.relative_to(PACKAGE).as_posix()
        lengths.update(function_lengths(path.read_text(encoding="utf-8"), module))
    longer = {name for name, lines in lengths.items() if lines > MAX_FUNCTION_LINES}
    assert sorted(longer) == []


def test_a_function_is_measured_from_its_decorator_to_its_last_line() -> None:
    body = "".join(f"    x{n} = {n}\n" for n in range(78))
    source = f"@decorated\ndef long():\n{body}\n\nclass C:\n    def short(self):\n        pass\n"
    assert function_lengths(source, "m.py") == {"m.py:long": 80, "m.py:short": 2}


def test_a_folder_holds_at_most_15_modules() -> None:
    held = Counter(path.parent for path in modules() if path.name != "__init__.py")
    larger = {
        folder.relative_to(PACKAGE).as_posix() for folder, n in held.items() if n > MAX_MODULES
    }
    assert sorted(larger) == []


def test_no_module_file_name_is_repeated() -> None:
    names = Counter(path.name for path in modules() if path.name != "__init__.py")
    assert sorted(name for name, count in names.items() if count > 1) == []
