"""The policy file, `waiver.yml`: plain YAML checked against the JSON Schema shipped with waiver.

A policy file sets the gate's numbers and can tighten it (strict tests, fixture bindings,
caps). No key can waive a closed class, skip the property step or make an unknown test
pass: the schema has no such key, and an unknown key is an error, never ignored.
Command-line flags override the file and the file overrides the defaults; the effective
`Settings` record which of the three each value came from.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from waiver.errors import InputError
from waiver.model import Policy
from waiver.read.files import split_relative
from waiver.read.protected import ProtectedFiles
from waiver.read.replay import Limits

if TYPE_CHECKING:
    import jsonschema
    import yaml
    from yaml.nodes import Node

MAX_CONFIG_BYTES = 1 << 20
# `registry: none` in the policy file: no known-tests registry, on purpose.
NO_REGISTRY = "none"
MAX_INTEGER_CHARS = 20
YAML_TAG = "tag:yaml.org,2002:"
PLAIN_TAGS = frozenset(
    YAML_TAG + name for name in ("str", "int", "float", "bool", "null", "seq", "map")
)
# The plain scalars that YAML 1.2's core schema and YAML 1.1 both read as something other
# than a string, spelt the way both read alike. Any other plain scalar is a string here;
# when YAML 1.1 reads it otherwise (`1:00` as 60, `yes` and `on` as true, `017` as 15,
# `0x1f`, `1_000`, `.inf`, a date) the file is refused, so no reader can take it another way.
PLAIN_SCALARS = (
    ("bool", r"true|True|TRUE|false|False|FALSE"),
    ("int", r"[-+]?(?:0|[1-9][0-9]*)"),
    ("float", r"[-+]?(?:0|[1-9][0-9]*)\.[0-9]*(?:[eE][-+][0-9]+)?"),
    ("null", r"~|null|Null|NULL|"),
)
EXPECTED_TYPES = {
    "integer": "an integer",
    "string": "a string",
    "array": "a list",
    "object": "a mapping",
}
DEFAULT_POLICY = Policy()
DEFAULT_LIMITS = Limits()

Source = Literal["default", "file", "flag"]
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
    strict: tuple[str, ...] | None = None
    introduced_instability: Literal["review", "block"] | None = None
    fixtures: tuple[str, ...] | None = None
    bindings: tuple[Binding, ...] | None = None
    harness: tuple[str, ...] | None = None
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
    bindings: tuple[Binding, ...] = ()
    harness: tuple[str, ...] = ()  # globs added to the built-in harness files, never removing one
    registry: str | None = None
    # The policy file says `registry: none`: the run goes without one on purpose, so its
    # absence does not block.
    registry_none: bool = False
    freezes: str | None = None
    limits: Limits = field(default_factory=Limits)
    config: str | None = None
    sources: Mapping[str, Source] = field(default_factory=dict)


def key_path(parts: Iterable[str | int]) -> str:
    """`bindings[0].tests` style: how a message names a place in the file."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text or "(top level)"


def _tag(tag: str) -> str:
    return "!!" + tag.removeprefix(YAML_TAG) if tag.startswith(YAML_TAG) else tag


@cache
def _loader() -> type[yaml.SafeLoader]:
    """yaml.SafeLoader that resolves only the PLAIN_SCALARS; any other plain scalar is a string."""
    import yaml

    class PlainLoader(yaml.SafeLoader):
        pass

    PlainLoader.yaml_implicit_resolvers = {}
    for name, pattern in PLAIN_SCALARS:
        # No first characters given: every plain scalar is matched against every pattern.
        PlainLoader.add_implicit_resolver(YAML_TAG + name, re.compile(pattern + r"\Z"), None)
    return PlainLoader


def _yaml_1_1_tag(node: Node) -> str:
    """The tag YAML 1.1 (yaml.SafeLoader's resolver) gives the plain scalar `node`."""
    from yaml.nodes import ScalarNode
    from yaml.resolver import Resolver

    tag: str = Resolver().resolve(ScalarNode, node.value, (True, False))  # type: ignore[no-untyped-call]
    return tag


def _check_nodes(node: Node, path: list[str | int], seen: set[int], source: str) -> None:
    """Plain values only: no tags beyond YAML's own scalars and collections, no aliases,
    string keys given once, no plain scalar YAML 1.1 would read otherwise. Checked on the
    node tree, before any object is constructed."""
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    where = key_path(path)
    if id(node) in seen:
        raise InputError(source, f"{where}: YAML aliases are not allowed in a policy file")
    seen.add(id(node))
    line = node.start_mark.line + 1 if node.start_mark is not None else 0
    if node.tag not in PLAIN_TAGS:
        raise InputError(
            source,
            f"{where}: the YAML tag {_tag(node.tag)} (line {line}) is not allowed; "
            "a policy file holds plain values only",
        )
    if isinstance(node, ScalarNode) and node.style is None:
        older = _yaml_1_1_tag(node)
        if older != node.tag:
            raise InputError(
                source,
                f"{where}: YAML 1.1 reads the plain value {node.value[:60]!r} (line {line}) "
                f"as {_tag(older)}, other YAML readers as {_tag(node.tag)}; quote it, or "
                "write a plain decimal number or true/false",
            )
    if node.tag == YAML_TAG + "int" and len(node.value) > MAX_INTEGER_CHARS:
        # Python refuses to build an int from thousands of digits; say so before it tries.
        raise InputError(
            source, f"{where}: expected an integer, got a number {len(node.value)} characters long"
        )
    if isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            _check_nodes(item, [*path, index], seen, source)
    elif isinstance(node, MappingNode):
        keys: set[str] = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode) or key_node.tag != YAML_TAG + "str":
                shown = f": {key_node.value!r}" if isinstance(key_node, ScalarNode) else ""
                key_line = key_node.start_mark.line + 1 if key_node.start_mark is not None else 0
                raise InputError(
                    source, f"{where}: a key (line {key_line}) is not a plain string{shown}"
                )
            key = key_node.value
            if key in keys:
                raise InputError(source, f"{key_path([*path, key])}: the key is given twice")
            keys.add(key)
            _check_nodes(value_node, [*path, key], seen, source)


def load_yaml(data: bytes, source: str) -> object:
    # Imported here, like jsonschema below: only a run with a policy file pays for yaml's
    # import (0.02 s).
    import yaml

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(source, f"not UTF-8 ({error.reason} at byte {error.start})") from None
    try:
        return _safe_load(text, source)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        what = ", ".join(part for part in (error.context, error.problem) if part)
        raise InputError(source, f"not valid YAML: {what}{where}") from None
    except yaml.YAMLError as error:
        raise InputError(source, f"not valid YAML: {error}") from None
    except RecursionError:
        raise InputError(source, "not valid YAML: nested too deep") from None


def _safe_load(text: str, source: str) -> object:
    """yaml.safe_load in its two halves, so that the node tree is checked first."""
    loader = _loader()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise InputError(source, "the policy file is empty; write {} to take every default")
        _check_nodes(node, [], set(), source)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _integer(_: object, value: object) -> bool:
    # JSON Schema counts 24.0 as an integer, and Python counts True as one; a policy does not.
    return isinstance(value, int) and not isinstance(value, bool)


@cache
def _validator() -> jsonschema.protocols.Validator:
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


def _problems(error: jsonschema.ValidationError) -> list[str]:
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


def _relative(data: Mapping[str, Any], key: str, source: str) -> str | None:
    value: str | None = data.get(key)
    if value is not None:
        split_relative(value, f"{source}: {key}")
    return value


def _tuple(values: list[str] | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(values)


def parse_config(data: bytes, source: str) -> PolicyFile:
    document = load_yaml(data, source)
    errors = _validator().iter_errors(cast(Any, document))
    problems = sorted({line for error in errors for line in _problems(error)})
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
        strict=_tuple(document.get("strict")),
        introduced_instability=document.get("introduced_instability"),
        fixtures=_tuple(document.get("fixtures")),
        bindings=None
        if bindings is None
        else tuple(Binding(tuple(b["tests"]), tuple(b["fixtures"])) for b in bindings),
        harness=_tuple(document.get("harness")),
        registry=NO_REGISTRY
        if document.get("registry") == NO_REGISTRY
        else _relative(document, "registry", source),
        freezes=_relative(document, "freezes", source),
        max_report_bytes=limits.get("max_report_bytes"),
        max_files_per_replay=limits.get("max_files_per_replay"),
    )
    _check_window(policy_file)
    return policy_file


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


def read_config(protected: ProtectedFiles, path: str) -> PolicyFile:
    """The policy file, read like the lock: from the trusted revision when there is one."""
    return parse_config(protected.read(path, MAX_CONFIG_BYTES), path)


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
        introduced_instability=pick(
            "introduced_instability",
            None,
            given.introduced_instability,
            DEFAULT_POLICY.introduced_instability,
        ),
    )
    return Settings(
        policy=policy,
        fixtures=pick("fixtures", flags.fixtures, given.fixtures, ()),
        bindings=pick("bindings", None, given.bindings, ()),
        harness=pick("harness", None, given.harness, ()),
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
