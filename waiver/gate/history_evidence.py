"""The default branch's history in a pull request's gate: read once, set beside the unstable
and failing rows, and — when it holds the default branch's own run of the pull request's
base commit and no base replays were given — that run's rows as the base evidence, at no
cost of replays.

Beside the rows it is evidence only: it never changes a class, `blocked` or the verdict,
and a history that is missing or cannot be read changes nothing but that. As base evidence
it counts as base replays do (`waiver.decide.history_base`), under the same policy
(`introduced_instability`); the report names the run it came from.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from waiver.decide.history_base import base_run, run_outcomes
from waiver.decide.history_fold import History, HistoryRun
from waiver.decide.history_rates import with_history
from waiver.errors import InputError
from waiver.gate.evidence import BaseStates
from waiver.model import Decision
from waiver.read.junit.stream import FAIL, PASS
from waiver.read.stores.history_store import read_history
from waiver.write.report.report_types import HistoryUsedJson
from waiver.write.words.escape import log_line


@dataclass(frozen=True)
class GateHistory:
    path: str
    history: History | None  # None: no history could be read
    problem: str | None


def load_history(path: str) -> GateHistory:
    """The history at `path`; a problem with it is a warning on stderr, and no history."""
    try:
        history = read_history(path)
        problem = None if history is not None else "no history file"
    except InputError as error:
        history, problem = None, error.problem
    if history is None:
        print(
            log_line(f"waiver: warning: {path}: {problem}; rows show no history"), file=sys.stderr
        )
    elif not history.runs:
        problem = "the history holds no run"
    return GateHistory(path, history, problem)


def history_evidence(loaded: GateHistory, decision: Decision) -> tuple[Decision, HistoryUsedJson]:
    """The decision with each unstable or failing row's history, and the report's account
    of the file."""
    used: HistoryUsedJson = {
        "path": loaded.path,
        "runs": 0 if loaded.history is None else len(loaded.history.runs),
        "problem": loaded.problem,
    }
    if loaded.history is None:
        return decision, used
    return with_history(decision, loaded.history), used


def history_base(loaded: GateHistory, commit: str) -> tuple[BaseStates, HistoryRun] | None:
    """The base evidence of a pull request on `commit` from the history's run of it, and
    that run; None when the history holds no such run."""
    history = loaded.history
    index = None if history is None else base_run(history, commit)
    if history is None or index is None:
        return None
    found: dict[tuple[bool, ...], tuple[int, ...]] = {}

    def states(test_id: str) -> tuple[int, ...] | None:
        outcomes = run_outcomes(history, index, test_id)
        if outcomes is None:
            return None
        known = found.get(outcomes)
        if known is None:
            known = found[outcomes] = tuple(PASS if passed else FAIL for passed in outcomes)
        return known

    return BaseStates(states, 0), history.runs[index]
