"""Which Python the written commands run with in the workflow, and which one `waiver init`
proves them with.

The workflow's Python is the reusable workflow's `python-version` input: its default,
unless the project declares another — a `.python-version` file, or a `requires-python`
that excludes the default (then the newest version below it that it allows, else the
oldest above). Init writes that input when it is not the default, and proves the commands
with that Python when it is on PATH; else with its own, and says so.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

from waiver.read.untrusted.bounded import read_toml_file

# The reusable workflow's default `python-version` (.github/workflows/waiver-gate.yml).
WORKFLOW_DEFAULT = (3, 12)
# The versions a `requires-python` is checked against.
CANDIDATES = tuple((3, minor) for minor in range(8, 15))
VERSION = re.compile(r"\s*(\d+)\.(\d+)")
CLAUSE = re.compile(r"\s*(~=|==|!=|<=|>=|<|>)\s*(\d+)(?:\.(\d+))?(?:\.(\d+|\*))?\s*")
VERSION_SECONDS = 30


@dataclass(frozen=True)
class WorkflowPython:
    version: tuple[int, int]
    source: str  # where it comes from, in words

    @property
    def text(self) -> str:
        return f"{self.version[0]}.{self.version[1]}"

    @property
    def written(self) -> bool:
        """Whether the workflow must name it: it is not the reusable workflow's default."""
        return self.version != WORKFLOW_DEFAULT


def _allows(clause: str, version: tuple[int, int]) -> bool | None:
    """Whether one `requires-python` clause allows some release of a minor version (as
    setup-python installs the newest of it); None when it is not a clause this reads."""
    match = CLAUSE.fullmatch(clause)
    if match is None:
        return None
    operator, bound, patch = match[1], (int(match[2]), int(match[3] or 0)), match[4]
    if operator == "==":
        return version == bound
    if operator == "~=":
        return (
            version == bound if patch is not None else version >= bound and version[0] == bound[0]
        )
    if operator == "!=":
        return version != bound or patch not in (None, "*")
    if operator in (">=", ">"):
        return version >= bound
    if operator == "<=" or (operator == "<" and patch not in (None, "*", "0")):
        return version <= bound
    return version < bound


def _from_requires(requires: str) -> tuple[int, int] | None:
    """The version a `requires-python` makes the workflow's: the default when it allows it,
    else the newest below it that it allows, else the oldest above; None when it is not
    read."""
    clauses = [clause for clause in requires.split(",") if clause.strip()]
    allowed = []
    for version in CANDIDATES:
        verdicts = [_allows(clause, version) for clause in clauses]
        if None in verdicts:
            return None
        if all(verdicts):
            allowed.append(version)
    if not allowed or WORKFLOW_DEFAULT in allowed:
        return None
    below = [version for version in allowed if version < WORKFLOW_DEFAULT]
    return max(below) if below else min(allowed)


def workflow_python() -> WorkflowPython:
    """The Python the written workflow runs the commands with, from the working folder."""
    if os.path.isfile(".python-version"):
        with open(".python-version", encoding="utf-8", errors="replace") as stream:
            match = VERSION.match(stream.read())
        if match is not None:
            return WorkflowPython((int(match[1]), int(match[2])), ".python-version")
    requires = None
    if os.path.isfile("pyproject.toml"):
        project = read_toml_file("pyproject.toml", "pyproject.toml").get("project")
        requires = project.get("requires-python") if isinstance(project, dict) else None
    if isinstance(requires, str):
        version = _from_requires(requires)
        if version is not None:
            return WorkflowPython(version, f"requires-python {requires.strip()}")
    return WorkflowPython(WORKFLOW_DEFAULT, "the gate workflow's default")


def _version_of(executable: str) -> tuple[int, int] | None:
    try:
        done = subprocess.run(
            [executable, "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True, text=True, check=False, timeout=VERSION_SECONDS,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = done.stdout.split()
    if done.returncode != 0 or len(words) != 2 or not all(w.isdigit() for w in words):
        return None
    return int(words[0]), int(words[1])


def proof_python(wanted: WorkflowPython) -> tuple[str, str | None]:
    """The interpreter the proof's venv is made with: `pythonX.Y` of the workflow's version
    when one on PATH runs as that version, else the one running waiver; with a note when
    it is not the workflow's."""
    found = shutil.which(f"python{wanted.text}")
    if found is not None and _version_of(found) == wanted.version:
        return found, None
    own = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if sys.version_info[:2] == wanted.version:
        return sys.executable, None
    return sys.executable, (
        f"the commands were proved with Python {own} (the one running waiver), not "
        f"{wanted.text}, which the workflow installs ({wanted.source}): no python{wanted.text} "
        "on PATH; a test that depends on the version may run otherwise in the workflow"
    )
