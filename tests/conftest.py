"""Fixtures shared by the whole suite."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import settings

from support import EXAMPLE, replay_example

# No deadline: how long an example takes depends on the machine's load, and a test of
# this suite never asserts on time.
settings.register_profile("waiver", deadline=None)
settings.load_profile("waiver")


@pytest.fixture(scope="session")
def replayed_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled example, replayed once per session with real pytest runs."""
    work = tmp_path_factory.mktemp("example") / "demo"
    shutil.copytree(EXAMPLE, work, ignore=shutil.ignore_patterns("run.sh", "__pycache__"))
    replay_example(work)
    return work


@pytest.fixture
def example(replayed_example: Path, tmp_path: Path) -> Path:
    """A private copy of the replayed example that a test may change."""
    work = tmp_path / "demo"
    shutil.copytree(replayed_example, work)
    return work
