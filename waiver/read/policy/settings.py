"""The effective policy of one run: command-line flags over the policy file over the defaults,
with where each value came from."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from waiver.model import Policy
from waiver.read.junit.replay import Limits
from waiver.read.policy.globs import check_glob

# `registry: none` in the policy file: no known-tests registry, on purpose.
NO_REGISTRY = "none"
DEFAULT_POLICY = Policy()
DEFAULT_LIMITS = Limits()

Source = Literal["default", "file", "flag"]
# How the property suite is set apart: modules of its own, or selected among the tests.
PropertySuite = Literal["folder", "selected"]
# The test runner the replays run (`waiver.runners`).
RunnerName = Literal["pytest", "jest", "vitest", "mocha"]
T = TypeVar("T")


@dataclass(frozen=True)
class Binding:
    """Tests (test-id globs) bound to the fixtures they read (globs over lock paths)."""

    tests: tuple[str, ...]
    fixtures: tuple[str, ...]


@dataclass(frozen=True)
class PolicyFile:
    """What a policy file sets; None where the file is silent."""

    source: str
    min_replays: int | None = None
    freeze_hours: int | None = None
    max_freeze_hours: int | None = None
    freeze_requires: tuple[str, ...] | None = None
    strict: tuple[str, ...] | None = None
    introduced_instability: Literal["review", "block"] | None = None
    fixtures: tuple[str, ...] | None = None
    bindings: tuple[Binding, ...] | None = None
    harness: tuple[str, ...] | None = None
    property_suite: PropertySuite | None = None
    runner: RunnerName | None = None
    approvers: tuple[str, ...] | None = None
    review_requires: tuple[str, ...] | None = None
    registry: str | None = None  # NO_REGISTRY when the file says there is none, on purpose
    freezes: str | None = None
    max_report_bytes: int | None = None
    max_files_per_replay: int | None = None


@dataclass(frozen=True)
class Flags:
    """Policy values given on the command line; None where the flag was not given."""

    min_replays: int | None = None
    freeze_hours: int | None = None
    fixtures: tuple[str, ...] | None = None
    registry: str | None = None
    freezes: str | None = None
    max_report_bytes: int | None = None


@dataclass(frozen=True)
class Settings:
    """The effective policy of one run, and where each value came from."""

    policy: Policy = field(default_factory=Policy)
    fixtures: tuple[str, ...] = ()  # empty: every regular file under the fixtures folder
    # False when the policy file's `fixtures: []` says the tests read none: the lock then
    # holds the harness alone, and no file of the fixtures folder is drift.
    fixture_set: bool = True
    bindings: tuple[Binding, ...] = ()
    harness: tuple[str, ...] = ()  # globs added to the built-in harness files, never removing one
    property_suite: PropertySuite = "folder"
    runner: RunnerName = "pytest"
    approvers: tuple[str, ...] | None = None  # None: any user with write permission counts
    registry: str | None = None
    # The policy file says `registry: none`: the run goes without one on purpose, so its
    # absence does not block.
    registry_none: bool = False
    freezes: str | None = None
    limits: Limits = field(default_factory=Limits)
    config: str | None = None
    sources: Mapping[str, Source] = field(default_factory=dict)

    def locked_property_modules(self, modules: frozenset[str]) -> frozenset[str]:
        """The modules a property report names that the lock must hold: all of them for a
        suite of its own; none for a selected one, whose modules are test modules that the
        edited-test check covers."""
        return modules if self.property_suite == "folder" else frozenset()


def effective(policy_file: PolicyFile | None, flags: Flags, root: str) -> Settings:
    """Flags over the file over the defaults. Paths in the file are relative to the root."""
    given = policy_file if policy_file is not None else PolicyFile(source="")
    sources: dict[str, Source] = {}

    def pick(key: str, flag: T | None, from_file: T | None, default: T) -> T:
        if flag is not None:
            sources[key] = "flag"
            return flag
        if from_file is not None:
            sources[key] = "file"
            return from_file
        sources[key] = "default"
        return default

    def in_root(path: str | None) -> str | None:
        if path is None or path == NO_REGISTRY:
            return path
        return os.path.normpath(os.path.join(root, path))

    for pattern in flags.fixtures or ():
        check_glob(pattern, "--pattern")
    registry = pick("registry", flags.registry, in_root(given.registry), None)
    policy = Policy(
        min_replays=pick(
            "min_replays", flags.min_replays, given.min_replays, DEFAULT_POLICY.min_replays
        ),
        freeze_hours=pick(
            "freeze_hours", flags.freeze_hours, given.freeze_hours, DEFAULT_POLICY.freeze_hours
        ),
        max_freeze_hours=pick(
            "max_freeze_hours", None, given.max_freeze_hours, DEFAULT_POLICY.max_freeze_hours
        ),
        strict=pick("strict", None, given.strict, DEFAULT_POLICY.strict),
        freeze_requires=pick(
            "freeze_requires", None, given.freeze_requires, DEFAULT_POLICY.freeze_requires
        ),
        introduced_instability=pick(
            "introduced_instability",
            None,
            given.introduced_instability,
            DEFAULT_POLICY.introduced_instability,
        ),
        review_requires=pick(
            "review_requires", None, given.review_requires, DEFAULT_POLICY.review_requires
        ),
    )
    return Settings(
        policy=policy,
        fixtures=pick("fixtures", flags.fixtures, given.fixtures, ()),
        fixture_set=flags.fixtures is not None or given.fixtures != (),
        bindings=pick("bindings", None, given.bindings, ()),
        harness=pick("harness", None, given.harness, ()),
        property_suite=pick("property_suite", None, given.property_suite, "folder"),
        runner=given.runner or "pytest",
        approvers=pick("approvers", None, given.approvers, None),
        registry=registry if registry != NO_REGISTRY else None,
        registry_none=registry == NO_REGISTRY,
        freezes=pick("freezes", flags.freezes, in_root(given.freezes), None),
        limits=Limits(
            max_report_bytes=pick(
                "limits.max_report_bytes",
                flags.max_report_bytes,
                given.max_report_bytes,
                DEFAULT_LIMITS.max_report_bytes,
            ),
            max_files_per_replay=pick(
                "limits.max_files_per_replay",
                None,
                given.max_files_per_replay,
                DEFAULT_LIMITS.max_files_per_replay,
            ),
        ),
        config=policy_file.source if policy_file is not None else None,
        sources=sources,
    )
