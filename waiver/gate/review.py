"""The human review a gate run can see: the pull request's approvals, counted, and the facts
that say which rows a counted approval may admit.

The reviews come from a file (`--approvals FILE`, what `waiver approvals` wrote) or from the
REST API (`--approvals github`). Any failure to read or judge them admits nothing and is
named in the report; it never stops the run. An approval is of one commit: it is judged
against the change's commit the gate checks (so `--trusted-ref` is needed), or the commit
that one merges into the base (a pull request's merge ref), and a review of another head
admits nothing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from waiver.decide.approval import ReviewFacts, count_approvals
from waiver.errors import InputError
from waiver.gate.options import GateOptions
from waiver.github.rest import ApiFailed
from waiver.github.reviews import fetch_reviews
from waiver.model import Admission, Rows, UnknownReason
from waiver.read.evidence.review_data import Unusable, read_approvals, review_data
from waiver.read.lock.drift import Fixtures
from waiver.read.lock.lock_file import MAX_LOCK_BYTES, lock_digest, parse_lock
from waiver.read.policy.settings import Settings
from waiver.read.stores.registry import MAX_REGISTRY_BYTES, registry_blocks
from waiver.read.trusted.protected import Committed, ProtectedFiles
from waiver.write.report.report_sections import admission_json
from waiver.write.report.report_types import ApprovalsJson

FROM_API = "github"


def _in_root(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def change_registry(committed: Committed, path: str | None, root: str) -> frozenset[str] | None:
    """The ids the change's own registry lists; None when it has none, or none that can be
    read as a file. A line that is no test id is an input error naming it, as in any
    registry."""
    if path is None:
        return None
    relative = _in_root(path, root)
    try:
        data = committed.head.read(relative, MAX_REGISTRY_BYTES)
    except InputError:
        return None
    if data is None:
        return None
    return frozenset(i for block in registry_blocks(data, relative) for i in block)


def change_lists(committed: Committed, path: str | None, root: str, rows: Rows) -> list[str] | None:
    """The new and vanished ids of `rows` that the change's own registry lists, for the
    writers to say which of them need a registry edit before an approval can admit them;
    None without a registry."""
    if path is None:
        return None
    listed = change_registry(committed, path, root) or frozenset()
    return [
        test_id
        for test_id, finding in zip(rows.test_ids, rows.findings, strict=True)
        if finding.unknown in (UnknownReason.NEW, UnknownReason.VANISHED) and test_id in listed
    ]


def fixture_update(committed: Committed, fixtures: Fixtures, lock: str, root: str) -> bool:
    """Whether the change is a fixture update of its own: it touches only locked files and
    the lock, and the lock it commits covers what the tree holds exactly."""
    relative = _in_root(lock, root)
    locked = {entry.path for entry in fixtures.lock} | {entry.path for entry in fixtures.state.tree}
    if not fixtures.drifted or relative not in committed.changed:
        return False
    if not committed.changed <= locked | {relative}:
        return False
    try:
        data = committed.head.read(relative, MAX_LOCK_BYTES)
        tables = fixtures.locked_set.harness.lock_tables
        entries = parse_lock(data, relative, tables) if data is not None else None
    except InputError:
        return False
    return entries is not None and lock_digest(entries) == lock_digest(fixtures.state.tree)


def read_review(
    options: GateOptions, settings: Settings, protected: ProtectedFiles, env: Mapping[str, str]
) -> tuple[Admission | None, ApprovalsJson | None]:
    """The approval that counts (None when none does), and what the report says of the
    reviews (None when none were asked for)."""
    if options.approvals is None:
        return None, None
    report: ApprovalsJson = {
        "source": options.approvals,
        "counted": [],
        "refused": [],
        "problem": None,
    }
    try:
        if options.approvals == FROM_API:
            data = review_data(fetch_reviews(env))
        else:
            data = read_approvals(options.approvals)
    except (ApiFailed, Unusable) as error:
        report["problem"] = f"no approval is counted: {error}"
        return None, report
    counted, refused = count_approvals(data, settings.policy.approvers)
    report["pull_request"] = data.number
    report["head"] = data.head_sha
    report["counted"] = [admission_json(approval) for approval in counted]
    report["refused"] = [{"login": r.login, "reason": r.reason} for r in refused]
    committed = protected.committed()
    if committed is None:
        report["problem"] = "approvals are judged on the change's commit: give --trusted-ref"
    elif data.head_sha not in (committed.head_commit, committed.merged_head):
        report["problem"] = (
            f"the reviews are of head {data.head_sha}; the gate checks {committed.head_commit}"
        )
    if report["problem"] is not None or not counted:
        return None, report
    return counted[0], report


def review_facts(
    approval: Admission | None,
    options: GateOptions,
    settings: Settings,
    protected: ProtectedFiles,
    fixtures: Fixtures,
) -> ReviewFacts | None:
    """The counted approval with what it may admit; None when none counts."""
    committed = protected.committed()
    if approval is None or committed is None:
        return None
    return ReviewFacts(
        approval,
        change_registry(committed, settings.registry, options.root),
        fixture_update(committed, fixtures, options.lock, options.root),
    )
