"""Replays planted by the code under test: the declared count is exact, the folder holds
nothing but replays, and no replay number can make the gate materialise a huge report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.hostile_support import GOOD_CASE, Repo, Run
from helpers.junit_support import junit

FAILING = '<testcase classname="suite.Bad" name="test_red"><failure message="no"/></testcase>'


def error_of(repo: Repo) -> dict[str, str]:
    report = json.loads((repo.root / "waiver.json").read_text())
    assert report["blocked"] is True
    error: dict[str, str] = report["error"]
    return error


@pytest.fixture
def red(repo: Repo) -> Repo:
    """Five replays in which suite.Bad::test_red fails every time."""
    for number in range(1, 6):
        repo.replay(number, junit(GOOD_CASE, FAILING))
    return repo


def test_a_stable_failure_with_passing_replays_planted_beside_it_is_an_input_error(
    red: Repo, checked_gate: Run
) -> None:
    for number in range(6, 12):
        red.replay(number, junit(GOOD_CASE, '<testcase classname="suite.Bad" name="test_red"/>'))
    code, _, err = checked_gate("--replays", "5")
    assert code == 2
    source = str(red.root / "reports" / "run-10.xml")
    assert error_of(red) == {
        "source": source,
        "problem": "replay 10 is beyond the 5 declared (in the reports folder)",
    }
    assert (
        err
        == f"waiver: error: {source}: replay 10 is beyond the 5 declared (in the reports folder)\n"
    )


@pytest.mark.parametrize(
    "name", ["run-6.xml.bak", "notes.txt", "run-1.json", ".hidden", "properties.xml", "run-x"]
)
def test_anything_but_a_replay_in_the_reports_folder_is_an_input_error(
    red: Repo, checked_gate: Run, name: str
) -> None:
    (red.root / "reports" / name).write_text(junit(GOOD_CASE))
    code, _, err = checked_gate("--replays", "5")
    assert code == 2
    source = str(red.root / "reports" / name)
    problem = "not a replay (run-<n>.xml or run-<n>/): unexpected in the reports folder"
    assert error_of(red) == {"source": source, "problem": problem}
    assert err == f"waiver: error: {source}: {problem}\n"


def test_a_folder_that_is_no_replay_is_an_input_error(red: Repo, checked_gate: Run) -> None:
    (red.root / "reports" / "extra").mkdir()
    code, _, _ = checked_gate("--replays", "5")
    assert code == 2
    assert error_of(red)["source"] == str(red.root / "reports" / "extra")


def test_what_waiver_replay_leaves_beside_the_replays_is_accepted(
    red: Repo, checked_gate: Run
) -> None:
    """`run-<i>.log` and, with --properties-first, properties.xml and properties.log."""
    reports = red.root / "reports"
    for number in range(1, 6):
        (reports / f"run-{number}.log").write_text("output\n")
    (reports / "properties.xml").write_text((red.root / "properties.xml").read_text())
    (reports / "properties.log").write_text("output\n")
    code, _, _ = checked_gate("--replays", "5", "--properties", str(reports / "properties.xml"))
    assert code == 1
    report = json.loads((red.root / "waiver.json").read_text())
    assert report["replays"]["count"] == 5
    assert report["replays"]["errors"] == []


def test_a_log_beyond_the_declared_count_is_an_input_error(red: Repo, checked_gate: Run) -> None:
    (red.root / "reports" / "run-6.log").write_text("output\n")
    code, _, _ = checked_gate("--replays", "5")
    assert code == 2
    assert error_of(red) == {
        "source": str(red.root / "reports" / "run-6.log"),
        "problem": "replay 6 is beyond the 5 declared (in the reports folder)",
    }


def test_a_replay_numbered_far_beyond_the_cap_is_refused_without_listing_the_gap(
    repo: Repo, checked_gate: Run
) -> None:
    repo.replay(999999, junit(GOOD_CASE))
    code, _, _ = checked_gate()
    assert code == 2
    assert error_of(repo) == {
        "source": str(repo.root / "reports" / "run-999999.xml"),
        "problem": "replays are numbered up to 1000 (in the reports folder)",
    }
    assert (repo.root / "waiver.json").stat().st_size < 10_000


@pytest.mark.parametrize("count", ["0", "1001"])
def test_a_declared_count_out_of_range_is_a_usage_error(
    repo: Repo, checked_gate: Run, count: str
) -> None:
    code, _, err = checked_gate("--replays", count)
    assert code == 2
    assert err.endswith(
        f"waiver gate: error: argument --replays: must be between 1 and 1000, got {count}\n"
    )


def test_deeply_nested_shard_folders_are_an_input_error(repo: Repo, checked_gate: Run) -> None:
    (repo.root / "reports" / "run-5.xml").unlink()
    folder = repo.root / "reports" / "run-5"
    deep = folder
    for _ in range(200):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "shard.xml").write_text(junit(GOOD_CASE))
    code, _, _ = checked_gate("--replays", "5")
    assert code == 1
    report = json.loads((repo.root / "waiver.json").read_text())
    [error] = report["replays"]["errors"]
    assert error["replay"] == 5
    assert error["problem"] == "shard folders nested more than 8 deep"
    assert error["source"] == str(folder / Path(*["d"] * 9))


def test_baseline_accepts_what_waiver_replay_leaves_and_refuses_the_rest(repo: Repo) -> None:
    from waiver.cli import main

    reports = repo.root / "reports"
    (reports / "run-1.log").write_text("output\n")
    (reports / "properties.xml").write_text(repo.root.joinpath("properties.xml").read_text())
    (reports / "properties.log").write_text("output\n")
    out = repo.root / "known-tests.txt"
    assert main(["baseline", "--reports", str(reports), "--out", str(out)]) == 0
    assert out.read_text() == "suite.Good::test_ok\n"
    (reports / "stray.xml").write_text(junit(GOOD_CASE))
    assert main(["baseline", "--reports", str(reports), "--out", str(out)]) == 2
