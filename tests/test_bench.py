"""The benchmark runs end to end on a tiny set and prints its table.

Times and ratios are measured by the benchmark, never asserted here.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

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


def test_the_freeze_benchmark_writes_its_section_with_a_ratio_per_command(tmp_path: Path) -> None:
    out = tmp_path / "RESULTS.md"
    out.write_text("# Benchmark\n\ntable\n")
    completed = subprocess.run(
        [sys.executable, "bench/freeze.py", "--tests", "2000", "--repeat", "1",
         "--out", str(out), "--data", str(tmp_path / "data")],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    written = out.read_text()
    assert written.startswith("# Benchmark\n\ntable\n\n## Freeze commands on a large report\n")
    ratios = re.findall(
        r"^\| `waiver (?:gate|freeze accept)[^|]*\|[^|]*\|[^|]*\| ([0-9.]+) \|",
        written,
        re.MULTILINE,
    )
    assert len(ratios) == 3 and ratios[0] == "1.00"
    assert re.search(r"≤ 2x the gate's time: [0-9.]+x, (pass|fail)\.", written)
