"""The effective policy of one run: command-line flags over the policy file over the defaults,
with where each value came from.

Every key is a field of `waiver.decide.policy.Policy`; nothing here names one but the few that
mean more than their value (the fixture set, the registry that is none on purpose, the
caps of reading replays).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from waiver.decide.policy import NO_REGISTRY, Policy, policy_key
from waiver.read.junit.replay_reports import Limits
from waiver.read.policy.globs import check_glob

DEFAULT_POLICY = Policy()

Source = Literal["default", "file", "flag"]


@dataclass(frozen=True)
class PolicyFile:
    """What a policy file sets: its values over the defaults, and the fields it names."""

    source: str
    policy: Policy = field(default_factory=Policy)
    given: frozenset[str] = frozenset()  # names of the `Policy` fields the file sets


@dataclass(frozen=True)
class Flags:
    """Policy values given on the command line; None where the flag was not given.

    Each is named as its field of `Policy`."""

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
    # False when the policy file's `fixtures: []` says the tests read none: the lock then
    # holds the harness alone, and no file of the fixtures folder is drift.
    fixture_set: bool = True
    config: str | None = None
    # By key path in the policy file (`limits.max_report_bytes`).
    sources: Mapping[str, Source] = field(default_factory=dict)

    @property
    def registry(self) -> str | None:
        """The known-tests registry to read; None without one."""
        return None if self.registry_none else self.policy.registry

    @property
    def registry_none(self) -> bool:
        """The policy file says `registry: none`: the run goes without one on purpose, so
        its absence does not block."""
        return self.policy.registry == NO_REGISTRY

    @property
    def freezes(self) -> str | None:
        return self.policy.freezes

    @property
    def limits(self) -> Limits:
        return Limits(self.policy.max_report_bytes, self.policy.max_files_per_replay)

    def locked_property_modules(self, modules: frozenset[str]) -> frozenset[str]:
        """The modules a property report names that the lock must hold: all of them for a
        suite of its own; none for a selected one, whose modules are test modules that the
        edited-test check covers."""
        return modules if self.policy.property_suite == "folder" else frozenset()


def effective(policy_file: PolicyFile | None, flags: Flags, root: str) -> Settings:
    """Flags over the file over the defaults. Paths in the file are relative to the root."""
    given = policy_file if policy_file is not None else PolicyFile(source="")
    for pattern in flags.fixtures or ():
        check_glob(pattern, "--pattern")
    values: dict[str, Any] = {}
    sources: dict[str, Source] = {}
    for policy_field in fields(Policy):
        name, key = policy_field.name, policy_key(policy_field)
        flag = getattr(flags, name, None)
        if flag is not None:
            values[name], sources[key.name(name)] = flag, "flag"
        elif name in given.given:
            value = getattr(given.policy, name)
            in_root = key.path and value != NO_REGISTRY
            values[name] = os.path.normpath(os.path.join(root, value)) if in_root else value
            sources[key.name(name)] = "file"
        else:
            sources[key.name(name)] = "default"
    return Settings(
        policy=replace(DEFAULT_POLICY, **values),
        fixture_set=sources["fixtures"] != "file" or given.policy.fixtures != (),
        config=policy_file.source if policy_file is not None else None,
        sources=sources,
    )
