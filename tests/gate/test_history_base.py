"""Base evidence without base replays: the default branch's gate run of the pull request's
base commit, kept in the history, is the base replays (waiver.decide.history_base,
waiver.gate.history_evidence). A suite in a git repository: the base commit's run recorded with
`waiver history record --head BASE`, then the change gated with `--trusted-ref BASE
--history FILE`, no `--base-reports`."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from helpers.history_support import FIXED, FLAKY, at, build_suite, gate_run
from helpers.support import git, load_report
from waiver.cli import main
from waiver.decide.history_base import base_run, run_outcomes
from waiver.decide.history_fold import History, RecordedRun, fold
from waiver.decide.policy import Policy

OTHER = "f" * 40


def recorded(head: str | None, day: int, others: dict[str, tuple[str, str]]) -> RecordedRun:
    return RecordedRun(commit=None, time=datetime(2026, 11, day, tzinfo=UTC), fixture_hash=None,
                       passing=frozenset({"t::steady", "t::flaky"} - others.keys()),
                       others=others, head=head, replays=5)  # fmt: skip


def test_the_newest_run_of_the_commit_gives_each_test_its_outcomes() -> None:
    now = datetime(2026, 11, 10, tzinfo=UTC)
    history = History()
    for run in (
        recorded("b" * 40, 1, {"t::flaky": ("U", "3/5x")}),
        recorded("b" * 40, 2, {"t::broken": ("F", "0/5x"), "t::drift": ("D", "0/0")}),
        recorded(OTHER, 3, {}),
    ):
        history = fold(history, run, Policy(), now)
    index = base_run(history, "b" * 40)
    assert index == 1  # the newer of the two runs of that commit
    assert run_outcomes(history, index, "t::steady") == (True,) * 5
    assert run_outcomes(history, index, "t::broken") == (False,) * 5
    assert run_outcomes(history, index, "t::drift") == ()
    assert run_outcomes(history, 0, "t::flaky") == (True, True, True, False, False)
    assert run_outcomes(history, index, "t::gone") is None
    assert base_run(history, "c" * 40) is None


def test_a_storm_or_a_run_without_its_commit_is_no_base() -> None:
    now = datetime(2026, 11, 10, tzinfo=UTC)
    stormy = recorded("b" * 40, 1, {f"t::{n}": ("F", "0/5x") for n in range(9)})
    history = fold(History(), stormy, Policy(), now)
    history = fold(history, recorded(None, 2, {}), Policy(), now)
    assert history.runs[0].storm and base_run(history, "b" * 40) is None


POLICY = "registry: known-tests.txt\nintroduced_instability: {}\n"


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    """The suite committed as the base; the base's own run recorded in the history with its
    commit (the fixed test already failing there, the flaky one steady); the change on top."""
    root = build_suite(tmp_path_factory.mktemp("history-base"))
    (root / "waiver.yml").write_text(POLICY.format("block"))
    # What each gate run writes stays out of the commits: a tracked report is refused.
    (root / ".gitignore").write_text("properties.xml\nreports/\nwaiver.json\nreport-*.json\n")
    git(root, "init", "--quiet")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "base")
    base = git(root, "rev-parse", "HEAD")
    history = root.parent / "history.json.gz"
    report = gate_run(root, at(1), {FIXED: "xxxxx"})
    assert main(["history", "record", "--history", str(history), "--report", str(report),
                 "--out", str(history), "--head", base, "--now", at(1)]) == 0  # fmt: skip
    (root / "CHANGES").write_text("a change\n")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "change")
    return root, base, history


def rows(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["test_id"]: row for row in report["rows"]}


def test_the_base_s_recorded_run_is_its_evidence_and_a_flip_it_brought_blocks(
    repository: tuple[Path, str, Path],
) -> None:
    root, base, history = repository
    gate_run(root, at(2), {FLAKY: "x.x..", FIXED: "xxxxx"},
             "--trusted-ref", base, "--history", str(history), "--config", str(root / "waiver.yml"))  # fmt: skip
    report = load_report(root / "waiver.json")
    found = rows(report)
    assert found[FLAKY]["base"] == {
        "replay_pass": 5, "replay_total": 5, "meaning": "introduced", "blocks": True,
    }  # fmt: skip
    assert found[FLAKY]["freeze"] is None
    assert found[FIXED]["base"]["meaning"] == "already_failing"
    assert report["base"]["history_run"] == {"commit": base, "time": "2026-11-01T06:00:00Z"}
    assert (report["base"]["count"], report["base"]["read"]) == (5, 5)
    assert report["verdict"] == "blocked"


def test_a_base_the_history_never_ran_falls_back_as_documented(
    repository: tuple[Path, str, Path],
) -> None:
    # The change's own commit stands in for a base the history holds no run of: no base
    # evidence, the history beside the row, and under the block policy the unstable row
    # blocks with its base unknown (it fails closed).
    root, _, history = repository
    unrecorded = git(root, "rev-parse", "HEAD")
    gate_run(root, at(2), {FLAKY: "x.x.."},
             "--trusted-ref", unrecorded, "--history", str(history), "--config", str(root / "waiver.yml"))  # fmt: skip
    report = load_report(root / "waiver.json")
    assert "base" not in report
    assert rows(report)[FLAKY]["base"] == {
        "replay_pass": 0, "replay_total": 0, "meaning": "base_unknown", "blocks": True,
    }  # fmt: skip
    assert rows(report)[FLAKY]["history"]["runs"] == 1
