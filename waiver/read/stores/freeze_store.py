"""The freeze store: a JSON list of records that humans accepted.

Only the store's shape is checked here; whether a record applies to a row is a decision
(`waiver.decide.freezes.void_reason`), made against this run's rows and `now`.
"""

from __future__ import annotations

from waiver.errors import InputError
from waiver.model import FreezeRecord
from waiver.read.untrusted.jsonfile import parse_json

MAX_STORE_BYTES = 4 << 20


def parse_freezes(data: bytes, source: str) -> tuple[FreezeRecord, ...]:
    document = parse_json(data, source)
    if not isinstance(document, list):
        raise InputError(source, "the freeze store must be a JSON list of records")
    records = []
    for index, item in enumerate(document):
        if not isinstance(item, dict):
            raise InputError(source, f"record {index} is not a JSON object")
        records.append(FreezeRecord(index, item))
    return tuple(records)
