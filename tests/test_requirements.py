"""The container's hashed requirements pin every runtime dependency of the package."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>\S+)")
HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})\b")


def project_dependencies() -> list[Requirement]:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    return [Requirement(text) for text in pyproject["project"]["dependencies"]]


def pinned() -> dict[str, tuple[str, list[str]]]:
    """Name -> (version, sha256 hashes) for each requirement in requirements/runtime.txt."""
    text = (REPO / "requirements" / "runtime.txt").read_text()
    # A requirement continues over lines that end with a backslash; comments stand alone.
    logical = text.replace("\\\n", " ").splitlines()
    pins: dict[str, tuple[str, list[str]]] = {}
    for line in logical:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = PIN.match(stripped)
        assert match is not None, f"not pinned with ==: {stripped}"
        pins[canonicalize_name(match["name"])] = (match["version"], HASH.findall(stripped))
    return pins


def test_every_project_dependency_is_pinned_with_a_hash_in_its_range() -> None:
    pins = pinned()
    for requirement in project_dependencies():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is not in requirements/runtime.txt"
        version, hashes = pins[name]
        assert hashes, f"{name} has no --hash=sha256 line"
        assert requirement.specifier.contains(version), f"{name}=={version} not in {requirement}"


def test_every_pinned_package_has_a_hash() -> None:
    # pip --require-hashes refuses the whole file if any one requirement lacks a hash.
    assert {name for name, (_, hashes) in pinned().items() if not hashes} == set()


def test_the_input_file_lists_exactly_the_project_dependencies() -> None:
    lines = (REPO / "requirements" / "runtime.in").read_text().splitlines()
    listed = [line for line in lines if line.strip() and not line.startswith("#")]
    assert sorted(listed) == sorted(str(r) for r in project_dependencies())
