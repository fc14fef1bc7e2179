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
def run_gate(repo: Repo, capfd: pytest.CaptureFixture[str]) -> Run:
    return make_runner(repo, capfd)
