from __future__ import annotations

from pathlib import Path

import pytest

from helpers.hostile_support import Repo, Run, make_runner


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    root = tmp_path / "repo"
    root.mkdir()
    return Repo(root)


@pytest.fixture
def checked_gate(repo: Repo, capfd: pytest.CaptureFixture[str]) -> Run:
    """The gate on `repo`, held to the promises every hostile input keeps (make_runner)."""
    return make_runner(repo, capfd)
