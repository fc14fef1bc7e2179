"""The gate without replays: after drift or a failed property no replay is needed, and the
gate classifies every registered test without them and says why. Real gate runs on the
replayed example."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.support import (
    EMPTY,
    KNOWN,
    ROUND_TRIP,
    break_a_property,
    classes,
    gate_args,
    load_report,
    run_gate,
)
from waiver.cli import main

DRIFT_REASON = (
    "1 file differs from the lock, so every test bound to them is fixture_drift whatever its "
    "replays say"
)
SKIPPED_DRIFT = {
    "count": 0,
    "read": 0,
    "errors": [],
    "skipped": "fixture_drift",
    "reason": DRIFT_REASON,
}


def drift(work: Path) -> None:
    fixture = work / "fixtures" / "slugs.json"
    fixture.write_bytes(fixture.read_bytes() + b" ")


def without_registry(work: Path) -> list[str]:
    args = gate_args(work)
    at = args.index("--known-tests")
    del args[at : at + 2]
    return args


@pytest.mark.parametrize("folder", ["missing", "empty"])
def test_after_drift_a_gate_without_replays_drifts_every_registered_test(
    example: Path, capsys: pytest.CaptureFixture[str], folder: str
) -> None:
    drift(example)
    shutil.rmtree(example / "reports")
    if folder == "empty":
        (example / "reports").mkdir()
    capsys.readouterr()
    code, report = run_gate(example)
    assert code == 1
    assert classes(report) == dict.fromkeys((EMPTY, KNOWN, ROUND_TRIP), "fixture_drift")
    assert {row["replay_total"] for row in report["rows"]} == {0}
    assert report["replays"] == SKIPPED_DRIFT
    assert report["run_blockers"] == []
    assert report["error"] is None
    out = capsys.readouterr().out
    assert f"the replays were skipped: {DRIFT_REASON}\n" in out


def test_the_summary_says_the_replays_were_skipped(example: Path) -> None:
    drift(example)
    shutil.rmtree(example / "reports")
    summary = example / "summary.md"
    assert main([*gate_args(example), "--summary", str(summary)]) == 1
    assert f"**The replays were skipped:** {DRIFT_REASON}.\n" in summary.read_text()


def test_after_drift_without_a_registry_the_run_blocks_saying_why(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drift(example)
    shutil.rmtree(example / "reports")
    (example / "waiver.yml").write_text("registry: none\n")
    args = [*without_registry(example), "--config", str(example / "waiver.yml")]
    capsys.readouterr()
    assert main(args) == 1
    report = load_report(example / "waiver.json")
    # `registry: none` lifts the registry's own blocker, never this one: no row is left.
    assert report["rows"] == []
    assert report["run_blockers"] == [
        "the replays were skipped because 1 file differs from the lock, and no known-tests "
        "registry names the tests they would have run"
    ]
    assert report["verdict"] == "blocked"
    assert "blocked: the replays were skipped because" in capsys.readouterr().out


def test_without_drift_and_on_green_properties_missing_replays_stay_an_input_error(
    example: Path,
) -> None:
    shutil.rmtree(example / "reports")
    code, report = run_gate(example)
    assert code == 2
    assert report["error"] == {
        "source": str(example / "reports"),
        "problem": "the reports folder does not exist",
    }


def test_after_drift_replays_that_are_there_are_read_as_before(example: Path) -> None:
    drift(example)
    code, report = run_gate(example, "--replays", "5")
    assert code == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert report["replays"] == {"count": 5, "read": 5, "errors": []}


def test_after_drift_a_replay_folder_with_a_stray_file_is_still_an_input_error(
    example: Path,
) -> None:
    """Only a folder without any replay was skipped; what is there is read as always."""
    drift(example)
    shutil.rmtree(example / "reports")
    (example / "reports").mkdir()
    (example / "reports" / "notes.txt").write_text("planted\n")
    code, report = run_gate(example)
    assert code == 2
    assert "not a replay" in report["error"]["problem"]


def test_after_drift_missing_base_replays_are_skipped_too(example: Path) -> None:
    drift(example)
    shutil.rmtree(example / "reports")
    code, report = run_gate(example, "--base-reports", str(example / "base-reports"))
    assert code == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert report["replays"] == SKIPPED_DRIFT


def test_a_failed_property_skips_the_replays_and_says_so(
    example: Path, failed_properties: Path
) -> None:
    break_a_property(example)
    shutil.copyfile(failed_properties, example / "properties.xml")
    drift(example)  # the failed property outranks it
    shutil.rmtree(example / "reports")
    code, report = run_gate(example)
    assert code == 1
    assert set(classes(report).values()) == {"property_violation"}
    assert report["replays"]["skipped"] == "property_violation"
    assert report["replays"]["reason"] == (
        "1 property case failed, so every test is property_violation whatever its replays say"
    )


def test_a_test_bound_to_fixtures_that_did_not_drift_stays_unknown_without_replays(
    example: Path,
) -> None:
    """A policy binding keeps test_empty off slugs.json: it did not drift, but without
    replays nothing is known of it, so it is unknown_test with zero replays and blocks."""
    policy = example / "waiver.yml"
    policy.write_text(
        "bindings:\n"
        '  - tests: ["*::test_empty"]\n'
        '    fixtures: ["fixtures/inputs.json"]\n'
        '  - tests: ["*::test_known_slugs", "*::test_round_trip"]\n'
        '    fixtures: ["fixtures/slugs.json"]\n'
    )
    drift(example)
    shutil.rmtree(example / "reports")
    code, report = run_gate(example, "--config", str(policy))
    assert code == 1
    assert classes(report) == {
        EMPTY: "unknown_test",
        KNOWN: "fixture_drift",
        ROUND_TRIP: "fixture_drift",
    }
    rows = {row["test_id"]: row for row in report["rows"]}
    assert rows[EMPTY]["replay_total"] == 0 and rows[EMPTY]["freeze"] is None
    assert report["replays"]["skipped"] == "fixture_drift"


@settings(
    max_examples=15,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    kept=st.sets(st.integers(1, 5)),
    registry=st.booleans(),
    harness=st.booleans(),
)
def test_drift_with_any_subset_of_replays_is_never_a_verdict_that_lets_it_through(
    replayed_example: Path,
    tmp_path_factory: pytest.TempPathFactory,
    kept: set[int],
    registry: bool,
    harness: bool,
) -> None:
    work = tmp_path_factory.mktemp("skip") / "demo"
    shutil.copytree(replayed_example, work)
    if harness:
        (work / "conftest.py").write_text("collect_ignore = []\n")
    else:
        drift(work)
    for replay in range(1, 6):
        if replay not in kept:
            (work / "reports" / f"run-{replay}.xml").unlink()
    args = gate_args(work) if registry else without_registry(work)
    code = main(args)
    report = load_report(work / "waiver.json")
    assert code == 1
    assert report["blocked"] is True and report["verdict"] == "blocked"
    assert all(row["freeze"] is None for row in report["rows"])
    assert (report["replays"].get("skipped") == "fixture_drift") == (not kept)
