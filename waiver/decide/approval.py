"""Human review the gate can see: which approval of the pull request counts, and which rows
it admits. Pure functions over data read elsewhere; no I/O.

An approval counts when it is the latest review of its user that approves, requests changes
or is dismissed, and it approves; it is of the pull request's head commit; the user has
write, maintain or admin permission; and the user is no bot, not the pull request's author,
and not the author or committer of any of its commits (and, when the policy names
`approvers`, one of them). A counted approval admits the rows that block only for review —
an edited test or a new one that passed every replay (a new one only when the change's own
registry lists it), a vanished test that the change's registry drops, and the drift of a
fixture update made as a change of its own — and nothing else. An admitted row keeps its
class and records who admitted it. Under `review_requires: red_green` a new or edited test
is admitted only when its red-green outcome is `red_green` (`waiver.decide.red_green_rules`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from waiver.decide.policy import Policy
from waiver.decide.red_green_rules import RedGreenEvidence, no_evidence
from waiver.model import Admission, Evidence, RedGreenOutcome, TestClass, UnknownReason

DECIDING_STATES = frozenset({"APPROVED", "CHANGES_REQUESTED", "DISMISSED"})
WRITE_ROLES = frozenset({"admin", "maintain", "write"})


@dataclass(frozen=True)
class Review:
    review_id: int
    login: str
    is_bot: bool
    state: str
    commit_id: str | None


@dataclass(frozen=True)
class ReviewData:
    """A pull request's reviews and what judging them needs, as read from GitHub."""

    number: int
    author: str
    head_sha: str
    reviews: tuple[Review, ...]
    commit_people: frozenset[str]  # logins of the authors and committers of its commits
    roles: dict[str, str]  # login (case-folded) to its permission or role name


@dataclass(frozen=True)
class Refusal:
    login: str
    reason: str


def _refusal(review: Review, data: ReviewData, approvers: Sequence[str] | None) -> str | None:
    login = review.login.casefold()
    if review.state != "APPROVED":
        return (
            "their latest review requests changes"
            if review.state == "CHANGES_REQUESTED"
            else ("their approval was dismissed")
        )
    if review.commit_id != data.head_sha:
        return f"approved commit {review.commit_id}, not the head {data.head_sha}"
    if review.is_bot or login.endswith("[bot]"):
        return "a bot"
    if login == data.author.casefold():
        return "the pull request's author"
    if login in data.commit_people:
        return "an author or committer of a commit of the pull request"
    role = data.roles.get(login, "none")
    if role not in WRITE_ROLES:
        return f"has {role} permission, not write, maintain or admin"
    if approvers is not None and login not in {name.casefold() for name in approvers}:
        return "not one of the policy's approvers"
    return None


def latest_reviews(reviews: Iterable[Review]) -> list[Review]:
    """Each user's latest review that approves, requests changes or is dismissed, in review
    order: a later comment withdraws nothing."""
    latest: dict[str, Review] = {}
    for review in sorted(reviews, key=lambda r: r.review_id):
        if review.state in DECIDING_STATES:
            latest[review.login.casefold()] = review
    return sorted(latest.values(), key=lambda r: r.review_id)


def count_approvals(
    data: ReviewData, approvers: Sequence[str] | None
) -> tuple[tuple[Admission, ...], tuple[Refusal, ...]]:
    """The approvals that count, in review order, and why each other reviewer's does not."""
    counted, refused = [], []
    for review in latest_reviews(data.reviews):
        reason = _refusal(review, data, approvers)
        if reason is None:
            counted.append(Admission(review.login, review.review_id, data.head_sha))
        else:
            refused.append(Refusal(review.login, reason))
    return tuple(counted), tuple(refused)


@dataclass(frozen=True)
class ReviewFacts:
    """What the gate knows beside the approval: the change's own registry (None when it
    has none) and whether the change is a fixture update of its own."""

    approval: Admission
    change_registry: Collection[str] | None
    fixture_update: bool
    # `review_requires: red_green`: a new or edited test needs the outcome red_green.
    requires_red_green: bool = False
    red_green: RedGreenEvidence | None = None

    def red_green_outcome(self, test_id: str, passed: bool, min_replays: int) -> RedGreenOutcome:
        evidence = self.red_green or no_evidence("", "no red-green replays were given")
        return evidence.judge(test_id, passed, min_replays).outcome


def admits(
    facts: ReviewFacts,
    test_id: str,
    test_class: TestClass,
    unknown: UnknownReason | None,
    evidence: Evidence,
    policy: Policy,
) -> bool:
    """Whether the approval admits this row: only what blocks for review alone."""
    passed = len(evidence.outcomes) >= policy.min_replays and all(evidence.outcomes)
    if test_class is TestClass.FIXTURE_DRIFT:
        return facts.fixture_update and evidence.property_ok
    if test_class is not TestClass.UNKNOWN_TEST or evidence.unreadable_replays:
        return False
    registry = facts.change_registry
    if (
        facts.requires_red_green
        and unknown in (UnknownReason.NEW, UnknownReason.EDITED)
        and facts.red_green_outcome(test_id, passed, policy.min_replays)
        is not RedGreenOutcome.RED_GREEN
    ):
        return False
    if unknown is UnknownReason.EDITED:
        return passed
    if unknown is UnknownReason.NEW:
        return passed and registry is not None and test_id in registry
    if unknown is UnknownReason.VANISHED:
        return registry is not None and test_id not in registry
    return False
