"""A small repository for `waiver replay` and the reusable workflow's replay steps: a suite
with a stable, a flipping, a failing test and one that records its replay, a driver that
can crash after writing its report, fixtures and their lock."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from helpers.support import gate_args
from waiver.cli import main

SUITE = """\
import os
from pathlib import Path

HERE = Path(__file__).parent


def test_stable():
    assert True


def test_flips():
    # Fails on odd replays, by a counter file: replays 1, 3 and 5.
    counter = HERE / "counter.txt"
    count = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(count))
    assert count % 2 == 0


def test_always_fails():
    assert False


def test_sees_its_replay():
    with open(HERE / "seen.txt", "a") as seen:
        seen.write(f"{os.environ['WAIVER_REPLAY']} {os.environ['WAIVER_JUNIT']}\\n")
"""

# Runs the suite once, with the report path from {junit}; crashes after writing its report
# on the replay named by CRASH_ON, so the report of a crashed replay exists but must not count.
DRIVER = """\
import os, signal, sys
import pytest

if sys.argv[1] != os.environ["WAIVER_JUNIT"]:
    sys.exit("{junit} and WAIVER_JUNIT differ")
code = pytest.main(["-q", "-p", "no:cacheprovider", "tests", "--junitxml=" + sys.argv[1]])
if os.environ.get("CRASH_ON") == os.environ["WAIVER_REPLAY"]:
    os.kill(os.getpid(), signal.SIGKILL)
sys.exit(code)
"""


def pytest_words(*args: str) -> list[str]:
    """A pytest run of this interpreter, quiet and without a cache folder."""
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]


def write_repo(root: Path, properties: str = "def test_holds():\n    assert True\n") -> None:
    """The suite, a property suite, the driver and a fixture under `root`, locked."""
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_suite.py").write_text(SUITE)
    (root / "properties").mkdir()
    (root / "properties" / "test_props.py").write_text(properties)
    (root / "run_suite.py").write_text(DRIVER)
    (root / "fixtures").mkdir()
    (root / "fixtures" / "data.json").write_text('{"n": 1}\n')
    with contextlib.chdir(root):
        assert main(["lock", "--fixtures", "fixtures", "--property-suite", "properties",
                     "--out", "fixture.lock"]) == 0  # fmt: skip


def gate_here(
    *extra: str, reports: str = "reports", properties: str = "reports/properties.xml"
) -> int:
    """The gate in the current directory, on the replays `waiver replay` wrote there."""
    here = Path(".")
    return main(gate_args(here, *extra, reports=reports, properties=properties, known_tests=False,
                          summary=True))  # fmt: skip
