"""The tables of a project's `pyproject.toml` that `waiver init` writes the install step from.

They are read strictly, not guessed at: a file that is not TOML, or a `[project]`,
`[project.optional-dependencies]` or `[dependency-groups]` that is not a table of arrays of
requirements, is an input error naming the key, not a value to skip. pip refuses the same
values when it installs from them, so a step written around a guess would fail on every
pull request.
"""

from __future__ import annotations

import os
from typing import Any

from waiver.errors import InputError
from waiver.read.untrusted.bounded import read_toml_file

PYPROJECT = "pyproject.toml"


def _toml_kind(value: object) -> str:
    """What a TOML value is, in TOML's words, for an error message."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "a date or time"


def _table(value: object, key: str) -> dict[str, Any]:
    """`value`, the `key` table of pyproject.toml ({} when absent), checked to be a table."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(PYPROJECT, f"[{key}] must be a table, not {_toml_kind(value)}")
    return value


def _requirement_lists(table: dict[str, Any], key: str, includes: bool) -> None:
    """Each entry of the `key` table an array of requirement strings (and, in dependency
    groups, `{include-group = "name"}` tables); an input error naming the first that is not."""
    what = "an array of requirement strings" + (" and include-group tables" if includes else "")
    for name, entry in table.items():
        if not isinstance(entry, list):
            raise InputError(PYPROJECT, f"[{key}] {name} must be {what}, not {_toml_kind(entry)}")
        for item in entry:
            included = isinstance(item, dict) and isinstance(item.get("include-group"), str)
            if not (isinstance(item, str) or (includes and included)):
                raise InputError(
                    PYPROJECT, f"[{key}] {name} must be {what}; it holds {_toml_kind(item)}"
                )


def read_install_tables(
    path: str,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """`[project]`, its optional dependencies and the dependency groups of the file at
    `path`, each checked ({} for each when the file is absent)."""
    document: dict[str, object] = {}
    if os.path.isfile(path):
        document = read_toml_file(path, PYPROJECT)
    project = _table(document.get("project"), "project")
    extras = _table(project.get("optional-dependencies"), "project.optional-dependencies")
    _requirement_lists(extras, "project.optional-dependencies", includes=False)
    groups = _table(document.get("dependency-groups"), "dependency-groups")
    _requirement_lists(groups, "dependency-groups", includes=True)
    return project, extras, groups
