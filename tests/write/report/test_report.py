"""Rows of waiver.json: written from the decision's columns, exactly as the JSON encoder
would write each row's `row_json`."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from waiver.model import (
    BaseFinding,
    BaseMeaning,
    Finding,
    FreezeProposal,
    FreezeRecord,
    Row,
    Rows,
    TestClass,
    UnknownReason,
)
from waiver.write.report.report import ReportRows, row_json, split_rows

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
HASHES = st.sampled_from(["a" * 64, "b" * 64])
# Test ids are untrusted text: quotes, backslashes, control characters, non-ASCII.
IDS = st.text(max_size=12)

bases = st.builds(
    BaseFinding,
    replay_pass=st.integers(4, 5),
    replay_total=st.just(5),
    meaning=st.sampled_from([BaseMeaning.INTRODUCED, BaseMeaning.NOT_ON_BASE]),
    blocks=st.booleans(),
)
proposals = st.builds(
    FreezeProposal,
    test_id=IDS,
    fixture_hash=HASHES,
    replay_pass=st.integers(1, 4),
    replay_total=st.just(5),
    issued_at=st.just(NOW),
    expires_at=st.just(NOW),
    base=st.none() | bases,
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
    unknown=st.none() | st.sampled_from(UnknownReason),
    base=st.none() | bases,
    # Failure messages are untrusted text too, and differ from row to row.
    message=st.none() | st.text(min_size=1, max_size=12),
)


def as_columns(generated: list[Row]) -> Rows:
    """The rows as a decision holds them: rows with equal findings share one object."""
    shared: dict[Finding, Finding] = {}
    findings = []
    for row in generated:
        finding = Finding(
            row.test_class,
            row.replay_pass,
            row.replay_total,
            row.retries,
            row.fixture_hash,
            row.strict,
            row.unknown,
            row.base,
        )
        findings.append(shared.setdefault(finding, finding))
    return Rows(
        tuple(row.test_id for row in generated),
        tuple(findings),
        {number: row.freeze for number, row in enumerate(generated) if row.freeze},
        {number: row.active_freeze for number, row in enumerate(generated) if row.active_freeze},
        {number: row.message for number, row in enumerate(generated) if row.message},
    )


def encoded(generated: list[Row]) -> list[str]:
    return [json.dumps(row_json(row), separators=(", ", ": ")) for row in generated]


@given(st.lists(rows, max_size=20))
def test_each_row_line_is_the_compact_encoding_of_its_row(generated: list[Row]) -> None:
    columns = as_columns(generated)
    assert list(columns) == generated
    assert list(ReportRows(columns).lines()) == encoded(generated)


@given(st.lists(rows, max_size=20))
def test_the_columns_split_as_the_rows_read_back_do(generated: list[Row]) -> None:
    documents = [row_json(row) for row in generated]
    assert split_rows(ReportRows(as_columns(generated))) == split_rows(documents)
    assert list(ReportRows(as_columns(generated))) == documents


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
        {"unknown": UnknownReason.SHORT},
        {"base": BaseFinding(5, 5, BaseMeaning.NONE, False)},
        {"message": "assert 1 == 2"},
    ],
    ids=lambda change: next(iter(change)),
)
def test_rows_that_differ_in_one_field_after_the_id_are_written_apart(
    change: dict[str, Any],
) -> None:
    generated = [BASE, replace(BASE, **change)]
    assert list(ReportRows(as_columns(generated)).lines()) == encoded(generated)
