"""Rows of waiver.json: the fast row writer writes exactly what the JSON encoder would."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from waiver.model import FreezeProposal, FreezeRecord, Row, TestClass
from waiver.write.report import row_json, row_lines

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
HASHES = st.sampled_from(["a" * 64, "b" * 64])
# Test ids are untrusted text: quotes, backslashes, control characters, non-ASCII.
IDS = st.text(max_size=12)

proposals = st.builds(
    FreezeProposal,
    test_id=IDS,
    fixture_hash=HASHES,
    replay_pass=st.integers(1, 4),
    replay_total=st.just(5),
    issued_at=st.just(NOW),
    expires_at=st.just(NOW),
)
# Few values per field, so that rows alike in all but one field are common.
rows = st.builds(
    Row,
    test_id=IDS,
    test_class=st.sampled_from([TestClass.STABLE_PASS, TestClass.UNKNOWN_TEST]),
    replay_pass=st.integers(4, 5),
    replay_total=st.integers(4, 5),
    retries=st.integers(0, 1),
    fixture_hash=HASHES,
    strict=st.booleans(),
    freeze=st.none() | proposals,
    active_freeze=st.none() | st.builds(FreezeRecord, st.just(0), st.just({"test_id": "x"})),
)


@given(st.lists(rows, max_size=20))
def test_each_row_line_is_the_compact_encoding_of_its_row(generated: list[Row]) -> None:
    documents = [row_json(row) for row in generated]
    expected = [json.dumps(document, separators=(", ", ": ")) for document in documents]
    assert list(row_lines(documents)) == expected


BASE = Row("t", TestClass.STABLE_PASS, 5, 5, 0, "a" * 64, False, None, None)


@pytest.mark.parametrize(
    "change",
    [
        {"test_class": TestClass.UNKNOWN_TEST},
        {"replay_pass": 4},
        {"replay_total": 6},
        {"retries": 1},
        {"fixture_hash": "b" * 64},
        {"strict": True},
    ],
    ids=lambda change: next(iter(change)),
)
def test_rows_that_differ_in_one_field_after_the_id_are_written_apart(
    change: dict[str, Any],
) -> None:
    documents = [row_json(BASE), row_json(replace(BASE, **change))]
    expected = [json.dumps(document, separators=(", ", ": ")) for document in documents]
    assert list(row_lines(documents)) == expected
