"""Reading a finished waiver.json back: its bytes, checked against the shipped JSON Schema.

A report of 64,000 tests is some 20 MB, and checking every row with jsonschema took ten
times as long as the gate that wrote it. So a reader checks with the schema what it uses:
everything but the rows and the skipped list, and the rows it asks for. Every other row
is only checked to be an object with a string test id and one of the six classes, so that asking for rows
is well defined; the skipped list is checked to hold strings.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, cast

from waiver.errors import InputError
from waiver.model import TestClass
from waiver.read.untrusted.files import read_small
from waiver.read.untrusted.jsonfile import parse_json

if TYPE_CHECKING:
    import jsonschema

MAX_REPORT_BYTES = 256 << 20
CLASS_NAMES = frozenset(test_class.value for test_class in TestClass)

RowFilter = Callable[[Mapping[str, Any]], bool]


@dataclass(frozen=True)
class StoredReport:
    data: bytes  # the file's bytes as read, so a caller can name exactly which report it used
    # The document, its `rows` cut down to the rows asked for, in the report's order.
    document: dict[str, Any]


def _first_error(document: object) -> jsonschema.ValidationError | None:
    """The most telling way `document` breaks the shipped schema, if it does."""
    # Imported here: only the commands that read a report back pay for jsonschema (0.07 s).
    import jsonschema

    schema = json.loads(
        resources.files("waiver").joinpath("schemas/waiver-report.schema.json").read_text("utf-8")
    )
    validator = jsonschema.Draft202012Validator(schema)
    error: jsonschema.ValidationError | None = jsonschema.exceptions.best_match(
        validator.iter_errors(document)
    )
    return error


def _row_shape(rows: object, path: str) -> list[Mapping[str, Any]]:
    """The rows, each an object with a string test id and a class, or an input error."""
    if not isinstance(rows, list):
        raise InputError(path, "not a valid waiver report at rows: expected a list")
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            raise InputError(path, f"not a valid waiver report at rows/{index}: not an object")
        if not isinstance(row.get("test_id"), str):
            raise InputError(
                path, f"not a valid waiver report at rows/{index}/test_id: not a string"
            )
        if row.get("class") not in CLASS_NAMES:
            raise InputError(
                path, f"not a valid waiver report at rows/{index}/class: not one of the classes"
            )
    return cast(list[Mapping[str, Any]], rows)


def read_report(path: str, uses: RowFilter = lambda row: True) -> StoredReport:
    """The report at `path` with the rows `uses` picks; a missing, oversized, non-JSON or
    off-schema file is an input error, and so is a picked row that breaks the schema."""
    data = read_small(path, MAX_REPORT_BYTES, path)
    document = parse_json(data, path)
    if not isinstance(document, dict):
        raise InputError(path, "not a valid waiver report at the top level: not an object")
    picked: list[int] = []
    if "rows" in document:
        rows = _row_shape(document["rows"], path)
        picked = [index for index, row in enumerate(rows) if uses(row)]
        document["rows"] = [rows[index] for index in picked]
    skipped = document.get("skipped")
    if isinstance(skipped, list) and all(isinstance(test_id, str) for test_id in skipped):
        error = _first_error({**document, "skipped": []})
    else:
        error = _first_error(document)
    if error is not None:
        parts = list(error.absolute_path)
        if len(parts) > 1 and parts[0] == "rows" and isinstance(parts[1], int):
            parts[1] = picked[parts[1]]  # the row's place in the file, not among those picked
        where = "/".join(str(part) for part in parts) or "the top level"
        raise InputError(path, f"not a valid waiver report at {where}: {error.message}")
    return StoredReport(data=data, document=document)
