"""Red-green evidence: does a new or edited test fail without the change?

`waiver red-green` replays such tests on the trusted base's code with the change's test
files. Beside the change's own replays that gives one outcome per row: `red_green` (it
failed every base replay, or errored because the base lacks what it uses, and passed
every replay on the change), `green_green` (it passed on the base too: it does not
exercise the change), `flaky_on_base`, or `not_run`, with why. Pure functions over data
read elsewhere; the outcome never changes a class. Only the policy
`review_requires: red_green` uses it: an approval then admits a new or edited test only
when its outcome is red-green (`waiver.decide.approval.admits`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from waiver.model import RedGreenFinding, RedGreenOutcome

RED_GREEN_POLICY = "red_green"


OUTCOME_WORDS = {
    RedGreenOutcome.RED_GREEN: "red-green: fails on the base, passes with the change",
    RedGreenOutcome.GREEN_GREEN: "green-green: passes on the base too, so it does not "
    "exercise the change",
    RedGreenOutcome.FLAKY_ON_BASE: "flaky on the base",
    RedGreenOutcome.NOT_RUN: "not run",
}

# For an edited test, what its red-green outcome says of the change's version: a test
# rewritten to what the change does fails on the base's code and passes on the change's,
# so it is no evidence that the change is right; its base version on the change's code is.
EDITED_OUTCOME_WORDS = {
    RedGreenOutcome.RED_GREEN: "the change's version fails on the base's code and passes on "
    "the change's: it pins what the change does, so its base version is the evidence",
    RedGreenOutcome.GREEN_GREEN: "the change's version passes on the base's code too",
    RedGreenOutcome.FLAKY_ON_BASE: "the change's version is flaky on the base's code",
    RedGreenOutcome.NOT_RUN: "the change's version was not run on the base's code",
}


@dataclass(frozen=True, slots=True)
class BaseRun:
    """One test's replays on the base's code: how many passed, of how many that gave it an
    outcome (a replay in which collecting its module failed counts as failed), out of the
    replays run; `why` says why a replay gave it no outcome."""

    passed: int
    total: int
    replays: int
    errored: int = 0
    why: str | None = None


@dataclass(frozen=True)
class RedGreenEvidence:
    """What `waiver red-green` left, as the gate judges it; `problem` says why none of it
    applies to this run (it replayed another base, or another commit of the change)."""

    source: str
    runs: Mapping[str, BaseRun] = field(default_factory=dict)
    problem: str | None = None

    def judge(self, test_id: str, passed_here: bool, min_replays: int) -> RedGreenFinding:
        """The row's outcome: its base replays beside whether it passed every replay of the
        change (at least `min_replays` of them)."""
        run = self.runs.get(test_id)
        if self.problem is not None:
            return RedGreenFinding(RedGreenOutcome.NOT_RUN, 0, 0, self.problem)
        if run is None:
            return RedGreenFinding(RedGreenOutcome.NOT_RUN, 0, 0, "no red-green replay of it")
        counts = (run.passed, run.total)
        if run.total < run.replays:
            why = run.why or f"an outcome in {run.total} of {run.replays} base replays"
            return RedGreenFinding(RedGreenOutcome.NOT_RUN, *counts, why)
        if run.total < min_replays:
            why = f"{run.total} base replays, fewer than min_replays ({min_replays})"
            return RedGreenFinding(RedGreenOutcome.NOT_RUN, *counts, why)
        if not passed_here:
            why = "it did not pass every replay of the change"
            return RedGreenFinding(RedGreenOutcome.NOT_RUN, *counts, why)
        if run.passed == 0:
            errored = f"errored on the base in {run.errored} replays" if run.errored else None
            return RedGreenFinding(RedGreenOutcome.RED_GREEN, *counts, errored)
        if run.passed == run.total:
            return RedGreenFinding(RedGreenOutcome.GREEN_GREEN, *counts, None)
        return RedGreenFinding(RedGreenOutcome.FLAKY_ON_BASE, *counts, None)


def no_evidence(source: str, why: str) -> RedGreenEvidence:
    return RedGreenEvidence(source, problem=why)


def requires_red_green(review_requires: tuple[str, ...]) -> bool:
    return RED_GREEN_POLICY in review_requires
