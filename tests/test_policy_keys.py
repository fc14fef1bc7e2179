"""Each policy key is declared once, as a field of `waiver.decide.policy.Policy`: both shipped
schemas follow from the declaration, and the reader, the effective settings and the report
carry every key.

The policy file's schema lists each key with its description, and the report schema's
`policy` object each key's type without its bounds (an error report may carry a value the
run refused). `WAIVER_REGENERATE=1` writes both files anew from the declaration.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from helpers.support import REPO
from waiver.decide.policy import SECTIONS, Policy, policy_key
from waiver.read.policy.policy_file import parse_policy
from waiver.read.policy.settings import Flags, effective
from waiver.write.report.report import policy_json

SCHEMAS = REPO / "waiver" / "schemas"
CONFIG = SCHEMAS / "waiver-config.schema.json"
REPORT = SCHEMAS / "waiver-report.schema.json"
WIDTH = 100  # a JSON value that fits on a line of this width is written on one


def config_properties(defs: Mapping[str, Any]) -> dict[str, Any]:
    """The policy file's keys, as its schema lists them."""
    properties: dict[str, Any] = {}
    for policy_field in fields(Policy):
        key = policy_key(policy_field)
        for reference in references(key.schema):
            assert reference in defs, f"{policy_field.name}: no $defs/{reference}"
        value = {"description": key.description, **key.schema}
        if key.section is None:
            properties[policy_field.name] = value
            continue
        section = properties.setdefault(
            key.section,
            {
                "description": SECTIONS[key.section],
                "type": "object",
                "additionalProperties": False,
                "properties": {},
            },
        )
        section["properties"][policy_field.name] = value
    return properties


def references(schema: Mapping[str, Any]) -> list[str]:
    found = [schema["$ref"].removeprefix("#/$defs/")] if "$ref" in schema else []
    return found + [
        name for part in schema.values() if isinstance(part, dict) for name in references(part)
    ]


def report_type(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    """A value's schema in the report: its types and shape, without bounds or descriptions."""
    if "$ref" in schema:
        return report_type(defs[schema["$ref"].removeprefix("#/$defs/")], defs)
    shape = {name: schema[name] for name in ("type", "enum") if name in schema}
    if "items" in schema:
        shape["items"] = report_type(schema["items"], defs)
    if "properties" in schema:
        shape["required"] = list(schema.get("required", schema["properties"]))
        shape["properties"] = {
            name: report_type(part, defs) for name, part in schema["properties"].items()
        }
    return shape


def report_policy(config: Mapping[str, Any], shipped: Mapping[str, Any]) -> dict[str, Any]:
    """The report's `policy` object: each key of the policy file, then the members that are
    no key (the file, and where each value came from) as the shipped schema has them."""
    properties = {}
    for policy_field in fields(Policy):
        key = policy_key(policy_field)
        if key.section is not None:
            continue
        shape = report_type(config["properties"][policy_field.name], config["$defs"])
        if key.report is not None:
            shape = dict(key.report)
        if policy_field.default is None:
            shape["type"] = [shape["type"], "null"]
        properties[policy_field.name] = shape
    for section in SECTIONS:
        properties[section] = report_type(config["properties"][section], config["$defs"])
    for name in ("config", "sources"):
        properties[name] = shipped["properties"][name]
    return {"type": "object", "required": list(properties), "properties": properties}


def dump(value: Any, indent: int = 0, prefix: int = 0) -> str:
    """JSON with a value on one line when it fits in WIDTH (after `prefix` characters of the
    line that hold its indent and name), else one member a line."""
    flat = json.dumps(value, ensure_ascii=False)
    if prefix + len(flat) <= WIDTH or not isinstance(value, (dict, list)) or not value:
        return flat
    inner = " " * (indent + 2)
    if isinstance(value, dict):
        named = [(f"{inner}{json.dumps(name)}: ", part) for name, part in value.items()]
        lines = [start + dump(part, indent + 2, len(start)) for start, part in named]
        return "{\n" + ",\n".join(lines) + "\n" + " " * indent + "}"
    lines = [inner + dump(part, indent + 2, len(inner)) for part in value]
    return "[\n" + ",\n".join(lines) + "\n" + " " * indent + "]"


def check_schema(path: Path, expected: dict[str, Any]) -> None:
    if os.environ.get("WAIVER_REGENERATE") == "1":
        path.write_text(dump(expected) + "\n", encoding="utf-8")
    assert json.loads(path.read_text(encoding="utf-8")) == expected


def test_the_policy_file_schema_lists_each_declared_key() -> None:
    shipped = json.loads(CONFIG.read_text(encoding="utf-8"))
    check_schema(CONFIG, {**shipped, "properties": config_properties(shipped["$defs"])})


def test_the_report_schema_has_each_declared_key_in_its_policy_object() -> None:
    config = json.loads(CONFIG.read_text(encoding="utf-8"))
    shipped = json.loads(REPORT.read_text(encoding="utf-8"))
    properties = {
        **shipped["properties"],
        "policy": report_policy(config, shipped["properties"]["policy"]),
    }
    check_schema(REPORT, {**shipped, "properties": properties})


def test_the_flags_are_named_as_the_keys_they_set() -> None:
    assert {f.name for f in fields(Flags)} <= {f.name for f in fields(Policy)}


def test_a_file_that_sets_every_key_sets_each_from_the_file(tmp_path: Path) -> None:
    every = {
        "min_replays": 3,
        "freeze_hours": 6,
        "max_freeze_hours": 12,
        "strict": ["tests/auth/*"],
        "introduced_instability": "block",
        "freeze_requires": ["owner"],
        "max_renewals": 2,
        "fixtures": ["*.json"],
        "bindings": [{"tests": ["tests/a/*"], "fixtures": ["fixtures/a/*"]}],
        "harness": ["jest.config.js"],
        "package_scripts": ["test", "test:unit"],
        "unlocked_data": ["tests/snapshots/*"],
        "property_suite": "selected",
        "runner": "jest",
        "review_requires": ["red_green"],
        "approvers": ["octocat"],
        "registry": "known-tests.txt",
        "freezes": "freezes.json",
        "history_runs": 40,
        "history_days": 14,
        "flag_failure_rate": 0.2,
        "clear_failure_rate": 0.1,
        "min_history_sample": 8,
        "storm_failure_share": 0.5,
        "ewma_lambda": 0.2,
        "limits": {"max_report_bytes": 1000, "max_files_per_replay": 7},
    }
    assert set(every) == set(config_properties(json.loads(CONFIG.read_text())["$defs"]))
    settings = effective(parse_policy(json.dumps(every).encode(), "waiver.yml"), Flags(), "/r")
    document = policy_json(settings)

    assert set(settings.sources.values()) == {"file"}
    assert settings.sources.keys() == {policy_key(f).name(f.name) for f in fields(Policy)}
    assert document == {
        **every,
        "registry": "/r/known-tests.txt",
        "freezes": "/r/freezes.json",
        "config": "waiver.yml",
        "sources": settings.sources,
    }


def test_without_a_file_each_key_is_its_default() -> None:
    settings = effective(None, Flags(), ".")

    assert settings.policy == Policy()
    assert set(settings.sources.values()) == {"default"}


@pytest.mark.parametrize("name", [f.name for f in fields(Flags)])
def test_a_flag_wins_over_the_file(name: str) -> None:
    given = {
        "min_replays": 2,
        "freeze_hours": 2,
        "fixtures": ("x",),
        "registry": "r",
        "freezes": "f",
        "max_report_bytes": 2,
    }[name]
    file = parse_policy(b"min_replays: 3\nfixtures: [y]\nregistry: q\nlimits: {}\n", "w.yml")
    settings = effective(file, Flags(**{name: given}), ".")
    paths = {f.name: policy_key(f).name(f.name) for f in fields(Policy)}
    assert getattr(settings.policy, name) == given
    assert settings.sources[paths[name]] == "flag"
