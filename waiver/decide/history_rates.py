"""What a history says of each test: how often it flipped within a run, its transitions
between passing and failing runs weighted towards the newest (an EWMA), its failure rate,
whether it became stable, and how often it was each class. Pure; storm runs are left out of
every rate.

The gate's part is `with_history`: the history set beside the unstable and failing rows of
a decision, which keeps every class, `blocked` and the verdict as they were.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from waiver.decide.history_fold import (
    ARRIVED_WITH_CHANGE,
    DETAILED,
    THERE_BEFORE,
    History,
    TestHistory,
    failure_counts,
    without_storms,
)
from waiver.decide.policy import Policy
from waiver.model import Decision, HistoryFinding, TestClass


@dataclass(frozen=True)
class TestRates:
    __test__ = False  # not a pytest test class, despite its name

    test_id: str
    runs: int  # runs it ran in, storms left out
    flipped: int  # runs where its replays both passed and failed (unstable_assertion)
    failed: int  # runs where every replay failed (stable_assertion_fail)
    flip_rate: float  # flipped / runs: the within-run flip rate
    transitions: float  # EWMA of a change between a passing and a failing run
    score: float  # flip_rate + transitions: how much it flips, within runs and across them
    failure_rate: float | None  # (flipped + failed) / runs; None below min_history_sample
    flagged: bool
    became_stable: bool  # it failed on the branch once, and has passed every run since
    arrived_with_change: int  # unstable or failing runs whose base replays passed
    there_before: int  # unstable or failing runs whose base replays showed it too
    trace: str  # the window's tokens, storms included (the trend)
    details: tuple[str, ...]


def transitions_ewma(clean: str, weight: float) -> float:
    """The exponentially weighted rate of transitions: each run it ran in after the first
    adds 1 when it failed and the run before passed, or the other way round."""
    score = 0.0
    previous: bool | None = None
    for token in clean:
        if token == "P" or token in "UF":
            failing = token != "P"
            if previous is not None:
                score = weight * (failing != previous) + (1 - weight) * score
            previous = failing
    return score


def test_rates(history: History, test_id: str, test: TestHistory, policy: Policy) -> TestRates:
    runs, flipped, failed = failure_counts(history, test)
    failed_ever = "U" in test.trace or "F" in test.trace
    clean = without_storms(history, test.trace) if failed_ever else ""
    transitions = transitions_ewma(clean, policy.ewma_lambda)
    bases = [text[-1] for token, text in zip(_detailed(test.trace), test.details, strict=False)
             if token in "UF" and not text[-1].isdigit()]  # fmt: skip
    return TestRates(
        test_id=test_id,
        runs=runs,
        flipped=flipped,
        failed=failed,
        flip_rate=flipped / runs if runs else 0.0,
        transitions=transitions,
        score=flipped / runs + transitions if runs else transitions,
        failure_rate=(flipped + failed) / runs if runs >= policy.min_history_sample else None,
        flagged=test.flagged,
        became_stable=(
            test.last_failed is not None
            and "U" not in clean
            and "F" not in clean
            and runs >= policy.min_history_sample
        ),
        arrived_with_change=sum(letter in ARRIVED_WITH_CHANGE for letter in bases),
        there_before=sum(letter in THERE_BEFORE for letter in bases),
        trace=test.trace,
        details=test.details,
    )


def _detailed(trace: str) -> str:
    return "".join(token for token in trace if token in DETAILED)


def ranked(history: History, policy: Policy) -> list[TestRates]:
    """Every test that flipped, failed, is flagged or became stable, those that flip most
    first: by their score (flip rate within runs plus transitions across them), then by
    failure rate."""
    candidates = [
        test_rates(history, test_id, test, policy)
        for test_id, test in history.tests.items()
        if test.flagged or test.last_failed is not None or "U" in test.trace or "F" in test.trace
    ]
    # A failure in a storm run alone says nothing of the test.
    found = [
        rates
        for rates in candidates
        if rates.flagged or rates.became_stable or rates.flipped or rates.failed
    ]
    return sorted(
        found,
        key=lambda rates: (
            -rates.score,
            -(rates.flipped + rates.failed) / max(rates.runs, 1),
            rates.test_id,
        ),
    )


SHOWN_CLASSES = frozenset({TestClass.UNSTABLE_ASSERTION, TestClass.STABLE_ASSERTION_FAIL})


def with_history(decision: Decision, history: History) -> Decision:
    """The decision with the history of each unstable or failing row beside it: nothing
    else changes."""
    rows = decision.rows
    found: dict[int, HistoryFinding] = {}
    for number, (test_id, finding) in enumerate(zip(rows.test_ids, rows.findings, strict=True)):
        if finding.test_class not in SHOWN_CLASSES:
            continue
        test = history.tests.get(test_id)
        if test is None:
            continue
        runs, flipped, failed = failure_counts(history, test)
        found[number] = HistoryFinding(runs, flipped, failed, test.flagged)
    return replace(decision, rows=replace(rows, history=found))


def stable_runs(history: History, test_id: str, policy: Policy) -> int | None:
    """The runs of the window, storms left out, in which `test_id` passed, when it passed
    every one it ran in and ran in at least `min_history_sample`: stable for the window, so
    a freeze of it can go. None otherwise, or when the history does not hold it."""
    test = history.tests.get(test_id)
    if test is None:
        return None
    runs, flipped, failed = failure_counts(history, test)
    if flipped or failed or runs < policy.min_history_sample:
        return None
    return runs
