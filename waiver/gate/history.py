"""The default branch's history in a pull request's gate: read, and set beside the
unstable and failing rows. Evidence only: it never changes a class, `blocked` or the
verdict, and a history that is missing or cannot be read changes nothing but that."""

from __future__ import annotations

import sys

from waiver.decide.history_rates import with_history
from waiver.errors import InputError
from waiver.model import Decision
from waiver.read.history import read_history
from waiver.write.escape import log_line
from waiver.write.report_types import HistoryUsedJson


def history_evidence(path: str, decision: Decision) -> tuple[Decision, HistoryUsedJson]:
    """The decision with each unstable or failing row's history, and the report's account
    of the file; a problem with it is a warning on stderr and in the report."""
    try:
        history = read_history(path)
        problem = None if history is not None else "no history file"
    except InputError as error:
        history, problem = None, error.problem
    if history is None:
        print(
            log_line(f"waiver: warning: {path}: {problem}; rows show no history"), file=sys.stderr
        )
        return decision, {"path": path, "runs": 0, "problem": problem}
    if not history.runs:
        problem = "the history holds no run"
    return with_history(decision, history), {
        "path": path,
        "runs": len(history.runs),
        "problem": problem,
    }
