"""What the command tests share."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder the test runs in."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
