"""`waiver freeze history`, and the count of renewals `waiver freeze accept` checks.

Both read the freeze store's git history at a trusted commit (the one checked out, or
--trusted-ref), never the working tree's store: the count of a test's freezes must not
come from a file the change being judged can edit.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from datetime import datetime, timedelta

from dulwich.repo import Repo

from waiver.commands.support import now_of
from waiver.decide.policy import Policy
from waiver.decide.renewals import FreezeTally, tally
from waiver.errors import InputError
from waiver.read.trusted.git import UNREADABLE, GitRevision, head_commit
from waiver.read.trusted.store_history import StoreHistory, read_store_history
from waiver.write.words.escape import visible_text

TRUSTED_REF_HELP = (
    "the full commit id whose git history of the store counts (default: the commit "
    "checked out in the store's clone)"
)


def store_history(store: str, trusted_ref: str | None) -> StoreHistory:
    """The store's versions in the git history of `trusted_ref`, else of the commit checked
    out in the clone that holds the store."""
    folder = os.path.dirname(os.path.abspath(store))
    if trusted_ref is None:
        try:
            repository = Repo.discover(folder)
        except UNREADABLE:
            raise InputError(store, "the freeze store is not inside a git clone") from None
        trusted_ref = head_commit(repository, folder).id.decode("ascii")
    return read_store_history(GitRevision(folder, trusted_ref), store)


def _cut_line(history: StoreHistory) -> str:
    return (
        f"the history of {visible_text(history.path)} stops short of commit "
        f"{history.cut[0]}'s parents (a shallow clone?): freezes before it are not counted"
    )


def renewal_counts(
    store: str, trusted_ref: str | None, now: datetime
) -> tuple[dict[str, FreezeTally], list[str]]:
    """Each test's freezes, for `accept` under `max_renewals`, and the versions skipped.

    A history cut short is an input error: it would count too few renewals. A version
    that does not parse is skipped, as the gate could never have read a freeze from it.
    """
    history = store_history(store, trusted_ref)
    if history.cut:
        raise InputError(store, _cut_line(history) + "; fetch the whole history to count them")
    return tally(history.versions, now), _skipped_lines(history)


def _skipped_lines(history: StoreHistory) -> list[str]:
    return [
        f"skipped {visible_text(history.path)} as of commit {skipped.commit}: "
        f"{visible_text(skipped.reason)}"
        for skipped in history.skipped
    ]


def _hours(length: timedelta) -> str:
    hours = round(length.total_seconds() / 3600, 1)
    return f"{hours:g} h"


def _tally_line(frozen: FreezeTally, policy: Policy) -> str:
    renewals = f"{frozen.renewals} renewal{'' if frozen.renewals == 1 else 's'}"
    line = (
        f"{visible_text(frozen.test_id)}: frozen {frozen.times} "
        f"time{'' if frozen.times == 1 else 's'} ({renewals}), {_hours(frozen.frozen_for)} in "
        f"all, by {', '.join(visible_text(who) for who in frozen.by)}"
    )
    if policy.max_renewals is not None and frozen.times > policy.max_renewals:
        line += f"; freeze accept refuses another (max_renewals {policy.max_renewals})"
    return line


def history_lines(
    history: StoreHistory, tallies: Mapping[str, FreezeTally], policy: Policy
) -> list[str]:
    """One line per test ever frozen, then the versions skipped and where history stops."""
    lines = [_tally_line(frozen, policy) for frozen in tallies.values()] or [
        f"no test was ever frozen in the history of {visible_text(history.path)} "
        f"at {history.revision}"
    ]
    lines += _skipped_lines(history)
    if history.cut:
        lines.append(_cut_line(history))
    return lines


def run_history(args: argparse.Namespace, policy: Policy) -> list[str]:
    history = store_history(args.store, args.trusted_ref)
    return history_lines(history, tally(history.versions, now_of(args.now)), policy)
