"""Reading a finished waiver.json back: its bytes, checked against the shipped JSON Schema."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, cast

import jsonschema

from waiver.errors import InputError
from waiver.read.files import read_small
from waiver.read.jsonfile import parse_json

MAX_REPORT_BYTES = 256 << 20


@dataclass(frozen=True)
class StoredReport:
    data: bytes  # the file's bytes as read, so a caller can name exactly which report it used
    document: dict[str, Any]


def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(
        resources.files("waiver").joinpath("schemas/waiver-report.schema.json").read_text("utf-8")
    )
    return jsonschema.Draft202012Validator(schema)


def read_report(path: str) -> StoredReport:
    """The report at `path`; a missing, oversized, non-JSON or off-schema file is an input error."""
    data = read_small(path, MAX_REPORT_BYTES, path)
    document = parse_json(data, path)
    error = jsonschema.exceptions.best_match(_validator().iter_errors(document))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "the top level"
        raise InputError(path, f"not a valid waiver report at {where}: {error.message}")
    # The schema requires an object at the top.
    return StoredReport(data=data, document=cast(dict[str, Any], document))
