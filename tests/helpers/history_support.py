"""A small suite gated again and again, one real `waiver gate` run per default-branch run,
with the failures of each run chosen by the test, for `waiver history`."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Mapping
from pathlib import Path

from helpers.junit_support import PASSING_PROPERTIES, case, junit
from helpers.support import gate_args
from waiver.cli import main

FLAKY = "pkg.checks::test_flaky"
FIXED = "pkg.checks::test_fixed"
STEADY = tuple(f"pkg.checks::test_steady_{number}" for number in range(8))
TESTS = (FIXED, FLAKY, *STEADY)
REPLAYS = 5
FAILURE = '<failure message="no">no</failure>'


def at(run: int) -> str:
    """The time of the default branch's run `run`, one a day."""
    return f"2026-11-{run:02}T06:00:00+00:00"


def build_suite(root: Path) -> Path:
    """A fixture and its lock, a passing property report and the registry of TESTS."""
    (root / "fixtures").mkdir(parents=True)
    (root / "fixtures" / "a.json").write_text('{"a": 1}')
    digest = hashlib.sha256(b'{"a": 1}').hexdigest()
    (root / "fixture.lock").write_text(f"{digest}  fixtures/a.json\n")
    (root / "properties.xml").write_text(PASSING_PROPERTIES)
    (root / "known-tests.txt").write_text("".join(f"{name}\n" for name in sorted(TESTS)))
    return root


def gate_run(root: Path, now: str, failing: Mapping[str, str], *extra: str) -> Path:
    """One gate run at `now` in which each test of `failing` fails the replays its string
    marks `x` (`x.x..` fails replays 1 and 3) and every other test passes; its waiver.json,
    kept beside the suite as report-<time>.json."""
    reports = root / "reports"
    shutil.rmtree(reports, ignore_errors=True)
    reports.mkdir()
    for replay in range(REPLAYS):
        cases = (
            case(
                "pkg.checks",
                name.split("::")[1],
                FAILURE if failing.get(name, ".....")[replay] == "x" else "",
            )
            for name in TESTS
        )
        (reports / f"run-{replay + 1}.xml").write_text(junit(*cases))
    assert main(gate_args(root, *extra, now=now)) in (0, 1)
    kept = root / f"report-{now[:19].replace(':', '')}.json"
    shutil.copyfile(root / "waiver.json", kept)
    return kept
