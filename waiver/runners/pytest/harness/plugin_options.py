"""The plugins and options pytest's configuration files give it, read without running
anything: `-p NAME` and the other options of `addopts` split the way pytest splits them,
the keys of an ini-style file, a TOML table's values, and the modules of pytest11 entry
points declared in `pyproject.toml`, `setup.cfg` or an installed package's metadata."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable

from waiver.read.lock.lock_file import LockTables

# pytest's table of `pyproject.toml`, and the pytest11 entry points of each build backend's
# own table, which the documented install step (`pip install -e .`) installs and pytest then
# loads by itself: PEP 621, poetry, flit. Each is locked on its own, so that an edit
# elsewhere in the file (a dependency bump) is no drift.
PYTEST_TABLE = "tool.pytest"
ENTRY_POINTS_TABLES = (
    "project.entry-points.pytest11",
    "tool.poetry.plugins.pytest11",
    "tool.flit.entrypoints.pytest11",
)
PYTEST_LOCK_TABLES = LockTables(toml=frozenset({PYTEST_TABLE, *ENTRY_POINTS_TABLES}))
MODULE_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\Z", re.ASCII)


def split_options(values: Iterable[str]) -> list[str]:
    """Command-line words, split the way pytest splits `addopts`."""
    words: list[str] = []
    for value in values:
        try:
            words.extend(shlex.split(value))
        except ValueError:  # an unbalanced quote: pytest refuses it; read the words anyway
            words.extend(value.split())
    return words


def plugin_options(words: list[str]) -> list[str]:
    """The module names of `-p NAME` and `-pNAME` (not `-p no:NAME`, which blocks one)."""
    names = []
    for position, word in enumerate(words):
        if word == "-p":
            name = words[position + 1] if position + 1 < len(words) else ""
        elif word.startswith("-p"):
            name = word[2:]
        else:
            continue
        if MODULE_NAME.match(name):
            names.append(name)
    return names


INI_KEY = re.compile(r"([\w-]+)\s*[=:]\s*(.*)")
INI_KEYS = ("addopts", "pythonpath", "python_files")


def ini_values(text: str) -> dict[str, list[str]]:
    """`addopts`, `pythonpath`, `python_files` and the `pytest11` entry points
    (`setup.cfg`) of an ini file, in any section, continuation lines too."""
    values: dict[str, list[str]] = {key: [] for key in (*INI_KEYS, "pytest11")}
    key = None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        if line[0] in " \t" and key is not None:
            values[key].append(stripped)
            continue
        match = INI_KEY.match(stripped)
        key = match[1] if match is not None and match[1] in values else None
        if key is not None and match is not None:
            values[key].append(match[2])
    return values


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def toml_values(document: dict[str, object], table: tuple[str, ...]) -> dict[str, list[str]]:
    """`addopts`, `pythonpath` and `python_files` of pytest's table (and its
    `ini_options`) in a TOML file."""
    value: object = document
    for key in table:
        value = value.get(key) if isinstance(value, dict) else None
    values: dict[str, list[str]] = {key: [] for key in INI_KEYS}
    tables = [value, value.get("ini_options") if isinstance(value, dict) else None]
    for found in tables:
        if isinstance(found, dict):
            for key, listed in values.items():
                listed.extend(_strings(found.get(key)))
    return values


def entry_point_modules(document: dict[str, object]) -> list[str]:
    """The modules of the pytest11 entry points a `pyproject.toml` declares, in the table
    of every build backend that installs them."""
    modules = []
    for table in ENTRY_POINTS_TABLES:
        value: object = document
        for key in table.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, dict):
            modules += entry_modules(item for item in value.values() if isinstance(item, str))
    return modules


def metadata_entry_modules(text: str) -> list[str]:
    """The modules of the `[pytest11]` section of package metadata's `entry_points.txt`,
    which pytest's plugin autoload loads from any folder on `sys.path`."""
    entries, section = [], None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped.strip("[]").strip()
        elif section == "pytest11" and "=" in stripped:
            entries.append(stripped.partition("=")[2])
    return entry_modules(entries)


def entry_modules(entries: Iterable[str]) -> list[str]:
    """The module part of entry-point values (`module:attribute [extra]`)."""
    modules = (entry.partition(":")[0].strip() for entry in entries)
    return [module for module in modules if MODULE_NAME.match(module)]
