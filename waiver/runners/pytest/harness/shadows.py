"""What the test process imports from the change's files in place of something else.

`python -m pytest` puts the working directory first on `sys.path`, and pytest puts the
folder of each conftest and test module there too, ahead of site-packages and the standard
library. So at an import root, a module named like one the process imports later runs
instead of it (a root `iniconfig.py`, `shlex.py`, `yaml/`), and package metadata there
(`*.dist-info`, `*.egg-info`) declares pytest11 entry points that pytest's plugin autoload
loads though nothing names them. These are harness:

- package metadata at an import root, whole (`*.dist-info/`, `*.egg-info/`), and `*.pth`
  and `*.egg-link` files;
- a module or a regular package (one with an `__init__`) whose top-level name is a
  standard-library module, a module of pytest's own dependency closure, or a distribution
  the project declares (dependencies, extras, dependency groups, poetry's groups): every
  module file of such a package, since its `__init__` can import any of them.

A project's own distribution is code under test, not harness, even when pytest depends on
it (a project named `packaging`): what it does inside the replays is beyond files alone.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator

# pytest and what it imports at start-up (pytest 8 and 9 on every platform), and the
# modules the interpreter imports at start-up before any test.
PYTEST_CLOSURE = frozenset(
    {"pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "pygments"}
    | {"exceptiongroup", "tomli", "colorama"}
)
STARTUP_MODULES = frozenset({"sitecustomize", "usercustomize"})
# Shadowed whatever the project is called: pytest itself and the start-up hooks.
ALWAYS_SHADOWED = frozenset({"pytest", "_pytest", "pluggy", "py"}) | STARTUP_MODULES
METADATA_FOLDERS = (".dist-info", ".egg-info")
METADATA_FILES = (".pth", ".egg-link")
MODULE_SUFFIXES = (".py", ".pyc", ".pyw", ".so", ".pyd")
REQUIREMENT_NAME = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")


def import_name(distribution: str) -> str:
    """The module name a distribution is most often imported as (`typing-extensions` is
    `typing_extensions`); one imported under another name (`PyYAML`) is not found so."""
    return re.sub(r"[-.]+", "_", distribution).lower()


def _table(document: object, *keys: str) -> object:
    value = document
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _lists(value: object) -> Iterator[object]:
    """The items of a table of lists (extras, groups), skipping what has another shape."""
    if isinstance(value, dict):
        for items in value.values():
            if isinstance(items, list):
                yield from items


def _requirements(document: dict[str, object]) -> Iterator[str]:
    """The requirement strings and dependency keys a `pyproject.toml` declares, of any
    build backend; a value of another shape declares nothing."""
    dependencies = _table(document, "project", "dependencies")
    items = [
        *(dependencies if isinstance(dependencies, list) else []),
        *_lists(_table(document, "project", "optional-dependencies")),
        *_lists(_table(document, "dependency-groups")),
    ]
    yield from (item for item in items if isinstance(item, str))
    poetry = _table(document, "tool", "poetry")
    tables = [_table(poetry, "dependencies"), _table(poetry, "dev-dependencies")]
    groups = _table(poetry, "group")
    if isinstance(groups, dict):
        tables += [_table(group, "dependencies") for group in groups.values()]
    for table in tables:
        if isinstance(table, dict):
            yield from (key for key in table if key != "python")


def declared_modules(document: dict[str, object]) -> set[str]:
    """The import names of the distributions a `pyproject.toml` declares."""
    names = set()
    for requirement in _requirements(document):
        match = REQUIREMENT_NAME.match(requirement)
        if match is not None:
            names.add(import_name(match[1]))
    return names


def own_modules(document: dict[str, object]) -> set[str]:
    """The import names of the project's own distribution (PEP 621 or poetry)."""
    names = [_table(document, "project", "name"), _table(document, "tool", "poetry", "name")]
    return {import_name(name) for name in names if isinstance(name, str)}


def shadowed_names(declared: Iterable[str], own: Iterable[str]) -> frozenset[str]:
    """The top-level module names whose modules at an import root are harness."""
    names = (sys.stdlib_module_names | PYTEST_CLOSURE | set(declared)) - set(own)
    return frozenset(names | ALWAYS_SHADOWED)


def top_level_name(file_name: str) -> str | None:
    """The module a file at an import root would be imported as; None for other files."""
    stem, dot, suffix = file_name.partition(".")
    if not dot or not stem:
        return None
    if f".{suffix}" in MODULE_SUFFIXES or suffix.endswith((".so", ".pyd")):
        return stem
    return None


def is_module_path(path: str) -> bool:
    """Whether a file of a package is one Python can import: source, bytecode, extension."""
    return path.endswith(MODULE_SUFFIXES)
