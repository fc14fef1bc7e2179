"""What the replays install, where the change edits it: a way into the runner that no
harness file shows.

The replay jobs install the suite's dependencies from the change's checkout (the workflow's
setup command), so a change that adds or repins a package can put into its own replays a
plugin pytest loads by itself, a pytest or a reporter of its own (`jest-junit` aliased to
another package), or an install script, with no harness file edited. Each declaration of
what is installed that the change's commit edits is a reach-in, named with its file and
line, and blocks the run until a reviewer has read it.

Where a file has a structure, the declarations are compared by value, so that a reformatted
table or an edit elsewhere in the file is no edit: `pyproject.toml`'s install tables,
`setup.cfg`'s install keys, `package.json`'s dependency keys and install scripts, and the
requirement lines of a requirements file (without comments). Lockfiles, `setup.py` and the
package managers' own configuration are compared by their bytes.
"""

from __future__ import annotations

import configparser
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase

from waiver.errors import InputError
from waiver.read.harness.reach_in import ReachIn
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import FileTree
from waiver.read.untrusted.bounded import read_json, read_toml

MAX_DECLARATION_BYTES = 16 << 20
INSTALLS = "changes what the replays install"

# pyproject.toml: the tables pip, build backends and the environment managers install from.
PYPROJECT_TABLES = (
    "build-system", "project.dependencies", "project.optional-dependencies",
    "dependency-groups", "tool.poetry.dependencies", "tool.poetry.dev-dependencies",
    "tool.poetry.group", "tool.poetry.source", "tool.uv", "tool.pdm", "tool.hatch.envs",
    "tool.tox",
)  # fmt: skip
# setup.cfg: the install keys of [options], and the extras.
SETUP_CFG_KEYS = (
    ("options", "install_requires"), ("options", "setup_requires"),
    ("options", "dependency_links"), ("options.extras_require", None),
)  # fmt: skip
# Requirement files by name (and any `*.txt` in a `requirements/` folder).
REQUIREMENTS = ("*requirements*.txt", "*constraints*.txt", "*requirements*.in")
# Files whose every byte decides what is installed, or how.
PYTHON_WHOLE = (
    "setup.py", "Pipfile", "Pipfile.lock", "poetry.lock", "uv.lock", "uv.toml", "pdm.lock",
    "pdm.toml", "pylock.toml", "pylock.*.toml",
)  # fmt: skip
# package.json: what npm, yarn, pnpm and bun install, and the scripts an install runs.
INSTALL_PACKAGE_KEYS = (
    "dependencies", "devDependencies", "optionalDependencies", "peerDependencies",
    "bundleDependencies", "bundledDependencies", "overrides", "resolutions", "pnpm",
    "workspaces", "packageManager",
)  # fmt: skip
INSTALL_SCRIPTS = ("preinstall", "install", "postinstall", "preprepare", "prepare", "postprepare")
NODE_WHOLE = (
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock",
    "bun.lockb", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", "pnpm-workspace.yaml",
)  # fmt: skip


# How a file's two versions (None: absent) compare by value: the edits, for its path.
Compare = Callable[[bytes | None, bytes | None, str], Iterator[ReachIn]]


@dataclass(frozen=True)
class Declarations:
    """One ecosystem's install declarations: the files read whole, and a comparison by
    value for each file name that has one."""

    whole: tuple[str, ...]
    by_value: Callable[[str], Compare | None]


def python_install_edits(committed: Committed) -> list[ReachIn]:
    """What the change edits of a Python suite's install declarations."""
    return _edits(committed, PYTHON)


def node_install_edits(committed: Committed) -> list[ReachIn]:
    """What the change edits of a JavaScript suite's install declarations (none under
    `node_modules/`, whose tracked files are harness already)."""
    return _edits(committed, NODE)


def _edits(committed: Committed, declarations: Declarations) -> list[ReachIn]:
    found: list[ReachIn] = []
    for path in sorted(committed.changed):
        name = path.rpartition("/")[2]
        if "node_modules" in path.split("/"):
            continue
        if any(fnmatchcase(name, pattern) for pattern in declarations.whole):
            found.append(ReachIn(path, 0, f"{INSTALLS} ({name} changed)"))
            continue
        compare = declarations.by_value(path)
        if compare is None:
            continue
        try:
            before = _read(committed.trusted, path)
            after = _read(committed.head, path)
            found += compare(before, after, path)
        except InputError as error:  # unread is not harmless
            found.append(ReachIn(path, 0, f"{INSTALLS}, and cannot be read ({error.problem})"))
    return sorted(found, key=lambda reach: (reach.path, reach.line, reach.what))


def _read(tree: FileTree, path: str) -> bytes | None:
    return tree.read(path, MAX_DECLARATION_BYTES)


def _line_of(text: str, *needles: str) -> int:
    """The first line (from 1) that starts with one of `needles` once stripped; 0 for none."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith(needles):
            return number
    return 0


def _line_with(text: str, needle: str) -> int:
    """The first line (from 1) that holds `needle`; 0 for none."""
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    return 0


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _value(document: object, dotted: str) -> object:
    for key in dotted.split("."):
        document = document.get(key) if isinstance(document, dict) else None
    return document


def _parsed(
    before: bytes | None, after: bytes | None, path: str, read: Callable[[bytes, str], object]
) -> tuple[object, object, str]:
    """Both versions of a file as `read` parses them ({} where absent), and the change's text,
    where lines are looked up."""
    old = read(before, path) if before is not None else {}
    new = read(after, path) if after is not None else {}
    return old, new, (after or b"").decode("utf-8", "replace")


def _pyproject(before: bytes | None, after: bytes | None, path: str) -> Iterator[ReachIn]:
    old, new, text = _parsed(before, after, path, read_toml)
    for table in PYPROJECT_TABLES:
        if _canonical(_value(old, table)) != _canonical(_value(new, table)):
            header, _, key = table.rpartition(".")
            line = _line_of(text, f"[{table}]", f"[{table}.", f"[[{table}") or (
                _line_of(text, f"{key} =", f"{key}=") if header else 0
            )
            yield ReachIn(path, line, f"{INSTALLS} ([{table}])")


def _setup_cfg(before: bytes | None, after: bytes | None, path: str) -> Iterator[ReachIn]:
    old, new = _config(before, path), _config(after, path)
    text = (after or b"").decode("utf-8", "replace")
    for section, key in SETUP_CFG_KEYS:
        if _option(old, section, key) != _option(new, section, key):
            line = _line_of(text, key) if key else _line_of(text, f"[{section}]")
            where = f"[{section}] {key}" if key else f"[{section}]"
            yield ReachIn(path, line, f"{INSTALLS} ({where})")


def _config(data: bytes | None, path: str) -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser()
    if data is not None:
        try:
            parser.read_string(data.decode("utf-8"), path)
        except (UnicodeDecodeError, configparser.Error) as error:
            raise InputError(path, f"not a setup.cfg: {error}") from None
    return parser


def _option(parser: configparser.RawConfigParser, section: str, key: str | None) -> object:
    if not parser.has_section(section):
        return None
    if key is None:
        return sorted(parser.items(section))
    return parser.get(section, key, fallback=None)


def _requirement_lines(data: bytes | None) -> dict[str, int]:
    """Each requirement line, without its comment, and the first line it is on."""
    lines: dict[str, int] = {}
    text = (data or b"").decode("utf-8", "replace")
    for number, line in enumerate(text.splitlines(), start=1):
        requirement = line.partition(" #")[0].strip()
        if requirement and not requirement.startswith("#"):
            lines.setdefault(" ".join(requirement.split()), number)
    return lines


def _requirements(before: bytes | None, after: bytes | None, path: str) -> Iterator[ReachIn]:
    old, new = _requirement_lines(before), _requirement_lines(after)
    for requirement, line in new.items():
        if requirement not in old:
            yield ReachIn(path, line, f"{INSTALLS} ({requirement[:60]})")
    for requirement in old.keys() - new.keys():
        yield ReachIn(path, 0, f"{INSTALLS} (no longer {requirement[:60]})")


def _package_json(before: bytes | None, after: bytes | None, path: str) -> Iterator[ReachIn]:
    old, new, text = _parsed(before, after, path, read_json)
    for key in INSTALL_PACKAGE_KEYS:
        if _canonical(_value(old, key)) != _canonical(_value(new, key)):
            yield ReachIn(path, _line_with(text, f'"{key}"'), f"{INSTALLS} ({key})")
    for script in INSTALL_SCRIPTS:
        if _canonical(_value(_value(old, "scripts"), script)) != _canonical(
            _value(_value(new, "scripts"), script)
        ):
            where = _line_with(text, f'"{script}"')
            yield ReachIn(path, where, f"{INSTALLS} (scripts.{script})")


def _python_value(path: str) -> Compare | None:
    folder, _, name = path.rpartition("/")
    if name == "pyproject.toml":
        return _pyproject
    if name == "setup.cfg":
        return _setup_cfg
    in_folder = folder.rpartition("/")[2] == "requirements" and name.endswith(".txt")
    if in_folder or any(fnmatchcase(name, pattern) for pattern in REQUIREMENTS):
        return _requirements
    return None


def _node_value(path: str) -> Compare | None:
    return _package_json if path.rpartition("/")[2] == "package.json" else None


PYTHON = Declarations(PYTHON_WHOLE, _python_value)
NODE = Declarations(NODE_WHOLE, _node_value)
