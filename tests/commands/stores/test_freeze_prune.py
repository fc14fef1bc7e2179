"""`waiver freeze prune --history FILE`: the frozen tests the default branch's history shows
stable for its window are named, never removed, on a history recorded from real gate runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers.history_support import FIXED, FLAKY, at, build_suite, gate_run
from waiver.cli import main

POLICY = "min_history_sample: 4\nhistory_runs: 4\n"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both tests frozen from a run in which they flipped; then five runs on main in which
    the fixed one fails the first and the flaky one flips in the fourth. Built once and
    read only: a test changes its own copy (`suite`)."""
    root = build_suite(tmp_path_factory.mktemp("recorded"))
    (root / "waiver.yml").write_text(POLICY)
    proposed = gate_run(root, at(1), {FIXED: "x....", FLAKY: "x...."})
    store = str(root / "freezes.json")
    assert main(["freeze", "accept", "--report", str(proposed), FIXED, FLAKY,
                 "--store", store, "--now", at(1)]) == 0  # fmt: skip
    history = str(root / "history.json.gz")
    for run in range(1, 6):
        failing = {FIXED: "xxxxx"} if run == 1 else {FLAKY: "x.x.."} if run == 4 else {}
        report = gate_run(root, at(run), failing)
        assert main(["history", "record", "--history", history, "--report", str(report),
                     "--out", history, "--config", str(root / "waiver.yml"),
                     "--now", at(run)]) == 0  # fmt: skip
    return root


@pytest.fixture
def suite(recorded: Path, tmp_path: Path) -> Path:
    """A private copy of the recorded suite that a test may change."""
    return Path(shutil.copytree(recorded, tmp_path / "suite"))


def prune(root: Path, history: Path) -> int:
    return main(["freeze", "prune", "--store", str(root / "freezes.json"), "--history",
                 str(history), "--config", str(root / "waiver.yml"), "--now", at(1)])  # fmt: skip


def test_a_frozen_test_stable_for_the_window_is_named_and_kept(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (suite / "freezes.json").read_bytes()
    capsys.readouterr()

    assert prune(suite, suite / "history.json.gz") == 0

    assert capsys.readouterr().out == (
        f"waiver: kept record 0 ({FIXED}): passed each of the last 4 runs on main; its freeze "
        "can go: delete the record\n"
        f"waiver: 2 records kept in {suite / 'freezes.json'}\n"
    )
    assert (suite / "freezes.json").read_bytes() == before


def test_too_few_runs_name_nothing(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (suite / "waiver.yml").write_text("min_history_sample: 5\nhistory_runs: 4\n")
    capsys.readouterr()

    assert prune(suite, suite / "history.json.gz") == 0

    assert capsys.readouterr().out == f"waiver: 2 records kept in {suite / 'freezes.json'}\n"


@pytest.mark.parametrize(
    ("content", "problem"),
    [(None, "no such file"), (b"not gzip", "not a gzip file")],
)
def test_a_history_that_does_not_read_is_an_input_error_and_prunes_nothing(
    suite: Path, capsys: pytest.CaptureFixture[str], content: bytes | None, problem: str
) -> None:
    history = suite / "other.json.gz"
    if content is not None:
        history.write_bytes(content)
    before = (suite / "freezes.json").read_bytes()
    capsys.readouterr()

    assert prune(suite, history) == 2

    assert capsys.readouterr().err.startswith(f"waiver: error: {history}: {problem}")
    assert (suite / "freezes.json").read_bytes() == before
