"""The freeze store as `waiver freeze` writes it: a JSON list of records sorted as given,
two-space indented, non-ASCII spelled as `\\u` escapes so that no hidden character passes
review, written atomically."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from waiver.write.files.atomic import write_atomic


def render_store(records: Sequence[Mapping[str, object]]) -> str:
    return json.dumps([dict(record) for record in records], indent=2, ensure_ascii=True) + "\n"


def write_freeze_store(path: str, records: Sequence[Mapping[str, object]]) -> None:
    write_atomic(path, render_store(records))
