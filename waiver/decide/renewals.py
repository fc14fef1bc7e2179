"""How often each test was frozen, for how long in all and by whom, from the versions of
the freeze store in its git history; and whether one more freeze passes `max_renewals`.

A freeze is a distinct accepted record: the same test id, issue and expiry times seen in
many versions of the store is one freeze, first accepted in the earliest commit that holds
it. Every freeze after a test's first is a renewal.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from waiver.decide.freezes import aware_time
from waiver.decide.policy import Policy


@dataclass(frozen=True)
class StoreVersion:
    """One version of the freeze store: the earliest commit that holds these bytes, who
    wrote that commit, when, and the records in it."""

    commit: str
    author: str
    time: datetime
    records: tuple[Mapping[str, object], ...]


@dataclass(frozen=True)
class FreezeTally:
    """A test's freezes over the store's history."""

    test_id: str
    times: int
    # The union of the freezes' windows, from issue to expiry, cut at `now`: overlapping
    # renewals are not counted twice, and a freeze still running counts until now.
    frozen_for: timedelta
    by: tuple[str, ...]  # each freeze's owner, else the author of the commit that added it

    @property
    def renewals(self) -> int:
        return self.times - 1


@dataclass(frozen=True)
class _Freeze:
    author: str
    window: tuple[datetime, datetime] | None


def _window(record: Mapping[str, object], now: datetime) -> tuple[datetime, datetime] | None:
    issued_at, expires_at = (
        aware_time(record.get("issued_at")),
        aware_time(record.get("expires_at")),
    )
    if issued_at is None or expires_at is None:
        return None
    end = min(expires_at, now)
    return (issued_at, end) if issued_at < end else None


def _who(record: Mapping[str, object], version: StoreVersion) -> str:
    owner = record.get("owner")
    return owner.strip() if isinstance(owner, str) and owner.strip() else version.author


def _covered(windows: Iterable[tuple[datetime, datetime]]) -> timedelta:
    total = timedelta()
    current: tuple[datetime, datetime] | None = None
    for start, end in sorted(windows):
        if current is not None and start <= current[1]:
            current = (current[0], max(current[1], end))
            continue
        if current is not None:
            total += current[1] - current[0]
        current = (start, end)
    return total if current is None else total + current[1] - current[0]


def tally(versions: Sequence[StoreVersion], now: datetime) -> dict[str, FreezeTally]:
    """Each test id ever frozen in `versions` (oldest first), sorted, with its tally."""
    freezes: dict[str, dict[str, _Freeze]] = {}
    for version in versions:
        for record in version.records:
            test_id = record.get("test_id")
            if not isinstance(test_id, str):
                continue
            key = json.dumps([record.get("issued_at"), record.get("expires_at")], sort_keys=True)
            known = freezes.setdefault(test_id, {})
            if key not in known:
                known[key] = _Freeze(_who(record, version), _window(record, now))
    return {
        test_id: FreezeTally(
            test_id,
            len(known),
            _covered(freeze.window for freeze in known.values() if freeze.window is not None),
            tuple(dict.fromkeys(freeze.author for freeze in known.values())),
        )
        for test_id, known in sorted(freezes.items())
    }


def renewal_refusal(frozen: FreezeTally | None, policy: Policy) -> str | None:
    """Why one more freeze of the test passes the policy's `max_renewals`, or None."""
    limit = policy.max_renewals
    if limit is None or frozen is None or frozen.times <= limit:
        return None
    return (
        f"it was frozen {frozen.times} times already and the policy allows "
        f"{limit} renewal{'' if limit == 1 else 's'} (max_renewals); fix the test or delete it"
    )
