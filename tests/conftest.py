"""Fixtures shared by the whole suite."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

from helpers.action_support import checked_out
from helpers.support import EXAMPLE, break_a_property, replay_example, run_pytest

# No deadline: how long an example takes depends on the machine's load, and a test of
# this suite never asserts on time.
settings.register_profile("waiver", deadline=None)
settings.load_profile("waiver")


def built_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """The folder `name`, which `build` fills once per test run; read only.

    Under pytest-xdist the workers share one base folder: the first worker that needs the
    folder builds it there, under a lock, and the others wait and use it.
    """
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    work, done = shared / name / "demo", shared / name / "built"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(work, ignore_errors=True)
            build(work)
            done.touch()
    return work


def _example_copy(work: Path) -> None:
    shutil.copytree(EXAMPLE, work, ignore=shutil.ignore_patterns("run.sh", "__pycache__"))


@pytest.fixture(scope="session")
def replayed_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled example, replayed once per test run with real pytest runs, and read only."""

    def build(work: Path) -> None:
        _example_copy(work)
        replay_example(work)

    return built_once(tmp_path_factory, "example", build)


@pytest.fixture(scope="session")
def failed_properties(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example's property report from one real pytest run in which the property of
    `BROKEN_PROPERTY` fails beside the example's own, made once per test run; read only."""

    def build(work: Path) -> None:
        _example_copy(work)
        break_a_property(work)
        run_pytest(work, "tests/properties", "--junitxml=properties.xml")

    return built_once(tmp_path_factory, "failed-properties", build) / "properties.xml"


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
