"""How the gate reads one report file, in one line: `waiver inspect`.

The file is read exactly as one replay of the gate reads it, so the counts are the
gate's: an id passed when every occurrence and attempt of it passed, failed when any
failed, and was skipped when no occurrence ran.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from waiver.errors import InputError
from waiver.read.junit.producer import guess_producer
from waiver.read.junit.replay_reports import Limits, read_single
from waiver.read.junit.stream import FAIL, PASS
from waiver.read.junit.testid import TestIdRule


@dataclass(frozen=True)
class ReportOverview:
    path: str
    producer: str | None
    testcases: int
    passed: int
    failed: int
    skipped: int
    retries: int

    @property
    def test_ids(self) -> int:
        return self.passed + self.failed + self.skipped

    def line(self) -> str:
        return (
            f"{self.path}: {self.producer or 'unrecognised tool'}; "
            f"{_count(self.test_ids, 'test id', 'test ids')} from "
            f"{_count(self.testcases, 'testcase', 'testcases')}: "
            f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped; "
            f"{_count(self.retries, 'retry', 'retries')}"
        )


def _count(number: int, singular: str, plural: str) -> str:
    return f"{number} {singular if number == 1 else plural}"


def overview(path: str, rule: TestIdRule, limits: Limits) -> ReportOverview:
    if os.path.isdir(path):
        raise InputError(path, "a folder; name the report files in it")
    tally = read_single(path, rule, limits)
    states = tally.replays[0]
    failed = sum(1 for state in states if state & FAIL)
    passed = sum(1 for state in states if state & PASS and not state & FAIL)
    return ReportOverview(
        path=path,
        producer=guess_producer(path),
        testcases=tally.testcases,
        passed=passed,
        failed=failed,
        skipped=len(states) - passed - failed,
        retries=sum(tally.retries.values()),
    )
