"""The caps on structured files: YAML counted with its aliases expanded, exactly at the cap
and one past it; JSON and TOML values by depth and nodes."""

from __future__ import annotations

import pytest

from waiver.errors import InputError
from waiver.read.untrusted.bounded import (
    MAX_DEPTH,
    MAX_NODES,
    MAX_YAML_NODES,
    check_shape,
    load_bounded_yaml,
)


def aliased(values: int) -> str:
    """A document of `values` values once expanded: a list holding an anchored list of
    strings, and a list of ten aliases to it and more strings: 2 lists, 11 times the
    anchored one, and the rest."""
    anchored = (values - 2) // 11  # the list and its strings
    inner = anchored - 1
    extra = values - 2 - 11 * anchored
    items = ", ".join(["*a"] * 10 + ["y"] * extra)
    return f"- &a [{', '.join(['x'] * inner)}]\n- [{items}]\n"


def test_aliases_read_as_plain_values_below_the_cap() -> None:
    text = "base: &base {require: ./hook.js}\nuse: *base\nmerged: {<<: *base, spec: x}\n"
    assert load_bounded_yaml(text.encode(), "a.yml") == {
        "base": {"require": "./hook.js"},
        "use": {"require": "./hook.js"},
        "merged": {"require": "./hook.js", "spec": "x"},
    }


def test_the_cap_counts_every_value_an_alias_stands_for() -> None:
    at_cap = aliased(MAX_YAML_NODES)
    document = load_bounded_yaml(at_cap.encode(), "a.yml")
    assert isinstance(document, list)
    with pytest.raises(InputError, match="more than 100,000 values"):
        load_bounded_yaml(aliased(MAX_YAML_NODES + 1).encode(), "a.yml")


def test_nesting_is_refused_one_level_past_the_cap() -> None:
    load_bounded_yaml(("[" * MAX_DEPTH + "]" * MAX_DEPTH).encode(), "a.yml")
    with pytest.raises(InputError, match=rf"a\.yml: YAML nested deeper than {MAX_DEPTH}"):
        load_bounded_yaml(("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)).encode(), "a.yml")


def test_an_alias_to_an_anchor_already_closed_is_no_cycle() -> None:
    assert load_bounded_yaml(b"a: &a [1]\nb: [*a, *a]\n", "a.yml") == {"a": [1], "b": [[1], [1]]}


def test_not_yaml_is_an_input_error_naming_the_file() -> None:
    with pytest.raises(InputError, match=r"a\.yml: not valid YAML"):
        load_bounded_yaml(b"a: [", "a.yml")


def nested(depth: int) -> object:
    value: object = 1
    for level in range(depth - 1):
        value = [value] if level % 2 else {"k": value}
    return value


def test_a_value_is_refused_past_its_depth_or_its_nodes() -> None:
    check_shape(nested(MAX_DEPTH), "package.json", "JSON")
    with pytest.raises(InputError, match=rf"package\.json: JSON nested deeper than {MAX_DEPTH}"):
        check_shape(nested(MAX_DEPTH + 1), "package.json", "JSON")
    check_shape([0] * (MAX_NODES - 1), "pyproject.toml", "TOML")
    with pytest.raises(InputError, match=r"pyproject\.toml: the TOML document holds more than"):
        check_shape([0] * MAX_NODES, "pyproject.toml", "TOML")
