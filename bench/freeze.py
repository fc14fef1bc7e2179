"""Measure `waiver freeze accept` on a large report against the gate that wrote it.

On the generated set of T tests (bench/generate.py; T = 20,000 by default) the gate writes
waiver.json, then each repeat runs, each in its own fresh process and interleaved: the
gate; `freeze accept` of one unstable test into an empty store; and `freeze accept` of a
stable failure, which it refuses (exit 2). It prints the ratios of the medians to the gate's
and replaces the section "Freeze commands on a large report" of bench/RESULTS.md.

Usage: python bench/freeze.py [--tests 20000] [--repeat 5] [--out PATH] [--data DIR]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from run import BENCH, Run, ensure_set, gate_command, measure, ratio_table, warm_page_cache
from sections import FREEZE, write_section

TARGET = 2.0  # freeze accept within twice the gate's time (issue 25)


def freeze_command(report: Path, store: Path, test_id: str) -> list[str]:
    return [
        sys.executable, "-m", "waiver", "freeze", "accept",
        "--report", str(report), "--store", str(store), test_id,
    ]  # fmt: skip


def pick_ids(report: Path) -> tuple[str, str]:
    """An unstable test with a proposal, and a stable failure, from the gate's report."""
    document = json.loads(report.read_text(encoding="utf-8"))
    unstable = next(row["test_id"] for row in document["rows"] if row["freeze"] is not None)
    red = next(
        row["test_id"] for row in document["rows"] if row["class"] == "stable_assertion_fail"
    )
    return unstable, red


def measure_freeze(data: Path, tests: int, repeat: int) -> tuple[dict[str, list[Run]], int]:
    root = data / f"t{tests}"
    ensure_set(root, tests)
    warm_page_cache(root)
    runs: dict[str, list[Run]] = {"gate": [], "accept": [], "refuse": []}
    with tempfile.TemporaryDirectory(prefix="waiver-freeze-bench-") as scratch:
        first = Path(scratch) / "first"
        written = measure(gate_command(first), root, first)
        report = first / "waiver.json"
        if written.exit_code not in (0, 1) or not report.is_file():
            raise SystemExit(f"the gate failed: exit {written.exit_code}\n{written.stderr}")
        unstable, red = pick_ids(report)
        report_bytes = report.stat().st_size
        for attempt in range(repeat):
            print(f"T={tests:,} repeat {attempt + 1}/{repeat}", file=sys.stderr)
            logs = Path(scratch) / f"{attempt}"
            runs["gate"].append(measure(gate_command(logs / "gate"), root, logs / "gate"))
            store = logs / "freezes.json"
            for name, test_id, expected in (("accept", unstable, 0), ("refuse", red, 2)):
                run = measure(freeze_command(report, store, test_id), root, logs / name)
                if run.exit_code != expected:
                    raise SystemExit(f"freeze accept {test_id}: exit {run.exit_code}\n{run.stderr}")
                runs[name].append(run)
    return runs, report_bytes


def section(
    runs: dict[str, list[Run]], tests: int, report_bytes: int, repeat: int
) -> tuple[str, float]:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    gate = statistics.median(run.seconds for run in runs["gate"])
    names = {
        "gate": "`waiver gate` (writes the report)",
        "accept": "`waiver freeze accept` of one unstable test",
        "refuse": "`waiver freeze accept` of a stable failure (refused, exit 2)",
    }
    lines = ratio_table(runs, names, "gate", ("command", "x gate"))
    ratio = statistics.median(run.seconds for run in runs["accept"]) / gate
    verdict = "pass" if ratio <= TARGET else "fail"
    text = "\n".join(
        [
            FREEZE,
            "",
            "Regenerate with `python bench/freeze.py` (`--tests N`, `--repeat N`).",
            "",
            f"- Date: {now}; {os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
            f"1-minute load average {os.getloadavg()[0]:.2f} at the end",
            f"- Set: the generated set of T = {tests:,} tests (bench/generate.py); its waiver.json "
            f"is {report_bytes / 1e6:.1f} MB",
            f"- Repeats: {repeat}, interleaved, each command in its own fresh process",
            "",
            *lines,
            "",
            f"Target (issue 25): `freeze accept` ≤ {TARGET:g}x the gate's time: "
            f"{ratio:.2f}x, {verdict}.",
            "",
        ]
    )
    return text, ratio


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=20_000, help="T, the number of tests")
    parser.add_argument("--repeat", type=int, default=5, help="runs per command")
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    parser.add_argument("--data", type=Path, default=BENCH / "data")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.tests < 1:
        parser.error("--repeat and --tests must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    runs, report_bytes = measure_freeze(args.data, args.tests, args.repeat)
    text, _ = section(runs, args.tests, report_bytes, args.repeat)
    print(text)
    write_section(args.out, FREEZE, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
