"""The plain `cases.json` shape, for teams that bring their own adapter."""

from __future__ import annotations

from waiver.errors import InputError
from waiver.model import Case, Evidence
from waiver.read.untrusted.jsonfile import parse_json

MAX_CASES_BYTES = 256 << 20
FIELDS = {
    "test_id": str,
    "property_ok": bool,
    "fixture_hash": str,
    "expected_fixture_hash": str,
    "outcomes": list,
    "known_test": bool,
}


def parse_cases(data: bytes, source: str) -> tuple[Case, ...]:
    document = parse_json(data, source)
    if not isinstance(document, list):
        raise InputError(source, "cases must be a JSON list of objects")
    if not document:
        raise InputError(source, "no cases: zero tests is never a green gate")
    cases = []
    seen: set[str] = set()
    for number, item in enumerate(document):
        where = f"case {number}"
        if not isinstance(item, dict):
            raise InputError(source, f"{where} is not a JSON object")
        for name, kind in FIELDS.items():
            if name not in item:
                raise InputError(source, f"{where}: missing {name}")
            if type(item[name]) is not kind:
                raise InputError(source, f"{where}: {name} must be a {kind.__name__}")
        unknown = sorted(set(item) - set(FIELDS))
        if unknown:
            raise InputError(source, f"{where}: unknown field {unknown[0]}")
        outcomes = item["outcomes"]
        if any(type(outcome) is not bool for outcome in outcomes):
            raise InputError(source, f"{where}: outcomes must be booleans")
        if item["test_id"] in seen:
            raise InputError(source, f"{where}: test id {item['test_id']!r} repeats")
        seen.add(item["test_id"])
        cases.append(
            Case(
                (item["test_id"],),
                Evidence(
                    property_ok=item["property_ok"],
                    fixture_hash=item["fixture_hash"],
                    expected_fixture_hash=item["expected_fixture_hash"],
                    outcomes=tuple(outcomes),
                    known_test=item["known_test"],
                ),
            )
        )
    return tuple(cases)
