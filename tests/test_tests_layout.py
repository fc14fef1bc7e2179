"""tests/ mirrors the package: every folder of modules has its folder of tests, and every
folder of tests but the suites organised by kind of input is a folder of modules; a test
module's name is unique across tests/, which has no `__init__.py`."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "waiver"
TESTS = ROOT / "tests"
# Suites organised by kind of input, what they share, and what they compare with.
SUITES = {"hostile", "corpus", "container", "helpers", "golden"}
# replay/ is tested through `waiver replay` (tests/commands/replays/test_replay.py).
UNTESTED_HERE = {"replay"}


def holds_code(path: Path) -> bool:
    """A module, or a package's `__init__.py` with more in it than its docstring (a runner's
    package can be its `__init__.py` alone)."""
    if path.name != "__init__.py":
        return True
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return len(body) > 1 or (bool(body) and not isinstance(body[0], ast.Expr))


def module_folders() -> set[str]:
    return {
        path.parent.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if path.parent != PACKAGE and holds_code(path)
    }


def test_folders() -> set[str]:
    return {
        path.parent.relative_to(TESTS).as_posix()
        for path in TESTS.rglob("test_*.py")
        if path.parent != TESTS and path.relative_to(TESTS).parts[0] not in SUITES
    }


test_folders.__test__ = False  # type: ignore[attr-defined]


def test_every_folder_of_modules_has_its_folder_of_tests() -> None:
    assert sorted(module_folders() - test_folders() - UNTESTED_HERE) == []
    assert sorted(UNTESTED_HERE & test_folders()) == []


def test_every_folder_of_tests_is_a_folder_of_modules() -> None:
    assert sorted(test_folders() - module_folders()) == []


def test_a_test_module_name_is_unique_across_tests() -> None:
    names = Counter(path.name for path in TESTS.rglob("test_*.py"))
    assert sorted(name for name, count in names.items() if count > 1) == []
