"""Measure the history at scale: a history of R runs of the T tests of the generated set
(bench/generate.py; R = 1,000 and T = 60,000 by default), its file size, one fold of a
real gate report into it, and the gate with `--history` against the gate without.

The gate writes waiver.json once; a history of R runs of its tests is built in this
process (one test in a thousand flips in one run in ten, the rest pass) and written as
`waiver history record` writes it. Then each repeat runs, each in its own fresh process
and interleaved: the gate; the gate with `--history`; and `waiver history record` of the
report into the full history (the window set to R runs, so one run leaves as one comes).
It prints the ratios of the medians to the gate's and replaces the section "History of
the default branch" of bench/RESULTS.md.

Usage: python bench/history.py [--tests 60000] [--runs 1000] [--repeat 3] [--out PATH]
       [--data DIR]
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
import time
from collections.abc import Sequence
from pathlib import Path

from run import BENCH, Run, ensure_set, gate_command, measure, ratio_table, warm_page_cache
from sections import HISTORY, write_section

from waiver.decide.history_fold import History, HistoryRun, RecordedRun, TestHistory, fold
from waiver.decide.policy import Policy
from waiver.read.stores.history_store import read_history
from waiver.write.history.history_file import history_bytes

GATE_TARGET = 1.2  # the gate with --history within 1.2x the gate (issue 44)
FOLD_TARGET = 10.0  # one fold into 1,000 runs of 60,000 tests in under 10 s (issue 44)
START = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


def built_history(test_ids: Sequence[str], runs: int) -> History:
    """R hourly runs: every thousandth test flips in every tenth run, the rest pass."""
    flaky_trace = "".join("U" if run % 10 == 3 else "P" for run in range(runs))
    flaky = TestHistory(flaky_trace, ("3/5",) * flaky_trace.count("U"), False, None)
    steady = TestHistory("P" * runs, (), False, None)
    tests = {
        test_id: flaky if number % 1000 == 7 else steady for number, test_id in enumerate(test_ids)
    }
    return History(
        tuple(
            HistoryRun(f"{run:040x}", START + datetime.timedelta(hours=run), "h", len(tests),
                       len(tests) // 1000 if run % 10 == 3 else 0, False)
            for run in range(runs)
        ),
        tests,
    )  # fmt: skip


def record_command(history: Path, report: Path, out: Path, config: Path, now: str) -> list[str]:
    return [
        sys.executable, "-m", "waiver", "history", "record", "--history", str(history),
        "--report", str(report), "--out", str(out), "--config", str(config), "--now", now,
    ]  # fmt: skip


def in_process(history_path: Path, report: Path, runs: int) -> dict[str, float]:
    """The parts of one fold timed in this process: read, fold, encode."""
    began = time.perf_counter()
    history = read_history(str(history_path))
    assert history is not None
    read = time.perf_counter()
    document = json.loads(report.read_text(encoding="utf-8"))
    passing = [row["test_id"] for row in document["rows"] if row["class"] == "stable_pass"]
    others = {
        row["test_id"]: ("U", f"{row['replay_pass']}/{row['replay_total']}")
        for row in document["rows"]
        if row["class"] != "stable_pass"
    }
    run = RecordedRun(None, START + datetime.timedelta(hours=runs), "h", frozenset(passing), others)
    loaded = time.perf_counter()
    policy = Policy(history_runs=runs, history_days=3650)
    folded = fold(history, run, policy, run.time)
    done = time.perf_counter()
    history_bytes(folded)
    encoded = time.perf_counter()
    return {
        "read": read - began,
        "fold": done - loaded,
        "encode": encoded - done,
    }


def measure_history(
    data: Path, tests: int, runs: int, repeat: int
) -> tuple[dict[str, list[Run]], dict[str, float]]:
    root = data / f"t{tests}"
    ensure_set(root, tests)
    warm_page_cache(root)
    measured: dict[str, list[Run]] = {"gate": [], "history": [], "record": []}
    facts: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="waiver-history-bench-") as scratch:
        first = Path(scratch) / "first"
        written = measure(gate_command(first), root, first)
        report = first / "waiver.json"
        if written.exit_code not in (0, 1) or not report.is_file():
            raise SystemExit(f"the gate failed: exit {written.exit_code}\n{written.stderr}")
        ids = [row["test_id"] for row in json.loads(report.read_text(encoding="utf-8"))["rows"]]
        began = time.perf_counter()
        data_bytes = history_bytes(built_history(ids, runs))
        facts["write_seconds"] = time.perf_counter() - began
        facts["file_bytes"] = len(data_bytes)
        history = Path(scratch) / "history.json.gz"
        history.write_bytes(data_bytes)
        facts.update(in_process(history, report, runs))
        config = Path(scratch) / "waiver.yml"
        config.write_text(f"history_runs: {runs}\nhistory_days: 3650\n", encoding="utf-8")
        now = (START + datetime.timedelta(hours=runs)).isoformat()
        for attempt in range(repeat):
            print(f"T={tests:,} R={runs:,} repeat {attempt + 1}/{repeat}", file=sys.stderr)
            logs = Path(scratch) / f"{attempt}"
            measured["gate"].append(measure(gate_command(logs / "gate"), root, logs / "gate"))
            with_history = [*gate_command(logs / "with"), "--history", str(history)]
            measured["history"].append(measure(with_history, root, logs / "with"))
            out = logs / "folded.json.gz"
            run = measure(record_command(history, report, out, config, now), root, logs / "record")
            if run.exit_code != 0:
                raise SystemExit(f"history record: exit {run.exit_code}\n{run.stderr}")
            measured["record"].append(run)
        facts["folded_bytes"] = out.stat().st_size
    return measured, facts


def section(
    measured: dict[str, list[Run]], facts: dict[str, float], tests: int, runs: int, repeat: int
) -> tuple[str, float, float]:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    gate = statistics.median(run.seconds for run in measured["gate"])
    names = {
        "gate": "`waiver gate`",
        "history": "`waiver gate --history` (the full history)",
        "record": "`waiver history record` (read, fold one run, write)",
    }
    lines = ratio_table(measured, names, "gate", ("command", "x gate"))
    ratio = statistics.median(run.seconds for run in measured["history"]) / gate
    fold_seconds = statistics.median(run.seconds for run in measured["record"])
    text = "\n".join(
        [
            HISTORY,
            "",
            "Regenerate with `python bench/history.py` (`--tests N`, `--runs R`, `--repeat N`).",
            "",
            f"- Date: {now}; {os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
            f"1-minute load average {os.getloadavg()[0]:.2f} at the end",
            f"- Set: the generated set of T = {tests:,} tests (bench/generate.py); a history of "
            f"R = {runs:,} runs of its tests, one in a thousand flipping in one run in ten",
            f"- History file: {facts['file_bytes'] / 1e6:.2f} MB gzip "
            f"({facts['folded_bytes'] / 1e6:.2f} MB after the fold); in one process, reading "
            f"it takes {facts['read']:.2f} s, folding one run {facts['fold']:.2f} s, "
            f"encoding it {facts['encode']:.2f} s",
            f"- Repeats: {repeat}, interleaved, each command in its own fresh process",
            "",
            *lines,
            "",
            f"Targets (issue 44): the gate with `--history` ≤ {GATE_TARGET:g}x the gate: "
            f"{ratio:.2f}x, {'pass' if ratio <= GATE_TARGET else 'fail'}; one fold into "
            f"{runs:,} runs of {tests:,} tests under {FOLD_TARGET:g} s: {fold_seconds:.1f} s, "
            f"{'pass' if fold_seconds < FOLD_TARGET else 'fail'}.",
            "",
        ]
    )
    return text, ratio, fold_seconds


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=60_000, help="T, the number of tests")
    parser.add_argument("--runs", type=int, default=1000, help="R, the runs of the history")
    parser.add_argument("--repeat", type=int, default=3, help="runs per command")
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    parser.add_argument("--data", type=Path, default=BENCH / "data")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.tests < 1 or args.runs < 1:
        parser.error("--repeat, --tests and --runs must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    measured, facts = measure_history(args.data, args.tests, args.runs, args.repeat)
    text, _, _ = section(measured, facts, args.tests, args.runs, args.repeat)
    print(text)
    write_section(args.out, HISTORY, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
