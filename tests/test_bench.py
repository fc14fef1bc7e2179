"""The benchmark runs end to end on a tiny set and prints its table.

Times and ratios are measured by the benchmark, never asserted here.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
HEADER = (
    "| T | XML (MB) | reader | wall median (s) | min-max (s) | x floor | CPU median (s) "
    "| peak RSS (MB) | µs per test per replay | check |"
)


def table_rows(text: str) -> list[list[str]]:
    """The cells of the results table's body rows in `text`."""
    lines = text.splitlines()
    start = lines.index(HEADER) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_quick_run_prints_and_writes_a_checked_row_per_reader(tmp_path: Path) -> None:
    out = tmp_path / "RESULTS.md"
    completed = subprocess.run(
        [
            sys.executable,
            "bench/run.py",
            "--quick",
            "--out",
            str(out),
            "--data",
            str(tmp_path / "data"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    printed = table_rows(completed.stdout)
    assert [(row[0], row[2], row[-1]) for row in printed] == [
        ("2,000", "floor", "ok"),
        ("2,000", "peer", "ok"),
        ("2,000", "gate", "ok"),
    ]
    assert printed[0][5] == "1.00"
    written = out.read_text(encoding="utf-8")
    assert "`python bench/run.py`" in written.split("\n\n")[1]
    assert table_rows(written) == printed
    assert "| `waiver gate` ≤ 1.3x the floor at T = 100,000 | not measured | — |" in written


def test_the_start_up_section_is_replaced_and_survives_a_rerun_of_the_gate_benchmark(
    tmp_path: Path,
) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    from startup import SECTION, start_up_section, write_section

    out = tmp_path / "RESULTS.md"
    out.write_text("# Benchmark\n\ntable\n")
    write_section(out, f"{SECTION}\n\nfirst\n")
    write_section(out, f"{SECTION}\n\nsecond\n")

    assert out.read_text() == f"# Benchmark\n\ntable\n\n{SECTION}\n\nsecond\n"
    assert start_up_section(out.read_text()) == f"{SECTION}\n\nsecond\n"
    assert start_up_section("# Benchmark\n") == ""


def test_each_separately_measured_section_is_replaced_on_its_own_and_kept_by_the_others(
    tmp_path: Path,
) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    from sections import FREEZE, START_UP, separate_sections, write_section

    out = tmp_path / "RESULTS.md"
    out.write_text("# Benchmark\n\ntable\n")
    write_section(out, START_UP, f"{START_UP}\n\nfirst\n")
    write_section(out, FREEZE, f"{FREEZE}\n\nratio\n")
    write_section(out, START_UP, f"{START_UP}\n\nsecond\n")
    assert out.read_text() == (
        f"# Benchmark\n\ntable\n\n{START_UP}\n\nsecond\n\n{FREEZE}\n\nratio\n"
    )
    assert separate_sections(out.read_text()) == f"{START_UP}\n\nsecond\n\n{FREEZE}\n\nratio\n"


def test_the_test_suite_s_wall_time_is_a_section_the_benchmark_keeps() -> None:
    sys.path.insert(0, str(REPO / "bench"))
    from sections import TEST_SUITE, section_of, separate_sections

    document = (REPO / "bench" / "RESULTS.md").read_text(encoding="utf-8")
    section = section_of(document, TEST_SUITE)
    assert section.startswith(f"{TEST_SUITE}\n")
    assert "-n 2" in section
    assert section in separate_sections(document)


def run_bench(tmp_path: Path, script: str, *args: str) -> str:
    """A benchmark script run on a results file holding one table: the file it leaves."""
    out = tmp_path / "RESULTS.md"
    out.write_text("# Benchmark\n\ntable\n")
    completed = subprocess.run(
        [sys.executable, script, *args, "--out", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    return out.read_text()


@pytest.mark.slow
def test_the_freeze_benchmark_writes_its_section_with_a_ratio_per_command(tmp_path: Path) -> None:
    written = run_bench(
        tmp_path,
        "bench/freeze.py",
        "--tests",
        "2000",
        "--repeat",
        "1",
        "--data",
        str(tmp_path / "data"),
    )
    assert written.startswith("# Benchmark\n\ntable\n\n## Freeze commands on a large report\n")
    ratios = re.findall(
        r"^\| `waiver (?:gate|freeze accept)[^|]*\|[^|]*\|[^|]*\| ([0-9.]+) \|",
        written,
        re.MULTILINE,
    )
    assert len(ratios) == 3 and ratios[0] == "1.00"
    assert re.search(r"≤ 2x the gate's time: [0-9.]+x, (pass|fail)\.", written)


@pytest.mark.slow
def test_the_history_benchmark_writes_its_section_with_a_ratio_per_command(
    tmp_path: Path,
) -> None:
    written = run_bench(
        tmp_path, "bench/history.py", "--tests", "500", "--runs", "20", "--repeat", "1",
        "--data", str(tmp_path / "data"),
    )  # fmt: skip
    assert written.startswith("# Benchmark\n\ntable\n\n## History of the default branch\n")
    ratios = re.findall(r"^\| `waiver (?:gate|history)[^|]*\|[^|]*\|[^|]*\| ([0-9.]+) \|",
                        written, re.MULTILINE)  # fmt: skip
    assert len(ratios) == 3 and ratios[0] == "1.00"
    assert re.search(r"--history` ≤ 1.2x the gate: [0-9.]+x, (pass|fail); one fold into 20 runs "
                     r"of 500 tests under 10 s: [0-9.]+ s, (pass|fail)\.", written)  # fmt: skip


def test_the_harness_benchmark_writes_a_row_per_plugin_count(tmp_path: Path) -> None:
    written = run_bench(tmp_path, "bench/harness.py", "--names", "40", "80", "--repeat", "1")
    assert written.startswith("# Benchmark\n\ntable\n\n## Harness resolution by plugin count\n")
    rows = re.findall(r"^\| ([0-9,]+) \| ([0-9,]+) \| [0-9.]+ \|", written, re.MULTILINE)
    # Every tenth name resolves to a module in the tree, beside pytest.ini and conftest.py.
    assert rows == [("40", "6"), ("80", "10")]


@pytest.mark.slow
def test_the_edited_test_benchmark_writes_a_row_per_gate_run(tmp_path: Path) -> None:
    written = run_bench(
        tmp_path,
        "bench/edited.py",
        "--tests",
        "2000",
        "--repeat",
        "1",
        "--data",
        str(tmp_path / "data"),
    )
    assert written.startswith("# Benchmark\n\ntable\n\n## Edited-test detection on a large suite\n")
    ratios = re.findall(r"^\| [^|]+ \| [0-9.]+ \| [0-9.-]+ \| ([0-9.]+) \|", written, re.MULTILINE)
    assert len(ratios) == 4 and ratios[0] == "1.00"
    assert re.search(r"in the worst case: [0-9.]+x, (pass|fail)\.", written)


def test_the_workflow_benches_read_each_job_s_steps_from_act_s_log() -> None:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import act_log
    finally:
        sys.path.remove(str(REPO / "bench"))
    assert act_log.seconds_of("1m2.5s") == 62.5
    assert act_log.seconds_of("23.5ms") == 0.0235
    assert abs(act_log.seconds_of("998.3µs") - 0.0009983) < 1e-12
    job = "[waiver/waiver gate/replay 2, shard 1-3     ]   ✅  Success - Main"
    base = "[waiver/waiver gate/base replay 1, shard 1-1]   ✅  Success - Main"
    tests = "[waiver/waiver gate/change's tests, shard 1-1]   ❌  Failure - Main"
    log = "\n".join([
        f"{job} Name the waiver to check out [5ms]",
        f"{base} Check out the base commit [7s]",
        f"{job} repository=${{REPOSITORY:-$GITHUB_REPOSITORY}}",
        f"{job} Lay out the base commit's test tree [1.5s]",
        f"{job} Run the assertion suite [2s]",
        f"{job} Upload this shard's report [9s]",
        f"{base} Run the assertion suite [3s]",
        f"{tests} Replay this shard's test files on the change's tree [4s]",
    ])  # fmt: skip
    steps = act_log.job_steps(log)
    assert sorted(steps) == [
        "base replay 1, shard 1",
        "change's tests, shard 1",
        "replay 2, shard 1",
    ]
    assert round(act_log.set_up(steps["replay 2, shard 1"]), 3) == 10.505
    assert [act_log.kind_of(job) for job in sorted(steps)] == [
        "base replay", "change's tests", "replay",
    ]  # fmt: skip


def test_approval_to_status_is_a_section_the_benchmark_keeps_and_meets_its_target() -> None:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from sections import APPROVAL, section_of, separate_sections
    finally:
        sys.path.remove(str(REPO / "bench"))

    document = (REPO / "bench" / "RESULTS.md").read_text(encoding="utf-8")
    section = section_of(document, APPROVAL)
    assert section in separate_sections(document)
    found = re.search(
        r"Medians: full run ([0-9.]+) s, approval to status ([0-9.]+) s, ratio ([0-9.]+)", section
    )
    assert found is not None, section
    full, approval, ratio = map(float, found.groups())
    assert abs(approval / full - ratio) < 0.01 and ratio <= 0.25


@pytest.mark.slow  # runs real pytest, as the other benchmarks' tests do
def test_the_red_green_benchmark_writes_a_row_per_run_and_checks_the_outcomes(
    tmp_path: Path,
) -> None:
    written = run_bench(
        tmp_path,
        "bench/red_green.py",
        "--tests", "2000", "--replays", "1", "--repeat", "1", "--data", str(tmp_path / "data"),
    )  # fmt: skip
    assert written.startswith("# Benchmark\n\ntable\n\n## Red-green replays on a large suite\n")
    ratios = re.findall(r"^\| [^|]+ \| [0-9.]+ \| [0-9.-]+ \| ([0-9.]+) \|", written, re.MULTILINE)
    assert len(ratios) == 3 and ratios[0] == "1.00"
    assert re.search(r"against [0-9.]+ s, (pass|fail)\.", written)
