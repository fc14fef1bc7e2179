"""`waiver history record` and `show` on the waiver.json of real gate runs, and `waiver gate
--history` showing the history beside the unstable row."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from helpers.history_support import FIXED, FLAKY, STEADY, TESTS, at, build_suite, gate_run
from helpers.support import REPO, check_golden, load_report
from waiver.cli import main

HISTORY_SCHEMA = json.loads((REPO / "waiver/schemas/waiver-history.schema.json").read_text())
GOLDEN = REPO / "tests" / "golden"
POLICY = (
    "registry: known-tests.txt\nmin_history_sample: 5\nflag_failure_rate: 0.3\n"
    "clear_failure_rate: 0.1\nhistory_runs: 6\n"
)
# The flaky test flips in runs 2, 4, 7 and 9; the fixed one fails every replay in runs 1
# and 2, then passes.
FLIPS = {2, 4, 7, 9}


def failing(run: int) -> dict[str, str]:
    return {
        **({FLAKY: "x.x.."} if run in FLIPS else {}),
        **({FIXED: "xxxxx"} if run <= 2 else {}),
    }


def record(root: Path, report: Path, run: int) -> int:
    history = str(root / "history.json.gz")
    return main(
        ["history", "record", "--history", history, "--report", str(report), "--out", history,
         "--config", str(root / "waiver.yml"), "--now", at(run)]
    )  # fmt: skip


@pytest.fixture(scope="module")
def ten_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Ten default-branch gate runs folded into a history, then a storm run."""
    root = build_suite(tmp_path_factory.mktemp("history"))
    (root / "waiver.yml").write_text(POLICY)
    for run in range(1, 11):
        assert record(root, gate_run(root, at(run), failing(run)), run) == 0
    storm = dict.fromkeys((*TESTS[:-1],), "xxxxx")  # 9 of 10 fail: a storm
    assert record(root, gate_run(root, at(11), storm), 11) == 0
    return root


def show(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], str]:
    capsys.readouterr()
    assert main(["history", "show", "--history", str(root / "history.json.gz"),
                 "--json", str(root / "show.json"), "--markdown", str(root / "show.md"),
                 "--config", str(root / "waiver.yml")]) == 0  # fmt: skip
    document = json.loads((root / "show.json").read_text())
    jsonschema.validate(document, HISTORY_SCHEMA)
    return document, capsys.readouterr().out


def test_the_flaky_test_ranks_first_flagged_and_the_fixed_one_became_stable(
    ten_runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document, terminal = show(ten_runs, capsys)
    tests = {test["test_id"]: test for test in document["tests"]}
    assert document["tests"][0]["test_id"] == FLAKY
    # The window is the last six runs (6 to 11); run 11 is a storm, left out.
    assert tests[FLAKY] | {"trend": None} == {
        "test_id": FLAKY, "runs": 5, "flipped": 2, "failed": 0, "flip_rate": 0.4,
        "transitions": tests[FLAKY]["transitions"], "score": tests[FLAKY]["score"],
        "failure_rate": 0.4, "flagged": True, "became_stable": False,
        "classes": {"unstable_assertion": 2, "stable_assertion_fail": 0},
        "arrived_with_change": 0, "there_before": 0, "trend": None,
    }  # fmt: skip
    assert tests[FLAKY]["trend"] == "▁▄▁▄▁x"
    assert (tests[FIXED]["flagged"], tests[FIXED]["became_stable"]) == (False, True)
    assert document["flagged"] == [FLAKY]
    assert document["became_stable"] == [FIXED]
    assert [run["storm"] for run in document["runs"]] == [False] * 5 + [True]
    assert terminal.splitlines()[1].endswith(f"[flagged]  {FLAKY}")
    check_golden(GOLDEN / "history" / "show.md", (ten_runs / "show.md").read_text())


def test_the_file_is_compact_and_holds_each_test(ten_runs: Path) -> None:
    document = json.loads(gzip.decompress((ten_runs / "history.json.gz").read_bytes()))
    assert len(document["runs"]) == 6
    # Each test is a run-length encoded trace, a detail for each run that was no pass, its
    # flag, and the last run it failed in outside a storm.
    assert document["tests"][STEADY[-1]] == ["P6", [], False, None]
    assert document["tests"][STEADY[0]] == ["P5F", ["0/5"], False, None]
    assert document["tests"][FIXED] == ["P5F", ["0/5"], False, "2026-11-02T06:00:00Z"]


def test_recording_the_same_run_twice_counts_it_once(
    ten_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = tmp_path / "again.json.gz"
    report = next(ten_runs.glob("report-2026-11-10*.json"))
    for _ in range(2):
        assert main(["history", "record", "--history", str(history), "--report", str(report),
                     "--out", str(history), "--now", at(10)]) == 0  # fmt: skip
    assert "already recorded" in capsys.readouterr().out
    assert len(json.loads(gzip.decompress(history.read_bytes()))["runs"]) == 1


def test_a_report_that_is_not_a_waiver_json_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "r.json").write_text('{"rows": []}')
    out = tmp_path / "h.gz"
    code = main(["history", "record", "--history", str(out), "--report",
                 str(tmp_path / "r.json"), "--out", str(out)])  # fmt: skip
    assert (code, out.exists()) == (2, False)
    assert "not a valid waiver report" in capsys.readouterr().err


@pytest.mark.parametrize(
    "policy",
    ["flag_failure_rate: 0.1\nclear_failure_rate: 0.1\n", "clear_failure_rate: 0.2\n"],
)
def test_a_clear_rate_not_below_the_flag_rate_is_a_usage_error(
    tmp_path: Path, policy: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "waiver.yml").write_text(policy)
    code = main(["history", "show", "--history", str(tmp_path / "h.gz"),
                 "--config", str(tmp_path / "waiver.yml")])  # fmt: skip
    assert code == 2
    assert "must be less than flag_failure_rate" in capsys.readouterr().err


def test_the_gate_shows_the_history_beside_the_unstable_row_and_changes_nothing_else(
    ten_runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ten_runs
    summary = ["--summary", str(root / "summary.md"), "--config", str(root / "waiver.yml")]
    without = load_report(gate_run(root, at(12), {FLAKY: ".x.x."}, *summary))
    capsys.readouterr()
    shown = load_report(
        gate_run(
            root, at(12), {FLAKY: ".x.x."}, *summary, "--history", str(root / "history.json.gz")
        )
    )
    check_golden(GOLDEN / "summary" / "history.md", (root / "summary.md").read_text())
    # The terminal sets the same words below the row (the report's path is the test's own).
    terminal = capsys.readouterr().out.replace(str(root), "ROOT")
    check_golden(GOLDEN / "terminal" / "history.txt", terminal)
    rows = {row["test_id"]: row for row in shown["rows"]}
    assert rows[FLAKY]["history"] == {"runs": 5, "flipped": 2, "failed": 0, "flagged": True}
    assert shown["history"] == {"path": str(root / "history.json.gz"), "runs": 6, "problem": None}
    for key in ("verdict", "blocked", "counts"):
        assert shown[key] == without[key]
    assert [row.get("class") for row in shown["rows"]] == [r["class"] for r in without["rows"]]
