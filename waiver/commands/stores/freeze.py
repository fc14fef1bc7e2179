"""`waiver freeze`: accept proposals into the freeze store, prune it, list it, and count
each test's freezes over its git history (freeze_history.py).

The store is the one file a human edits to let a proposal stand, so each edit is one
command whose diff is easy to review: the store is read as the gate reads it (strict JSON,
a list of objects), written atomically as a JSON list sorted by test id, with non-ASCII
spelled as `\\u` escapes so that no hidden character passes review.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from waiver.commands.flags import add_config_flag, add_now_flag, options_of
from waiver.commands.stores.freeze_history import TRUSTED_REF_HELP, renewal_counts, run_history
from waiver.commands.support import now_of
from waiver.decide.decision import check_policy
from waiver.decide.freeze_store_rules import (
    acceptance_refusal,
    base_counts,
    introduced,
    store_states,
)
from waiver.decide.freezes import ACCOUNTABLE
from waiver.decide.history_fold import History
from waiver.decide.history_rates import stable_runs
from waiver.decide.policy import Policy
from waiver.decide.renewals import FreezeTally, renewal_refusal
from waiver.errors import EXIT_CLEAR, InputError, UsageError
from waiver.read.policy.policy_file import read_policy
from waiver.read.policy.settings import Flags, effective
from waiver.read.stores.freeze_store import MAX_STORE_BYTES, parse_freezes
from waiver.read.stores.history_store import read_history
from waiver.read.stores.waiver_json import read_report
from waiver.read.trusted.protected import FromWorkingTree
from waiver.read.untrusted.files import read_small
from waiver.write.files.freeze_store_file import write_freeze_store
from waiver.write.words.escape import visible_text

Record = dict[str, object]
LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})")
MAX_FIELD_CHARS = 500


def judging_policy(config: str | None) -> Policy:
    """The policy that judges records: the policy file's, or the defaults."""
    policy_file = None if config is None else read_policy(FromWorkingTree(), config)
    policy = effective(policy_file, Flags(), ".").policy
    check_policy(policy)
    return policy


def read_store(path: str, *, may_be_missing: bool = False) -> list[Record]:
    if may_be_missing and not os.path.lexists(path):
        return []
    records = parse_freezes(read_small(path, MAX_STORE_BYTES, path), path)
    return [dict(record.fields) for record in records]


def write_store(path: str, records: Sequence[Record]) -> None:
    try:
        write_freeze_store(path, records)
    except OSError as error:
        raise InputError(path, f"cannot write the freeze store: {error.strerror}") from None


def _introduced_note(test_id: str, row: Mapping[str, Any]) -> str | None:
    """A word when the base replays show that this change made the accepted test flip."""
    if not introduced(row):
        return None
    return (
        f"note: the base replays show this change introduced the flake of "
        f"{visible_text(test_id)} ({base_counts(row)})"
    )


def accountability(given: Mapping[str, str | None], policy: Policy) -> dict[str, str]:
    """The owner, reason and tracking link a record will carry; a usage error naming what
    the policy requires and was not given, or what is not of its form."""
    missing = [name for name in policy.freeze_requires if not given.get(name)]
    if missing:
        flags = ", ".join(f"--{name}" for name in missing)
        raise UsageError(f"the policy requires {', '.join(missing)} of every freeze: give {flags}")
    fields = {name: value.strip() for name, value in given.items() if value and value.strip()}
    owner = fields.get("owner")
    if owner is not None and not LOGIN.fullmatch(owner):
        raise UsageError(f"--owner must be a GitHub login, not {visible_text(owner)}")
    tracking = fields.get("tracking")
    if tracking is not None and not tracking.startswith(("https://", "http://")):
        raise UsageError("--tracking must be an http(s) URL")
    if any(len(value) > MAX_FIELD_CHARS for value in fields.values()):
        raise UsageError(
            f"--owner, --reason and --tracking hold at most {MAX_FIELD_CHARS} characters"
        )
    return fields


def accept(
    report: str,
    test_ids: Sequence[str],
    store: str,
    policy: Policy,
    now: datetime,
    fields: Mapping[str, str] | None = None,
    frozen: Mapping[str, FreezeTally] | None = None,
) -> list[str]:
    """Copy exactly the proposals of `test_ids` from the report into the store, each with
    the owner, reason and tracking link in `fields`; under `max_renewals`, only for tests
    `frozen` (their freezes over the store's history) shows within the limit.

    All or nothing: one id that may not be accepted leaves the store as it was. A record
    already in the store for an accepted id is replaced, since the gate would void the
    second record for one test.
    """
    wanted = list(dict.fromkeys(test_ids))
    named = frozenset(wanted)
    document = read_report(report, lambda row: row["test_id"] in named).document
    if document["error"] is not None:
        raise InputError(report, "the report ended in an input error, so it has no proposals")
    if document["policy"]["introduced_instability"] == "block":
        # The gate ran under the trusted policy; a laxer --config must not undo its rule.
        policy = replace(policy, introduced_instability="block")
    rows = {row["test_id"]: row for row in document["rows"]}
    refusals = [
        f"{visible_text(test_id)}: {reason}"
        for test_id in wanted
        if (
            reason := acceptance_refusal(rows.get(test_id), policy, now)
            or renewal_refusal((frozen or {}).get(test_id), policy)
        )
        is not None
    ]
    if refusals:
        raise UsageError(f"{report}: nothing accepted; " + "; ".join(refusals))
    records = read_store(store, may_be_missing=True)
    kept = [record for record in records if record.get("test_id") not in wanted]
    lines = [
        f"replaced record {index} for {visible_text(str(record.get('test_id')))}"
        for index, record in enumerate(records)
        if record.get("test_id") in wanted
    ]
    accepted: list[Record] = [{**rows[test_id]["freeze"], **(fields or {})} for test_id in wanted]
    ordered = sorted([*kept, *accepted], key=lambda record: str(record.get("test_id")))
    write_store(store, ordered)
    notes = [note for test_id in wanted if (note := _introduced_note(test_id, rows[test_id]))]
    return (
        lines
        + [
            f"accepted the freeze of {visible_text(test_id)} until {record['expires_at']}"
            for test_id, record in zip(wanted, accepted, strict=True)
        ]
        + notes
    )


def prune(store: str, policy: Policy, now: datetime, history: History | None = None) -> list[str]:
    """Remove expired and void records, saying which and why; the rest keep their order.
    With the default branch's `history`, name each kept record whose test it shows stable
    for its window: that freeze can go, by a human's edit of the store."""
    records = read_store(store)
    states = store_states(records, policy, now)
    stable = [] if history is None else _stable_freezes(records, states, history, policy)
    removed = [
        f"removed record {index} ({visible_text(str(record.get('test_id')))}): {reason}"
        for index, (record, reason) in enumerate(zip(records, states, strict=True))
        if reason is not None
    ]
    if removed:
        write_store(store, [r for r, reason in zip(records, states, strict=True) if reason is None])
    kept = len(records) - len(removed)
    return [*removed, *stable, f"{kept} record{'' if kept == 1 else 's'} kept in {store}"]


def _stable_freezes(
    records: Sequence[Record], states: Sequence[str | None], history: History, policy: Policy
) -> list[str]:
    lines = []
    for index, (record, reason) in enumerate(zip(records, states, strict=True)):
        test_id = record.get("test_id")
        runs = None if reason is not None else stable_runs(history, str(test_id), policy)
        if runs is not None:
            lines.append(
                f"kept record {index} ({visible_text(str(test_id))}): passed each of the last "
                f"{runs} runs on main; its freeze can go: delete the record"
            )
    return lines


def _accountable(record: Record) -> str:
    """The owner, reason and tracking link a record names, for its line."""
    named = [
        f"{name} {visible_text(str(record[name]))}" for name in ACCOUNTABLE if record.get(name)
    ]
    return f" ({'; '.join(named)})" if named else ""


def list_store(store: str, policy: Policy, now: datetime) -> list[str]:
    """One line per record: valid until its expiry, or void and why; and who owns it."""
    records = read_store(store)
    lines = [
        f"record {index}: {visible_text(str(record.get('test_id')))}: "
        + (
            f"valid until {visible_text(str(record['expires_at']))}"
            if reason is None
            else f"void: {reason}"
        )
        + _accountable(record)
        for index, (record, reason) in enumerate(
            zip(records, store_states(records, policy, now), strict=True)
        )
    ]
    return lines or [f"{store} holds no records"]


@dataclass(frozen=True)
class FreezeStoreOptions:
    """What `prune` and `list` are given, and `accept` too: the store, the policy file
    that judges its records, and the time they are judged at."""

    store: str
    config: str | None
    now: datetime | None  # None: the present


@dataclass(frozen=True)
class FreezeAcceptOptions(FreezeStoreOptions):
    report: str
    test_ids: tuple[str, ...]
    owner: str | None = None
    reason: str | None = None
    tracking: str | None = None
    trusted_ref: str | None = None  # whose history of the store counts; None: HEAD


def _say(lines: list[str]) -> int:
    for line in lines:
        print(f"waiver: {line}")
    return EXIT_CLEAR


def run_accept(args: argparse.Namespace) -> int:
    options = options_of(FreezeAcceptOptions, args)
    policy = judging_policy(options.config)
    now = now_of(options.now)
    given = {"owner": options.owner, "reason": options.reason, "tracking": options.tracking}
    fields = accountability(given, policy)
    frozen, skipped = None, list[str]()
    if policy.max_renewals is not None:
        frozen, skipped = renewal_counts(options.store, options.trusted_ref, now)
    lines = accept(options.report, options.test_ids, options.store, policy, now, fields, frozen)
    return _say(skipped + lines)


def run_prune(args: argparse.Namespace) -> int:
    options = FreezeStoreOptions(store=args.store, config=args.config, now=args.now)
    policy = judging_policy(options.config)
    history = None
    if args.history is not None:
        history = read_history(args.history)
        if history is None:
            raise InputError(args.history, "no such file")
    return _say(prune(options.store, policy, now_of(options.now), history))


def run_list(args: argparse.Namespace) -> int:
    options = FreezeStoreOptions(store=args.store, config=args.config, now=args.now)
    policy = judging_policy(options.config)
    return _say(list_store(options.store, policy, now_of(options.now)))


def run_freeze_history(args: argparse.Namespace) -> int:
    return _say(run_history(args, judging_policy(args.config)))


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("freeze", help="accept, prune or list freeze-store records")
    actions = parser.add_subparsers(required=True, metavar="ACTION")
    accept = actions.add_parser(
        "accept", help="copy the freeze proposals of these tests from a report into the store"
    )
    accept.add_argument("--report", required=True, metavar="FILE", help="the gate's waiver.json")
    accept.add_argument(
        "test_ids", nargs="+", metavar="TEST_ID", help="tests whose proposal to accept"
    )
    accept.add_argument("--owner", metavar="LOGIN", help="who answers for the freeze")
    accept.add_argument("--reason", metavar="TEXT", help="why the test may stay frozen")
    accept.add_argument("--tracking", metavar="URL", help="where its fix is followed up")
    prune = actions.add_parser("prune", help="remove expired and void records, saying why")
    prune.add_argument(
        "--history",
        metavar="FILE",
        help="the default branch's history (waiver history record): name the kept records "
        "whose test passed each run of its window",
    )
    listing = actions.add_parser("list", help="show each record and whether it is void")
    history = actions.add_parser(
        "history", help="count each test's freezes in the git history of the store"
    )
    for action in (accept, history):
        action.add_argument("--trusted-ref", metavar="COMMIT", help=TRUSTED_REF_HELP)
    for action, handler in (
        (accept, run_accept),
        (prune, run_prune),
        (listing, run_list),
        (history, run_freeze_history),
    ):
        action.add_argument(
            "--store", required=True, metavar="FILE", help="the freeze store (freezes.json)"
        )
        add_config_flag(
            action, "max_freeze_hours (default 168), introduced_instability and max_renewals"
        )
        add_now_flag(action, "judge expiry at this time")
        action.set_defaults(handler=handler)
