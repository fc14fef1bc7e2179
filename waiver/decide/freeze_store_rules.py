"""What may enter the freeze store and what must leave it: the rules `waiver freeze accept`
and `prune` apply, pure, over a report's rows and the store's records.

A proposal enters only when the gate would honour the record it becomes: not for a strict
test, not for an instability the policy blocks (under `introduced_instability: block`
only a test the base shows flipping too may be frozen, as in the gate: the store is read
from the trusted revision, so a proposal made under a laxer policy must not get in
through it), and not when the record would be void. A record leaves when the gate would
void it whatever the run's rows: expired, malformed, or a second record for one test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from waiver.decide.freezes import DUPLICATE, record_void_reason
from waiver.decide.policy import Policy
from waiver.model import BaseMeaning, FreezeRecord, TestClass

Record = Mapping[str, object]


def base_counts(row: Mapping[str, Any]) -> str:
    base = row["base"]
    return (
        f"base {base['replay_pass']}/{base['replay_total']}, "
        f"change {row['replay_pass']}/{row['replay_total']}"
    )


def _introduced_refusal(row: Mapping[str, Any]) -> str:
    """Why `introduced_instability: block` refuses the proposal of an unstable row."""
    rule = "the policy says introduced_instability: block and "
    base = row.get("base")
    if base is None:
        return rule + "the report has no base replays to show the test flipping on the base"
    if base["meaning"] == BaseMeaning.INTRODUCED:
        return rule + f"the base replays show this change introduced the flake ({base_counts(row)})"
    return rule + f"the base replays do not show the test flipping ({base_counts(row)})"


def acceptance_refusal(row: Mapping[str, Any] | None, policy: Policy, now: datetime) -> str | None:
    """Why the proposal of `row` (a waiver.json row) may not enter the store, or None."""
    if row is None:
        return "no row in the report"
    if row["strict"]:
        return "matches a strict pattern of the policy, so it never gets a freeze"
    base = row.get("base")
    if (
        row["class"] == TestClass.UNSTABLE_ASSERTION
        and policy.introduced_instability == "block"
        and (base is None or base["meaning"] != BaseMeaning.ALREADY_FLAKY)
    ):
        return _introduced_refusal(row)
    proposal = row["freeze"]
    if proposal is None:
        return f"no freeze proposal (the test is {row['class']})"
    reason = record_void_reason(FreezeRecord(0, proposal), policy, now)
    return None if reason is None else f"the proposal is void: {reason}"


def introduced(row: Mapping[str, Any]) -> bool:
    """Whether the base replays show that the change made the row's test flip."""
    base = row.get("base")
    return base is not None and base["meaning"] == BaseMeaning.INTRODUCED


def store_states(records: Sequence[Record], policy: Policy, now: datetime) -> list[str | None]:
    """Each record's void reason as far as it is known without a run's rows, else None.

    Only the first valid record of a test can apply, as in the gate.
    """
    seen: set[str] = set()
    states: list[str | None] = []
    for index, fields in enumerate(records):
        reason = record_void_reason(FreezeRecord(index, fields), policy, now)
        test_id = fields.get("test_id")
        if reason is None and not isinstance(test_id, str):
            reason = "test_id is not a string"
        elif reason is None and test_id in seen:
            reason = DUPLICATE
        if reason is None:
            seen.add(str(test_id))
        states.append(reason)
    return states
