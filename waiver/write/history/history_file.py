"""The history file written: gzip-compressed JSON, each trace run-length encoded, in the
format `waiver.read.stores.history_store` reads (its docstring describes it)."""

from __future__ import annotations

import gzip
import json
import re
from typing import TypedDict

from waiver.decide.history_fold import History, HistoryRun, TestHistory
from waiver.read.stores.history_store import FORMAT, VERSION
from waiver.write.files.atomic import write_atomic
from waiver.write.report.report_sections import timestamp

_REPEATS = re.compile(r"(.)\1*")


def run_length(trace: str) -> str:
    """`PPPU.` as `P3U.`: a token, and how many times it repeats when more than once."""
    if trace and trace.count(trace[0]) == len(trace):  # one token throughout: most tests
        return trace[0] if len(trace) == 1 else f"{trace[0]}{len(trace)}"
    parts = []
    for matched in _REPEATS.finditer(trace):
        count = matched.end() - matched.start()
        parts.append(matched[1] if count == 1 else f"{matched[1]}{count}")
    return "".join(parts)


class HistoryRunJson(TypedDict):
    commit: str | None
    time: str
    fixture_hash: str | None
    ran: int
    failed: int
    storm: bool
    head: str | None
    replays: int | None


def run_json(run: HistoryRun) -> HistoryRunJson:
    """One recorded run, as the history file and `history show --json` both hold it."""
    return {
        "commit": run.commit,
        "time": timestamp(run.time),
        "fixture_hash": run.fixture_hash,
        "ran": run.ran,
        "failed": run.failed,
        "storm": run.storm,
        "head": run.head,
        "replays": run.replays,
    }


def _test_json(test: TestHistory) -> list[object]:
    last = None if test.last_failed is None else timestamp(test.last_failed)
    return [run_length(test.trace), list(test.details), test.flagged, last]


def history_bytes(history: History) -> bytes:
    # Tests share their object where their history is the same (`waiver.decide.history_fold`):
    # each is encoded once.
    encoded: dict[int, list[object]] = {}
    tests = {}
    for test_id, test in sorted(history.tests.items()):
        found = encoded.get(id(test))
        if found is None:
            found = encoded[id(test)] = _test_json(test)
        tests[test_id] = found
    document = {
        "format": FORMAT,
        "version": VERSION,
        "runs": [run_json(run) for run in history.runs],
        "tests": tests,
    }
    text = json.dumps(document, separators=(",", ":"))
    # mtime 0: the same history is the same bytes, whenever it was written.
    return gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)


def write_history(path: str, history: History) -> None:
    write_atomic(path, history_bytes(history))
