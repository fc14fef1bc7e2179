"""The renderers' report types name exactly the keys of the shipped schema, required
where the schema requires them, so the two cannot drift apart."""

from __future__ import annotations

from typing import Any

import pytest

from helpers.support import SCHEMA
from waiver.model import BaseMeaning, RedGreenOutcome, TestClass
from waiver.read.definitions.edit_kinds import KINDS
from waiver.write.report import report_types

# Each type, and the place of its object in the schema.
PLACES: dict[str, str] = {
    "ReportJson": "",
    "ToolJson": "/properties/tool",
    "PolicyJson": "/properties/policy",
    "PolicyBindingJson": "/properties/policy/properties/bindings/items",
    "LimitsJson": "/properties/policy/properties/limits",
    "RowJson": "/$defs/row",
    "RowBaseJson": "/$defs/base",
    "RowRedGreenJson": "/$defs/red_green",
    "ProposalJson": "/$defs/proposal",
    "StoredJson": "/$defs/stored",
    "VoidRecordJson": "/properties/freezes/properties/void/items",
    "FreezesJson": "/properties/freezes",
    "FixturesJson": "/properties/fixtures",
    "DriftJson": "/properties/fixtures/properties/drift/items",
    "FixtureBindingJson": "/properties/fixtures/properties/bindings/items",
    "ProtectedChangeJson": "/properties/fixtures/properties/protected_changes/items",
    "CommittedChangeJson": "/properties/fixtures/properties/committed_changes/items",
    "RunnerReachJson": "/properties/fixtures/properties/runner_reach/items",
    "PropertiesJson": "/properties/properties",
    "FewCasesJson": "/properties/properties/properties/few_cases/items",
    "ReplaysJson": "/properties/replays",
    "ReplayErrorJson": "/properties/replays/properties/errors/items",
    "CollapsedIdJson": "/properties/replays/properties/collapsed/items",
    "RegistryJson": "/properties/registry",
    "EditedTestJson": "/properties/registry/properties/edited/items",
    "EditKindJson": "/properties/registry/properties/edited/items/properties/findings/items",
    "ApprovalsJson": "/properties/approvals",
    "ProvenanceJson": "/properties/provenance",
    "HistoryUsedJson": "/properties/history",
    "RowHistoryJson": "/$defs/row/properties/history",
    "RowBaseVersionJson": "/$defs/base_version",
    "ChangeTestsJson": "/properties/change_tests",
    "RefusedJson": "/properties/approvals/properties/refused/items",
    "AdmittedByJson": "/$defs/admission",
    "ErrorJson": "/properties/error",
    "BaseJson": "/properties/base",
    "HistoryRunJson": "/properties/base/properties/history_run",
    "CostJson": "/properties/cost",
}


def at(pointer: str) -> dict[str, Any]:
    node: dict[str, Any] = SCHEMA
    for part in filter(None, pointer.split("/")):
        node = node[part]
    return node


def keys(node: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(required, every) key of a schema object, through `$ref` and `allOf`."""
    if "$ref" in node:
        return keys(at(node["$ref"].removeprefix("#")))
    required, every = set(node.get("required", [])), set(node.get("properties", {}))
    for part in node.get("allOf", []):
        if "$ref" in part:
            more_required, more = keys(part)
            required |= more_required
            every |= more
    return required, every


@pytest.mark.parametrize("name", sorted(PLACES))
def test_each_type_has_the_keys_of_its_schema_object(name: str) -> None:
    typed = getattr(report_types, name)
    required, every = keys(at(PLACES[name]))

    assert set(typed.__required_keys__) == required
    assert set(typed.__required_keys__ | typed.__optional_keys__) == every


def test_every_type_of_the_module_is_checked() -> None:
    typed_dicts = {
        name
        for name, value in vars(report_types).items()
        if isinstance(value, type) and hasattr(value, "__required_keys__")
    }

    assert typed_dicts == set(PLACES)


def test_the_maps_by_name_have_the_names_the_renderers_look_up() -> None:
    assert set(at("/properties/counts")["required"]) == {c.value for c in TestClass}
    assert set(at("/properties/base/properties/meanings")["required"]) == {
        m.value for m in BaseMeaning
    }


def test_the_kinds_of_edit_are_the_ones_the_findings_name() -> None:
    place = PLACES["EditKindJson"] + "/properties/kind"
    assert tuple(at(place)["enum"]) == KINDS


def test_the_red_green_outcomes_are_the_models() -> None:
    assert at("/$defs/red_green/properties/outcome")["enum"] == [o.value for o in RedGreenOutcome]
