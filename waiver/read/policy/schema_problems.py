"""The policy file's JSON Schema, and what its errors say: one line per offending key."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, cast

from waiver.read.policy.strict_yaml import key_path

if TYPE_CHECKING:
    import jsonschema

EXPECTED_TYPES = {
    "integer": "an integer",
    "string": "a string",
    "array": "a list",
    "object": "a mapping",
}


def _integer(_: object, value: object) -> bool:
    # JSON Schema counts 24.0 as an integer, and Python counts True as one; a policy does not.
    return isinstance(value, int) and not isinstance(value, bool)


@cache
def validator() -> jsonschema.protocols.Validator:
    # Imported here: only a run with a policy file pays for jsonschema's import (0.07 s).
    from importlib import resources

    import jsonschema

    schema = json.loads(
        resources.files("waiver").joinpath("schemas/waiver-config.schema.json").read_text("utf-8")
    )
    base = jsonschema.Draft202012Validator
    extend = cast(Callable[..., type[jsonschema.protocols.Validator]], jsonschema.validators.extend)
    return extend(base, type_checker=base.TYPE_CHECKER.redefine("integer", _integer))(schema)


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "an empty value"
    if isinstance(value, str):
        return f"the string {value[:60]!r}" + ("..." if len(value) > 60 else "")
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"


def problem_lines(error: jsonschema.ValidationError) -> list[str]:
    """One line per offending key: where it is, what was expected, what was found."""
    path = list(error.absolute_path)
    keyword, rule, value = error.validator, error.validator_value, error.instance
    if keyword == "additionalProperties" and isinstance(value, dict):
        known = sorted(error.schema.get("properties", {})) if isinstance(error.schema, dict) else []
        return [
            f"{key_path([*path, key])}: unknown key (expected one of: {', '.join(known)})"
            for key in sorted(set(value) - set(known))
        ]
    if keyword == "required" and isinstance(value, dict) and isinstance(rule, list):
        return [f"{key_path(path)}: missing key {key}" for key in rule if key not in value]
    if keyword == "type":
        expected = EXPECTED_TYPES.get(str(rule), str(rule))
        return [f"{key_path(path)}: expected {expected}, got {_shown(value)}"]
    if keyword == "enum" and isinstance(rule, list):
        return [
            f"{key_path(path)}: expected one of: {', '.join(map(str, rule))}, got {_shown(value)}"
        ]
    if keyword == "minimum":
        return [f"{key_path(path)}: expected an integer >= {rule}, got {_shown(value)}"]
    if keyword == "maximum":
        return [f"{key_path(path)}: expected an integer <= {rule}, got {_shown(value)}"]
    if keyword == "minItems":
        return [f"{key_path(path)}: expected a list of at least {rule} item(s), got an empty list"]
    if keyword == "minLength":
        return [f"{key_path(path)}: expected a non-empty string"]
    return [f"{key_path(path)}: {error.message}"]
