"""Red-green evidence in a gate run (`--red-green FILE`, what `waiver red-green` wrote): read,
checked against the commits this run judges, and set beside each new or edited row.

It never changes a class. Under `review_requires: red_green` it is what an approval needs
to admit a new or edited test (`waiver.approval.admits`), and a row whose outcome is not
red-green says so (`blocks`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from waiver.decide.approval import ReviewFacts
from waiver.decide.policy import Policy
from waiver.decide.red_green_rules import RedGreenEvidence, no_evidence, requires_red_green
from waiver.model import Decision, RedGreenFinding, RedGreenOutcome, UnknownReason
from waiver.read.evidence.red_green_file import read_shards
from waiver.read.trusted.protected import ProtectedFiles

REVIEWED = (UnknownReason.NEW, UnknownReason.EDITED)
NOT_GIVEN = "no red-green replays were given (--red-green)"


def read_evidence(paths: Sequence[str], protected: ProtectedFiles) -> RedGreenEvidence | None:
    """The red-green replays, one file per shard, or None when none were given. Replays of
    another base, or of another commit of the change, are no evidence about this one: every
    row is then not run, and says why."""
    if not paths:
        return None
    found = read_shards(paths)
    evidence = RedGreenEvidence(", ".join(paths), found.runs)
    revision = protected.revision
    committed = protected.committed()
    if revision is not None and found.base != revision:
        return replace(
            evidence, problem=f"replayed on base {found.base}, not the trusted revision {revision}"
        )
    if committed is not None and found.head not in (committed.head_commit, committed.merged_head):
        return replace(
            evidence,
            problem=f"replayed the tests of commit {found.head}, not {committed.head_commit}",
        )
    return evidence


def with_red_green(
    review: ReviewFacts | None, evidence: RedGreenEvidence | None, policy: Policy
) -> ReviewFacts | None:
    if review is None or not requires_red_green(policy.review_requires):
        return review
    return replace(review, requires_red_green=True, red_green=evidence)


def annotate(decision: Decision, evidence: RedGreenEvidence | None, policy: Policy) -> Decision:
    """The decision with each new or edited row's red-green outcome beside it: only when the
    replays were given or the policy requires them."""
    required = requires_red_green(policy.review_requires)
    if evidence is None and not required:
        return decision
    judged = evidence or no_evidence("", NOT_GIVEN)
    rows = decision.rows
    found: dict[int, RedGreenFinding] = {}
    for number, finding in enumerate(rows.findings):
        if finding.unknown not in REVIEWED:
            continue
        passed = finding.replay_total >= policy.min_replays and (
            finding.replay_pass == finding.replay_total
        )
        outcome = judged.judge(rows.test_ids[number], passed, policy.min_replays)
        blocks = required and outcome.outcome is not RedGreenOutcome.RED_GREEN
        found[number] = replace(outcome, blocks=blocks)
    return replace(decision, rows=replace(rows, red_green=found))
