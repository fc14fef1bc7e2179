"""Fixtures shared by the whole suite."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

from helpers.action_support import checked_out
from helpers.support import EXAMPLE, replay_example

# No deadline: how long an example takes depends on the machine's load, and a test of
# this suite never asserts on time.
settings.register_profile("waiver", deadline=None)
settings.load_profile("waiver")


@pytest.fixture(scope="session")
def replayed_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled example, replayed once per test run with real pytest runs, and read only.

    Under pytest-xdist the workers share one base folder: the first worker that needs the
    example replays it there, under a lock, and the others wait and use it.
    """
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    work, done = shared / "example" / "demo", shared / "example" / "replayed"
    with open(shared / "example.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(work, ignore_errors=True)
            ignored = shutil.ignore_patterns("run.sh", "__pycache__")
            shutil.copytree(EXAMPLE, work, ignore=ignored)
            replay_example(work)
            done.touch()
    return work


@pytest.fixture
def example(replayed_example: Path, tmp_path: Path) -> Path:
    """A private copy of the replayed example that a test may change."""
    work = tmp_path / "demo"
    shutil.copytree(replayed_example, work)
    return work


@pytest.fixture
def workspace(example: Path) -> tuple[Path, str]:
    """The example as a checked-out repository whose base commit is its only commit."""
    return checked_out(example)
