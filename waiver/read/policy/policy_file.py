"""The policy file, `waiver.yml`: plain YAML checked against the JSON Schema shipped with waiver.

A policy file sets the gate's numbers and can tighten it (strict tests, fixture bindings,
caps). No key can waive a closed class, skip the property step or make an unknown test
pass: the schema has no such key, and an unknown key is an error, never ignored.
Command-line flags override the file and the file overrides the defaults
(`waiver.read.policy.settings`); its YAML is read strictly (`strict_yaml`) and checked
against the schema (`schema_problems`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from waiver.errors import InputError
from waiver.read.files import split_relative
from waiver.read.policy.globs import check_glob
from waiver.read.policy.schema_problems import problem_lines, validator
from waiver.read.policy.settings import DEFAULT_POLICY, NO_REGISTRY, Binding, PolicyFile
from waiver.read.policy.strict_yaml import load_yaml
from waiver.read.trusted.protected import ProtectedFiles

MAX_CONFIG_BYTES = 1 << 20


def _relative(data: Mapping[str, Any], key: str, source: str) -> str | None:
    value: str | None = data.get(key)
    if value is not None:
        split_relative(value, f"{source}: {key}")
    return value


def _tuple(values: list[str] | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(values)


def parse_policy(data: bytes, source: str) -> PolicyFile:
    document = load_yaml(data, source)
    errors = validator().iter_errors(cast(Any, document))
    problems = sorted({line for error in errors for line in problem_lines(error)})
    if problems:
        raise InputError(source, "; ".join(problems))
    document = cast(dict[str, Any], document)  # the schema requires a mapping
    limits: Mapping[str, int] = document.get("limits", {})
    bindings = document.get("bindings")
    policy_file = PolicyFile(
        source=source,
        min_replays=document.get("min_replays"),
        freeze_hours=document.get("freeze_hours"),
        max_freeze_hours=document.get("max_freeze_hours"),
        freeze_requires=_tuple(document.get("freeze_requires")),
        strict=_tuple(document.get("strict")),
        introduced_instability=document.get("introduced_instability"),
        fixtures=_tuple(document.get("fixtures")),
        bindings=None
        if bindings is None
        else tuple(Binding(tuple(b["tests"]), tuple(b["fixtures"])) for b in bindings),
        harness=_tuple(document.get("harness")),
        property_suite=document.get("property_suite"),
        runner=document.get("runner"),
        approvers=_tuple(document.get("approvers")),
        review_requires=_tuple(document.get("review_requires")),
        registry=NO_REGISTRY
        if document.get("registry") == NO_REGISTRY
        else _relative(document, "registry", source),
        freezes=_relative(document, "freezes", source),
        max_report_bytes=limits.get("max_report_bytes"),
        max_files_per_replay=limits.get("max_files_per_replay"),
    )
    _check_window(policy_file)
    _check_path_globs(policy_file)
    return policy_file


def _check_path_globs(policy_file: PolicyFile) -> None:
    """The globs over repository paths name files inside it (`waiver.read.policy.globs`)."""
    keyed = [
        ("harness", policy_file.harness or ()),
        ("fixtures", policy_file.fixtures or ()),
        *(
            (f"bindings[{index}].fixtures", binding.fixtures)
            for index, binding in enumerate(policy_file.bindings or ())
        ),
    ]
    for key, patterns in keyed:
        for number, pattern in enumerate(patterns):
            check_glob(pattern, policy_file.source, f"{key}[{number}]")


def _check_window(policy_file: PolicyFile) -> None:
    """The file on its own must hold: its freeze window fits under its maximum."""
    given_hours, given_maximum = policy_file.freeze_hours, policy_file.max_freeze_hours
    hours = DEFAULT_POLICY.freeze_hours if given_hours is None else given_hours
    maximum = DEFAULT_POLICY.max_freeze_hours if given_maximum is None else given_maximum
    if hours <= maximum:
        return
    if given_hours is not None:
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
