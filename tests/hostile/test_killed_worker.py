"""A replay worker that dies mid-read: an internal error, never a hang or a green report."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool

import pytest

import waiver.read.junit.replay_reports
import waiver.read.junit.replay_set
from helpers.hostile_support import Repo, Run
from waiver.read.junit.replay_reports import Limits, ReplayCases
from waiver.read.junit.replay_set import read_replays
from waiver.read.junit.testid import TestIdRule


def kill_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every forked worker exit at once, as an out-of-memory kill would end it."""
    gate = os.getpid()
    read_cases: Callable[..., ReplayCases] = waiver.read.junit.replay_reports.read_cases

    def dying(*args: object) -> ReplayCases:
        if os.getpid() != gate:
            os._exit(9)
        return read_cases(*args)

    monkeypatch.setattr(waiver.read.junit.replay_reports, "read_cases", dying)


def test_a_dead_worker_breaks_the_read(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    kill_workers(monkeypatch)
    with pytest.raises(BrokenProcessPool):
        read_replays(str(repo.root / "reports"), TestIdRule(None), Limits(), workers=2)


def test_the_gate_exits_3_and_leaves_no_report(
    repo: Repo, checked_gate: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = repo.root / "waiver.json"
    out.write_text('{"blocked": false}')  # a stale green report from an earlier run
    kill_workers(monkeypatch)
    monkeypatch.setattr(waiver.read.junit.replay_set, "replay_workers", lambda: 2)
    _, _, err = checked_gate(codes=(3,))
    assert "internal error: BrokenProcessPool" in err
    assert not out.exists()
