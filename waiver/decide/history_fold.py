"""The default branch's history of each test: one gate run folded in at a time, bounded by
the policy's window of runs and of days. Pure: no I/O, and `now` is given.

A test's history is a trace of one token a run, oldest first, aligned with the history's
runs: `P` stable_pass, `U` unstable_assertion, `F` stable_assertion_fail, `K` unknown_test,
`D` fixture_drift, `V` property_violation, `.` not in that run. Every token but `P` and `.`
has a detail, in order: its replays passed and total, and what base replays said of it.
A trace is a string, so that the 60,000 tests of a run fold in as many string appends and
the tests that only ever passed are told apart by one search of their trace.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from waiver.decide.policy import Policy
from waiver.model import BaseMeaning, TestClass

TOKENS = {
    TestClass.STABLE_PASS: "P",
    TestClass.UNSTABLE_ASSERTION: "U",
    TestClass.STABLE_ASSERTION_FAIL: "F",
    TestClass.UNKNOWN_TEST: "K",
    TestClass.FIXTURE_DRIFT: "D",
    TestClass.PROPERTY_VIOLATION: "V",
}
ABSENT = "."
# The tokens of a run in which the test's assertions failed.
FAILING = "UF"
DETAILED = "UFKDV"
# A detail's last letter: what the row's base replays said, when the run had them.
BASE_LETTERS = {
    BaseMeaning.INTRODUCED: "i",
    BaseMeaning.ALREADY_FLAKY: "a",
    BaseMeaning.BROKEN: "b",
    BaseMeaning.ALREADY_FAILING: "f",
    BaseMeaning.NOT_ON_BASE: "n",
    BaseMeaning.BASE_UNKNOWN: "u",
    BaseMeaning.NONE: "x",
}
# Instability or failure the change brought, against what the base showed already.
ARRIVED_WITH_CHANGE = frozenset("ib")
THERE_BEFORE = frozenset("af")


@dataclass(frozen=True, slots=True)
class HistoryRun:
    """One gate run of the default branch, as the history keeps it."""

    commit: str | None  # the report's trusted revision
    time: datetime  # when the report was written
    fixture_hash: str | None  # the lock digest the run was judged against
    ran: int  # tests whose assertions ran (stable pass, unstable or failing)
    failed: int  # of those, tests where a replay failed
    storm: bool  # more than storm_failure_share of them failed: out of every rate
    # The commit the run replayed (a push's head), and its replay count: what makes its
    # rows the base evidence of a pull request on that commit. None in older histories.
    head: str | None = None
    replays: int | None = None


@dataclass(frozen=True, slots=True)
class TestHistory:
    __test__ = False  # not a pytest test class, despite its name

    trace: str  # one token a run, aligned with `History.runs`
    details: tuple[str, ...]  # "pass/total" and a base letter, for each token in DETAILED
    flagged: bool  # the hysteresis state: carried from fold to fold
    last_failed: datetime | None  # the last run it failed in, kept after that run leaves


@dataclass(frozen=True)
class History:
    runs: tuple[HistoryRun, ...] = ()
    tests: Mapping[str, TestHistory] = field(default_factory=dict)


@dataclass(frozen=True)
class RecordedRun:
    """One gate run's report, as the history takes it: the stable passes by id, and every
    other row's token and detail."""

    commit: str | None
    time: datetime
    fixture_hash: str | None
    passing: frozenset[str]
    others: Mapping[str, tuple[str, str]]  # test id: (token, detail)
    head: str | None = None  # the commit it replayed
    replays: int | None = None  # how many replays it read

    @property
    def key(self) -> tuple[str | None, datetime]:
        return self.commit, self.time


def detail(replay_pass: int, replay_total: int, base: BaseMeaning | None) -> str:
    return f"{replay_pass}/{replay_total}" + ("" if base is None else BASE_LETTERS[base])


def detailed_before(trace: str, end: int) -> int:
    """How many details the tokens before `end` hold: the index of the detail at `end`."""
    head = trace[:end]
    return sum(map(head.count, DETAILED))


def _storm(run: RecordedRun, policy: Policy) -> tuple[int, int, bool]:
    tokens = [token for token, _ in run.others.values()]
    failed = sum(token in FAILING for token in tokens)
    ran = len(run.passing) + failed
    return ran, failed, ran > 0 and failed / ran > policy.storm_failure_share


def fold(history: History, run: RecordedRun, policy: Policy, now: datetime) -> History:
    """The history with `run` folded in at its place in time, then cut to the window.

    A run already in the history (the same commit and report time) is not counted again."""
    if any((kept.commit, kept.time) == run.key for kept in history.runs):
        return history
    ran, failed, storm = _storm(run, policy)
    place = bisect.bisect_right([kept.time for kept in history.runs], run.time)
    runs = list(history.runs)
    kept = HistoryRun(
        run.commit, run.time, run.fixture_hash, ran, failed, storm, run.head, run.replays
    )
    runs.insert(place, kept)
    appended = place == len(history.runs)
    tests: dict[str, TestHistory] = {}
    # Tests that share a history object and a token share the result: the thousands that
    # passed every run become one new object, not one each.
    shared: dict[tuple[int, str, str], TestHistory] = {}
    for test_id, test in history.tests.items():
        token, text = _token_of(run, test_id)
        key = (id(test), token, text)
        found = shared.get(key)
        if found is None:
            found = shared[key] = _inserted(test, place, appended, token, text, run, storm)
        tests[test_id] = found
    absent = ABSENT * len(history.runs)
    blank = TestHistory(absent, (), False, None)
    new_pass = replace(blank, trace=absent[:place] + "P" + absent[place:])
    for test_id in run.passing.difference(history.tests):
        tests[test_id] = new_pass
    for test_id in run.others.keys() - history.tests.keys():
        token, text = run.others[test_id]
        tests[test_id] = _inserted(blank, place, appended, token, text, run, storm)
    return flag(trimmed(History(tuple(runs), tests), policy, now), policy)


def _token_of(run: RecordedRun, test_id: str) -> tuple[str, str]:
    if test_id in run.passing:
        return "P", ""
    return run.others.get(test_id, (ABSENT, ""))


def _inserted(
    test: TestHistory,
    place: int,
    appended: bool,
    token: str,
    text: str,
    run: RecordedRun,
    storm: bool,
) -> TestHistory:
    trace, details = test.trace, test.details
    if appended:
        trace += token
        if token in DETAILED:
            details += (text,)
    else:
        trace = trace[:place] + token + trace[place:]
        if token in DETAILED:
            at = detailed_before(test.trace, place)
            details = (*details[:at], text, *details[at:])
    last_failed = test.last_failed
    if token in FAILING and not storm and (last_failed is None or run.time > last_failed):
        last_failed = run.time
    return TestHistory(trace, details, test.flagged, last_failed)


def trimmed(history: History, policy: Policy, now: datetime) -> History:
    """The runs of the last `history_days` days, at most `history_runs` of them; a test that
    ran in none of them leaves the history."""
    oldest = now - timedelta(days=policy.history_days)
    runs = history.runs
    cut = max(
        bisect.bisect_left([run.time for run in runs], oldest), len(runs) - policy.history_runs
    )
    if cut <= 0:
        return history
    tests = {}
    shared: dict[int, TestHistory | None] = {}
    for test_id, test in history.tests.items():
        if id(test) not in shared:
            trace = test.trace[cut:]
            dropped = detailed_before(test.trace, cut)
            shared[id(test)] = (
                None
                if trace.count(ABSENT) == len(trace)
                else replace(test, trace=trace, details=test.details[dropped:])
            )
        kept = shared[id(test)]
        if kept is not None:
            tests[test_id] = kept
    return History(runs[cut:], tests)


def without_storms(history: History, trace: str) -> str:
    """The tokens of the runs that were no storm."""
    storms = [number for number, run in enumerate(history.runs) if run.storm]
    if not storms:
        return trace
    starts = [0, *(number + 1 for number in storms)]
    ends = [*storms, len(trace)]
    return "".join(trace[start:end] for start, end in zip(starts, ends, strict=True))


def failure_counts(history: History, test: TestHistory) -> tuple[int, int, int]:
    """Runs it ran in, flipped in and failed in, storms left out."""
    clean = without_storms(history, test.trace)
    flipped, failed = clean.count("U"), clean.count("F")
    return clean.count("P") + flipped + failed, flipped, failed


def flag(history: History, policy: Policy) -> History:
    """Each test's flag by its failure rate, with a gap between flagging and clearing: at or
    above flag_failure_rate it is flagged, below clear_failure_rate cleared, and in between,
    or with fewer runs than min_history_sample, it keeps the state it had."""
    tests = dict(history.tests)
    seen_steady: set[int] = set()
    for test_id, test in history.tests.items():
        if id(test) in seen_steady:
            continue
        if not test.flagged and "U" not in test.trace and "F" not in test.trace:
            seen_steady.add(id(test))
            continue
        runs, flipped, failed = failure_counts(history, test)
        if runs < policy.min_history_sample:
            continue
        rate = (flipped + failed) / runs
        flagged = test.flagged
        if rate >= policy.flag_failure_rate:
            flagged = True
        elif rate < policy.clear_failure_rate:
            flagged = False
        if flagged != test.flagged:
            tests[test_id] = replace(test, flagged=flagged)
    return History(history.runs, tests)
