"""Wrong paths on the gate's command line: exit 2 naming the path, and no green report left.

Each test runs the real gate on the replayed example and first puts a green report at the
output path, the one a run that ends early must never leave behind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.support import case_json, gate_args, load_report, run_gate
from waiver.cli import main

GREEN = '{"verdict": "clean", "blocked": false}'


def _with_green_report(work: Path) -> Path:
    out = work / "waiver.json"
    out.write_text(GREEN)
    return out


def _replace_flag(args: list[str], flag: str, value: str) -> list[str]:
    index = args.index(flag)
    return [*args[: index + 1], value, *args[index + 2 :]]


def test_out_in_a_missing_folder_is_exit_2_naming_it(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = example / "missing" / "waiver.json"
    assert main(_replace_flag(gate_args(example), "--out", str(out))) == 2
    err = capsys.readouterr().err
    assert err == (f"waiver: error: --out {out}: the folder {example / 'missing'} does not exist\n")
    assert not out.parent.exists()


def test_summary_in_a_missing_folder_is_exit_2_and_leaves_no_report(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _with_green_report(example)
    summary = example / "missing" / "summary.md"
    assert main([*gate_args(example), "--summary", str(summary)]) == 2
    assert f"--summary {summary}: the folder" in capsys.readouterr().err
    assert not out.exists()
    assert not summary.parent.exists()


def test_out_that_is_a_folder_is_exit_2(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = example / "reports"
    assert main(_replace_flag(gate_args(example), "--out", str(out))) == 2
    assert capsys.readouterr().err == (
        f"waiver: error: --out {out} is a folder; give the path of waiver.json\n"
    )
    assert out.is_dir()


def test_properties_pointing_at_a_folder_is_a_usage_error(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _with_green_report(example)
    reports = example / "reports"
    assert main(_replace_flag(gate_args(example), "--properties", str(reports))) == 2
    problem = f"--properties {reports} is a folder; give the property suite's JUnit file"
    assert capsys.readouterr().err == f"waiver: error: {problem}\n"
    report = load_report(out)
    assert report["blocked"] is True
    assert report["error"] == {"source": "usage", "problem": problem}


@pytest.mark.parametrize("replay", ["run-1.xml", "run-2/shard-1.xml"])
def test_properties_naming_a_replay_report_is_a_usage_error(example: Path, replay: str) -> None:
    reports = example / "reports"
    if "/" in replay:
        (reports / "run-2").mkdir()
        (reports / "run-2.xml").rename(reports / replay)
    out = _with_green_report(example)
    assert main(_replace_flag(gate_args(example), "--properties", str(reports / replay))) == 2
    report = load_report(out)
    assert report["blocked"] is True
    assert report["error"]["problem"] == (
        f"--properties {reports / replay} is a replay report ({replay.split('/')[0]} of "
        f"--reports {reports}); give the property suite's own JUnit file"
    )


def test_a_property_report_beside_the_replays_is_read(example: Path) -> None:
    (example / "properties.xml").rename(example / "reports" / "properties.xml")
    code, report = run_gate(example, "--properties", str(example / "reports" / "properties.xml"))
    assert code == 1 and report["properties"]["cases"] == 6


def test_a_command_line_that_does_not_parse_removes_the_earlier_report(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _with_green_report(example)
    args = gate_args(example)
    index = args.index("--properties")
    assert main([*args[:index], *args[index + 2 :]]) == 2
    assert "the following arguments are required: --properties" in capsys.readouterr().err
    assert not out.exists()


def test_help_leaves_the_earlier_report(example: Path) -> None:
    out = _with_green_report(example)
    assert main(["gate", "--out", str(out), "--help"]) == 0
    assert out.read_text() == GREEN


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        (["--shards", "0"], "argument --shards: must be at least 1, got 0"),
        (["--min-replays", "0"], "argument --min-replays: must be at least 1, got 0"),
        (["--freeze-hours", "-1"], "argument --freeze-hours: must be at least 1, got -1"),
        (
            ["--base-replays", "1001"],
            "argument --base-replays: must be between 1 and 1000, got 1001",
        ),
        (["--max-report-bytes", "0"], "argument --max-report-bytes: must be at least 1, got 0"),
    ],
)
def test_a_flag_value_out_of_range_stops_at_the_command_line_and_removes_the_earlier_report(
    example: Path, extra: list[str], problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _with_green_report(example)
    assert main([*gate_args(example), *extra]) == 2
    assert capsys.readouterr().err.endswith(f"waiver gate: error: {problem}\n")
    assert not out.exists()


def test_a_missing_property_report_replaces_the_earlier_report(example: Path) -> None:
    out = _with_green_report(example)
    (example / "properties.xml").unlink()
    assert main(gate_args(example)) == 2
    report = load_report(out)
    assert report["error"] == {
        "source": str(example / "properties.xml"),
        "problem": "file not found",
    }


def test_a_reports_folder_without_replays_says_which_names_it_expects(example: Path) -> None:
    reports = example / "reports"
    for report in reports.iterdir():
        report.unlink()
    code, report = run_gate(example)
    assert code == 2
    assert report["error"] == {
        "source": str(reports),
        "problem": "no replay found in the reports folder: expected run-1.xml … run-N.xml "
        "files or run-1/ … run-N/ folders",
    }


def test_summary_is_replaced_not_appended(example: Path) -> None:
    summary = example / "summary.md"
    summary.write_text("an earlier run\n")
    run_gate(example, "--summary", str(summary))
    first = summary.read_text()
    run_gate(example, "--summary", str(summary))
    assert summary.read_text() == first
    assert first.startswith("## ⛔ waiver: blocked")


def test_the_step_summary_is_appended_to_once(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    step_summary = example / "step_summary.md"
    step_summary.write_text("an earlier step\n")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    monkeypatch.setenv("GITHUB_OUTPUT", str(example / "output.txt"))
    run_gate(example, "--summary", str(step_summary))
    text = step_summary.read_text()
    assert text.startswith("an earlier step\n## ⛔ waiver: blocked")
    assert text.count("## ⛔ waiver: blocked") == 1


def test_a_usage_error_on_github_publishes_a_blocked_report(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(example / "step_summary.md"))
    monkeypatch.setenv("GITHUB_OUTPUT", str(example / "output.txt"))
    out = example / "missing" / "waiver.json"
    assert main(_replace_flag(gate_args(example), "--out", str(out))) == 2
    assert "blocked<<" in (example / "output.txt").read_text()
    assert "**Input error** in `usage`" in (example / "step_summary.md").read_text()


@pytest.mark.parametrize("line_path", ["./fixtures/slugs.json", "{root}/fixtures/slugs.json"])
def test_a_lock_path_that_is_not_relative_is_refused_with_a_hint(
    example: Path, line_path: str
) -> None:
    lock = example / "fixture.lock"
    path = line_path.format(root=example)
    lock.write_text(lock.read_text().replace("fixtures/slugs.json", path, 1))
    code, report = run_gate(example)
    assert code == 2
    problem = report["error"]["problem"]
    assert problem.startswith(f"path {path!r} ")
    assert problem.endswith(
        "; lock paths are relative to the repository root, without './': write the lock with "
        "'waiver lock --fixtures DIR', or from the root with "
        '"find fixtures -type f -print0 | sort -z | xargs -0 sha256sum > fixture.lock"'
    )
    assert json.loads((example / "waiver.json").read_text())["blocked"] is True


def test_a_command_line_with_out_equals_that_does_not_parse_removes_the_report(
    example: Path,
) -> None:
    out = _with_green_report(example)
    assert main(["gate", f"--out={out}", "--replays", "many"]) == 2
    assert not out.exists()


@pytest.mark.parametrize(
    "where",
    [
        # The terminal's table is rendered while waiver.json is written.
        "waiver.gate.pipeline.render_terminal",
        # The verdict line is printed once it is in place.
        "waiver.commands.support.log_line",
    ],
    ids=["while-writing", "after-writing"],
)
def test_an_internal_error_while_or_after_the_report_is_written_removes_it(
    example: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    def broken(report: object) -> str:
        raise RuntimeError("a bug in the terminal renderer")

    # The one stand-in in this file: an internal error is a bug, which no real input makes.
    monkeypatch.setattr(where, broken)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    out = example / "waiver.json"
    assert main(gate_args(example)) == 3
    assert "internal error: RuntimeError: a bug in the terminal renderer" in capsys.readouterr().err
    assert not out.exists()
    assert not list(out.parent.glob(".waiver-*.tmp"))


def test_classify_checks_its_output_paths_and_replaces_its_summary(tmp_path: Path) -> None:
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([case_json("tests/test_a.py::test_a", [True] * 5)]))
    out = tmp_path / "waiver.json"
    out.write_text(GREEN)
    missing = tmp_path / "missing" / "summary.md"
    args = ["classify", "--cases", str(cases), "--out", str(out)]
    assert main([*args, "--summary", str(missing)]) == 2
    assert not out.exists()
    summary = tmp_path / "summary.md"
    assert main([*args, "--summary", str(summary)]) == 0
    first = summary.read_text()
    assert main([*args, "--summary", str(summary)]) == 0
    assert summary.read_text() == first


def test_out_naming_a_folder_on_github_publishes_a_blocked_report(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(example / "step_summary.md"))
    monkeypatch.setenv("GITHUB_OUTPUT", str(example / "output.txt"))
    assert main(_replace_flag(gate_args(example), "--out", str(example / "reports"))) == 2
    assert "is a folder" in (example / "step_summary.md").read_text()
