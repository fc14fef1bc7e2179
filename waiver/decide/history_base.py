"""A pull request's base evidence from the default branch's own runs: when the history holds
a gate run of the pull request's base commit, that run's replays are the base replays, at
no cost. Pure; the history is read elsewhere.

The run is the newest the history keeps whose replayed commit (`HistoryRun.head`) is the
base, and no storm (a run where most tests failed says more of the runner than of the
tests). A test's outcomes there: a stable pass passed every replay the run read; an
unstable, failing or unknown row keeps its replays passed and total in its detail; a row
judged without replays (fixture drift, a property violation) has none, so its base is
unknown; a test the run did not have was not on the base.
"""

from __future__ import annotations

import re

from waiver.decide.history_fold import ABSENT, History, HistoryRun, detailed_before

_COUNTS = re.compile(r"(\d+)/(\d+)")


def base_run(history: History, commit: str) -> int | None:
    """The index of the newest run that replayed `commit` and was no storm; None when the
    history holds none (or only runs from before it kept their commit and replay count)."""
    for index in range(len(history.runs) - 1, -1, -1):
        run = history.runs[index]
        if run.head == commit and run.replays is not None and not run.storm:
            return index
    return None


def run_outcomes(history: History, index: int, test_id: str) -> tuple[bool, ...] | None:
    """The test's replay outcomes in run `index` (passes first: their order is not kept);
    None when the run did not have the test."""
    run: HistoryRun = history.runs[index]
    test = history.tests.get(test_id)
    token = ABSENT if test is None else test.trace[index]
    if test is None or token == ABSENT:
        return None
    if token == "P":
        return (True,) * (run.replays or 0)
    found = _COUNTS.match(test.details[detailed_before(test.trace, index)])
    if found is None or token in "DV":
        return ()
    passed, total = int(found[1]), int(found[2])
    return (True,) * passed + (False,) * (total - passed)
