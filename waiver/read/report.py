"""Reading a finished waiver.json back: its bytes, checked against the shipped JSON Schema."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, cast

from waiver.errors import InputError
from waiver.read.files import read_small
from waiver.read.jsonfile import parse_json

if TYPE_CHECKING:
    import jsonschema

MAX_REPORT_BYTES = 256 << 20


@dataclass(frozen=True)
class StoredReport:
    data: bytes  # the file's bytes as read, so a caller can name exactly which report it used
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


def read_report(path: str) -> StoredReport:
    """The report at `path`; a missing, oversized, non-JSON or off-schema file is an input error."""
    data = read_small(path, MAX_REPORT_BYTES, path)
    document = parse_json(data, path)
    error = _first_error(document)
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "the top level"
        raise InputError(path, f"not a valid waiver report at {where}: {error.message}")
    # The schema requires an object at the top.
    return StoredReport(data=data, document=cast(dict[str, Any], document))
