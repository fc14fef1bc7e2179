"""The policy file, `waiver.yml`: plain YAML checked against the JSON Schema shipped with waiver.

A policy file sets the gate's numbers and can tighten it (strict tests, fixture bindings,
caps). No key can waive a closed class, skip the property step or make an unknown test
pass: the schema has no such key, and an unknown key is an error, never ignored.
Command-line flags override the file and the file overrides the defaults
(`waiver.read.policy.settings`); its YAML is read strictly (`strict_yaml`) and checked
against the schema (`schema_problems`).
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any, cast

from waiver.decide.policy import NO_REGISTRY, Key, Policy, policy_key
from waiver.errors import InputError
from waiver.read.policy.globs import check_glob
from waiver.read.policy.schema_problems import problem_lines, validator
from waiver.read.policy.settings import DEFAULT_POLICY, Flags, PolicyFile, Settings, effective
from waiver.read.policy.strict_yaml import load_yaml
from waiver.read.trusted.protected import ProtectedFiles
from waiver.read.untrusted.files import split_relative

MAX_CONFIG_BYTES = 1 << 20


def _value(key: Key, value: Any, source: str, name: str) -> object:
    """A field's value from its YAML value, which the schema has checked."""
    if key.path and value != NO_REGISTRY:
        split_relative(value, f"{source}: {name}")
    if key.read is not None:
        return key.read(value)
    return tuple(value) if isinstance(value, list) else value


def parse_policy(data: bytes, source: str) -> PolicyFile:
    document = load_yaml(data, source)
    errors = validator().iter_errors(cast(Any, document))
    problems = sorted({line for error in errors for line in problem_lines(error)})
    if problems:
        raise InputError(source, "; ".join(problems))
    document = cast(dict[str, Any], document)  # the schema requires a mapping
    values: dict[str, Any] = {}
    for policy_field in fields(Policy):
        name, key = policy_field.name, policy_key(policy_field)
        section = document if key.section is None else document.get(key.section, {})
        if name in section:
            values[name] = _value(key, section[name], source, key.name(name))
    policy_file = PolicyFile(source, replace(DEFAULT_POLICY, **values), frozenset(values))
    _check_window(policy_file)
    _check_path_globs(policy_file)
    return policy_file


def _check_path_globs(policy_file: PolicyFile) -> None:
    """The globs over repository paths name files inside it (`waiver.read.policy.globs`)."""
    policy = policy_file.policy
    keyed = [
        ("harness", policy.harness),
        ("fixtures", policy.fixtures),
        ("unlocked_data", policy.unlocked_data),
        *(
            (f"bindings[{index}].fixtures", binding.fixtures)
            for index, binding in enumerate(policy.bindings)
        ),
    ]
    for key, patterns in keyed:
        for number, pattern in enumerate(patterns):
            check_glob(pattern, policy_file.source, f"{key}[{number}]")


def _check_window(policy_file: PolicyFile) -> None:
    """The file on its own must hold: its freeze window fits under its maximum."""
    hours, maximum = policy_file.policy.freeze_hours, policy_file.policy.max_freeze_hours
    if hours <= maximum:
        return
    if "freeze_hours" in policy_file.given:
        raise InputError(
            policy_file.source,
            f"freeze_hours: expected at most max_freeze_hours ({maximum}), got {hours}",
        )
    raise InputError(
        policy_file.source,
        f"max_freeze_hours: expected at least freeze_hours ({hours}, the default), got {maximum}",
    )


def read_policy(protected: ProtectedFiles, path: str) -> PolicyFile:
    """The policy file, read like the lock: from the trusted revision when there is one."""
    return parse_policy(protected.read(path, MAX_CONFIG_BYTES), path)


def read_settings(
    protected: ProtectedFiles, config: str | None, flags: Flags, root: str
) -> Settings:
    """The effective policy: the policy file (read like the lock) under the flags."""
    policy_file = None if config is None else read_policy(protected, config)
    return effective(policy_file, flags, root)
