"""The history file, and a gate run's waiver.json as the history takes it.

The file is gzip-compressed JSON, written by `waiver.write.history.history_file`:

    {"format": "waiver-history", "version": 2,
     "runs": [{"commit": str | null, "time": ISO, "fixture_hash": str | null,
               "ran": int, "failed": int, "storm": bool,
               "head": str | null, "replays": int | null}, ...],
     "tests": {test id: [trace, [detail, ...], flagged, last failed ISO | null], ...}}

A trace (`waiver.decide.history_fold`) is stored run-length encoded, a token and, when it
repeats, how many times (`P97U1P2`), so a test that passed each of 1,000 runs costs a few
bytes. The file is an artifact of the default branch's workflow, yet it is read as hostile:
every count, length and id is checked, and whatever does not hold is an input error that
the callers turn into a fresh history and a warning. Version 1, written before the runs kept
the commit they replayed (`head`) and their replay count, is read too: its runs have
neither, so none of them is base evidence.
"""

from __future__ import annotations

import itertools
import os
import re
import zlib
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from waiver.decide.freezes import aware_time
from waiver.decide.history_fold import (
    DETAILED,
    TOKENS,
    History,
    HistoryRun,
    RecordedRun,
    TestHistory,
    detail,
)
from waiver.errors import InputError
from waiver.model import BaseMeaning, TestClass
from waiver.read.untrusted.files import read_small
from waiver.read.untrusted.jsonfile import parse_json

FORMAT = "waiver-history"
VERSION = 2
READABLE_VERSIONS = (1, 2)
MAX_FILE_BYTES = 64 << 20
MAX_JSON_BYTES = 512 << 20
MAX_RUNS = 10_000
MAX_ID_CHARS = 4096
_TRACE = re.compile(r"(?:[PUFKDV.]\d{0,5})*")
_SEGMENT = re.compile(r"([PUFKDV.])(\d{0,5})")
_DETAIL = re.compile(r"(\d{1,6})/(\d{1,6})[iabfnux]?")
_RUN_KEYS = {"commit", "time", "fixture_hash", "ran", "failed", "storm"}
# What a version 2 run holds beside them.
_REPLAYED_KEYS = _RUN_KEYS | {"head", "replays"}
_COMMIT = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?\Z")


def read_history(path: str) -> History | None:
    """The history at `path`; None when there is no file; an input error when it is not a
    history this version wrote."""
    if not os.path.lexists(path):
        return None
    data = read_small(path, MAX_FILE_BYTES, path)
    if not data:
        raise InputError(path, "the history file is empty")
    inflater = zlib.decompressobj(wbits=31)  # gzip only
    try:
        text = inflater.decompress(data, MAX_JSON_BYTES + 1)
    except zlib.error as error:
        raise InputError(path, f"not a gzip file: {error}") from None
    if len(text) > MAX_JSON_BYTES:
        raise InputError(path, f"the history holds more than {MAX_JSON_BYTES >> 20} MiB")
    if not inflater.eof or inflater.unused_data:
        raise InputError(path, "the gzip stream is truncated or has data after its end")
    return decode_history(parse_json(text, path), path)


def _problem(path: str, where: str, what: str) -> InputError:
    return InputError(path, f"not a waiver history at {where}: {what}")


def _time(value: object, path: str, where: str) -> datetime:
    moment = aware_time(value)
    if moment is None:
        raise _problem(path, where, "expected an ISO 8601 time with its timezone")
    return moment


def _count(value: object, path: str, where: str) -> int:
    if type(value) is not int or value < 0:
        raise _problem(path, where, "expected a count")
    return value


def _replayed(value: dict[str, Any], path: str, where: str) -> tuple[str | None, int | None]:
    """A version 2 run's replayed commit and replay count."""
    head, replays = value["head"], value["replays"]
    if not (head is None or (isinstance(head, str) and _COMMIT.match(head))):
        raise _problem(path, f"{where}/head", "expected a full commit id or null")
    return head, None if replays is None else _count(replays, path, f"{where}/replays")


def _run(value: object, path: str, where: str, version: int) -> HistoryRun:
    keys = _RUN_KEYS if version == 1 else _REPLAYED_KEYS
    if not isinstance(value, dict) or value.keys() != keys:
        raise _problem(path, where, f"expected an object of {', '.join(sorted(keys))}")
    commit, fixture_hash, storm = value["commit"], value["fixture_hash"], value["storm"]
    if not (commit is None or isinstance(commit, str)):
        raise _problem(path, f"{where}/commit", "expected a string or null")
    if not (fixture_hash is None or isinstance(fixture_hash, str)):
        raise _problem(path, f"{where}/fixture_hash", "expected a string or null")
    if not isinstance(storm, bool):
        raise _problem(path, f"{where}/storm", "expected true or false")
    ran = _count(value["ran"], path, f"{where}/ran")
    failed = _count(value["failed"], path, f"{where}/failed")
    if failed > ran:
        raise _problem(path, f"{where}/failed", "more failed than ran")
    time = _time(value["time"], path, f"{where}/time")
    head, replays = (None, None) if version == 1 else _replayed(value, path, where)
    return HistoryRun(commit, time, fixture_hash, ran, failed, storm, head, replays)


def _trace(encoded: object, runs: int, path: str, where: str) -> str:
    if not isinstance(encoded, str) or not _TRACE.fullmatch(encoded):
        raise _problem(path, where, "expected a run-length encoded trace")
    segments = [(token, int(count or 1)) for token, count in _SEGMENT.findall(encoded)]
    # Checked before the trace is spelled out: a count may not claim more runs than exist.
    if sum(count for _, count in segments) != runs:
        raise _problem(path, where, f"the trace does not cover the {runs} runs")
    return "".join(token * count for token, count in segments)


def _details(value: object, trace: str, path: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _problem(path, where, "expected a list of strings")
    if len(value) != sum(map(trace.count, DETAILED)):
        raise _problem(path, where, "one detail is needed for each run that was not a pass")
    for item in value:
        matched = _DETAIL.fullmatch(item)
        if matched is None or int(matched[1]) > int(matched[2]):
            raise _problem(path, where, f"not a detail: {item[:40]!r}")
    return tuple(value)


def valid_id(test_id: object) -> bool:
    """A test id the history keeps: a line of text, as the registry holds them."""
    return (
        isinstance(test_id, str)
        and 0 < len(test_id) <= MAX_ID_CHARS
        and not any(character in test_id for character in "\n\r\0")
    )


def _test(
    test_id: str, value: object, runs: int, path: str, steady: dict[str, TestHistory]
) -> TestHistory:
    where = f"tests/{test_id[:80]!r}"
    if not valid_id(test_id):
        raise _problem(path, where, "not a test id")
    if not isinstance(value, list) or len(value) != 4:
        raise _problem(path, where, "expected [trace, details, flagged, last failed]")
    encoded, details, flagged, last_failed = value
    if details == [] and flagged is False and last_failed is None and isinstance(encoded, str):
        # Nearly every test has one of a few such traces (passed every run since it came):
        # they share one object, checked and spelt out once.
        known = steady.get(encoded)
        if known is None:
            trace = _trace(encoded, runs, path, f"{where}/0")
            _details(details, trace, path, f"{where}/1")  # a token that needs one has none
            known = steady[encoded] = TestHistory(trace, (), False, None)
        return known
    trace = _trace(encoded, runs, path, f"{where}/0")
    if not isinstance(flagged, bool):
        raise _problem(path, f"{where}/2", "expected true or false")
    return TestHistory(
        trace,
        _details(details, trace, path, f"{where}/1"),
        flagged,
        None if last_failed is None else _time(last_failed, path, f"{where}/3"),
    )


def decode_history(document: object, path: str) -> History:
    if not isinstance(document, dict) or document.keys() != {"format", "version", "runs", "tests"}:
        raise _problem(path, "the top level", "expected format, version, runs and tests")
    version = document["version"]
    if document["format"] != FORMAT or version not in READABLE_VERSIONS:
        raise _problem(path, "the top level", f"expected format {FORMAT} version {VERSION}")
    listed, tests = document["runs"], document["tests"]
    if not isinstance(listed, list) or len(listed) > MAX_RUNS:
        raise _problem(path, "runs", f"expected a list of at most {MAX_RUNS} runs")
    runs = tuple(_run(run, path, f"runs/{number}", version) for number, run in enumerate(listed))
    if any(later.time < earlier.time for earlier, later in itertools.pairwise(runs)):
        raise _problem(path, "runs", "the runs are not in order of time")
    if not isinstance(tests, dict):
        raise _problem(path, "tests", "expected an object")
    steady: dict[str, TestHistory] = {}
    return History(
        runs, {key: _test(key, value, len(runs), path, steady) for key, value in tests.items()}
    )


def recorded_run(
    document: Mapping[str, Any], passing: list[str], head: str | None = None
) -> RecordedRun:
    """One schema-valid waiver.json as the history takes it: `passing` holds the ids of its
    stable passes, and its rows the others; `head`, the commit its replays ran. Ids no
    registry could hold are left out."""
    others: dict[str, tuple[str, str]] = {}
    for row in document["rows"]:
        if not valid_id(row["test_id"]):
            continue
        base = row.get("base")
        others[row["test_id"]] = (
            TOKENS[TestClass(row["class"])],
            detail(
                row["replay_pass"],
                row["replay_total"],
                None if base is None else BaseMeaning(base["meaning"]),
            ),
        )
    fixtures = document["fixtures"]
    return RecordedRun(
        commit=document["trusted_revision"],
        time=datetime.fromisoformat(document["generated_at"]),
        fixture_hash=None if fixtures is None else fixtures["lock_digest"],
        passing=frozenset(filter(valid_id, passing)),
        others=others,
        head=head,
        replays=None if document["replays"] is None else document["replays"]["read"],
    )
