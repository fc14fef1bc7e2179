"""The Node version a JavaScript project says it runs on, for the workflow `waiver init`
writes: the version `actions/setup-node` sets up in every job.

The project's own word first, as the tools that read it take it: `.nvmrc`, `.node-version`,
`.tool-versions` (asdf's `nodejs` line), `volta.node` in `package.json`, written as they
are (`20`, `20.11.1`, `lts/iron`); else `engines.node`, a range (`>=18`, `^18.12 || ^20`),
which gives the major version of the Node init runs with when that one is in it, else the
lowest major version in it. Without any, the Node init runs with. When the workflow's
Node is not the one init proved the commands with, init says so.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

# What setup-node reads as a version: `20`, `20.11.1`, `lts/*`, `lts/iron`, `node`.
VERSION = re.compile(r"v?([0-9][0-9.x]*|lts/[a-z*-]+|node|latest|current)", re.IGNORECASE)
MAX_VERSION_BYTES = 4096
# The majors a range is tried with, for its lowest one.
MAJORS = range(4, 100)
# nvm's names of the long-term-support lines.
LTS_MAJORS = {"gallium": "16", "hydrogen": "18", "iron": "20", "jod": "22", "krypton": "24"}
COMPARATOR = re.compile(r"(\^|~|>=|<=|>|<|=)?\s*v?(\d+|x|\*)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?")
HYPHEN = re.compile(r"^\s*(\S+)\s+-\s+(\S+)\s*$")
Version = tuple[int, int, int]


@dataclass(frozen=True)
class NodeVersion:
    """The version the workflow sets up, where it comes from, and what init says of it."""

    version: str
    source: str
    note: str | None = None


def _read(path: str) -> str | None:
    if not os.path.isfile(path) or os.path.islink(path):
        return None
    with open(path, "rb") as stream:
        return stream.read(MAX_VERSION_BYTES).decode("utf-8", "replace")


def _version(text: str | None) -> str | None:
    """The version a version file names: its first word that is one, `v` taken off."""
    for line in (text or "").splitlines():
        word = line.split("#", 1)[0].strip()
        match = VERSION.fullmatch(word)
        if match is not None:
            return match[1]
    return None


def _tool_versions(text: str | None) -> str | None:
    for line in (text or "").splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) > 1 and words[0] in ("nodejs", "node"):
            return _version(words[1])
    return None


def _parts(match: re.Match[str]) -> list[int | None]:
    return [None if part in (None, "x", "*") else int(part) for part in match.groups()[1:]]


def _comparator(text: str) -> list[tuple[str, Version]] | None:
    """One comparator as a list of plain ones (`>=`, `<`, …); None when it is not one."""
    match = COMPARATOR.fullmatch(text.strip())
    if match is None:
        return None
    operator = match[1] or "="
    major, minor, patch = _parts(match)
    if major is None:
        return []
    low = (major, minor or 0, patch or 0)
    # The first version past a partial one: `20` and `20.x` end before 21.0.0.
    past = (major, minor + 1, 0) if minor is not None else (major + 1, 0, 0)
    if operator == "^":
        high = (major + 1, 0, 0) if major else (0, (minor or 0) + 1, 0)
        return [(">=", low), ("<", high)]
    if operator == "~" or (operator == "=" and patch is None):
        return [(">=", low), ("<", past)]
    if patch is None and operator in ("<=", ">"):
        return [("<" if operator == "<=" else ">=", past)]
    return [(operator, low)]


def _allows(comparators: list[tuple[str, Version]], version: Version) -> bool:
    checks = {
        ">=": version.__ge__, ">": version.__gt__, "<=": version.__le__,
        "<": version.__lt__, "=": version.__eq__,
    }  # fmt: skip
    return all(checks[operator](bound) for operator, bound in comparators)


def range_sets(text: str) -> list[list[tuple[str, Version]]] | None:
    """An npm version range as its alternatives, each a list of plain comparators; None
    when it is not a range init reads."""
    found = []
    for alternative in text.split("||"):
        hyphen = HYPHEN.match(alternative)
        words = [f">={hyphen[1]}", f"<={hyphen[2]}"] if hyphen else alternative.split()
        comparators: list[tuple[str, Version]] = []
        for word in words or ["*"]:
            parsed = _comparator(word)
            if parsed is None:
                return None
            comparators += parsed
        found.append(comparators)
    return found


def _engines_major(text: str, running: Version) -> str | None:
    """The major version the workflow sets up for an `engines.node` range: the running
    one's when the range allows it, else the lowest the range allows."""
    sets = range_sets(text)
    if sets is None:
        return None

    def allowed(version: Version) -> bool:
        return any(_allows(comparators, version) for comparators in sets)

    if allowed(running):
        return str(running[0])
    return next((str(major) for major in MAJORS if allowed((major, 99, 99))), None)


def project_node(root: str, package: dict[str, object], running: str) -> NodeVersion:
    """The Node version the workflow sets up for the project at `root`, whose `package.json`
    is `package`; `running` is the version of the Node init runs the suite with."""
    numbers = [int(part) for part in re.findall(r"\d+", running)[:3]]
    current: Version = (*numbers, 0, 0, 0)[:3]  # type: ignore[assignment]
    volta = package.get("volta")
    engines = package.get("engines")
    candidates = [
        (".nvmrc", _version(_read(os.path.join(root, ".nvmrc")))),
        (".node-version", _version(_read(os.path.join(root, ".node-version")))),
        (".tool-versions", _tool_versions(_read(os.path.join(root, ".tool-versions")))),
        (
            "volta.node in package.json",
            _version(str(volta.get("node", ""))) if isinstance(volta, dict) else None,
        ),
    ]
    found = next(((source, version) for source, version in candidates if version), None)
    if found is None and isinstance(engines, dict) and isinstance(engines.get("node"), str):
        major = _engines_major(str(engines["node"]), current)
        if major is not None:
            found = (f"engines.node in package.json ({engines['node']})", major)
    if found is None:
        return NodeVersion(str(current[0]), "the Node init ran the suite with")
    source, version = found
    major = LTS_MAJORS.get(version.lower().removeprefix("lts/"), version.split(".")[0])
    if major == str(current[0]):
        return NodeVersion(version, source)
    differs = (
        f", a major version of its own: run init with Node {version} on PATH to prove the "
        "commands with it"
        if major.isdigit()
        else ""
    )
    note = (
        f"the workflow sets up Node {version}, from {source}; init ran the suite with Node "
        f"{running}{differs}"
    )
    return NodeVersion(version, source, note)
