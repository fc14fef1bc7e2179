"""Measure `waiver gate` against the expat floor and the junitparser peer.

For every size T it generates a replay set when absent (bench/generate.py), then runs the
floor (bench/floor.py), the peer (bench/peer.py) and `python -m waiver gate` on the same
files, each in its own fresh process, `--repeat` times, interleaved. It prints a Markdown
table and writes it, with the targets of issue 6, to bench/RESULTS.md.

Usage: python bench/run.py [--sizes 10000 100000 500000] [--repeat 5] [--quick] [--out PATH]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from generate import DEFAULT_SEED, REPLAYS, generate, read_manifest, set_parameters
from sections import separate_sections

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
DEFAULT_SIZES = (10_000, 100_000, 500_000)
QUICK_SIZE = 2_000
READERS = ("floor", "peer", "gate")
BLOCKING_CLASSES = ("property_violation", "fixture_drift", "unknown_test", "stable_assertion_fail")

# Measured processes are started by this small launcher, not by the runner: Linux hands
# the peak RSS of the process that starts a program to the program's own peak, and the
# runner grows while it generates sets and reads reports. The launcher stays below every
# reader measured. Its arguments: a file for "seconds cpu_seconds max_rss_kib exit_code", then
# the command. CPU time and RSS include the command's own children, should it start any.
LAUNCHER = """\
import os, sys, time
command = sys.argv[2:]
start = time.perf_counter()
pid = os.posix_spawn(command[0], command, os.environ)
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
with open(sys.argv[1], "w") as out:
    cpu = usage.ru_utime + usage.ru_stime
    out.write(f"{seconds} {cpu} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
"""


@dataclass(frozen=True)
class Run:
    """One measured process: wall and CPU seconds from start to exit, its peak RSS, its exit."""

    seconds: float
    cpu_seconds: float
    max_rss_kib: int
    exit_code: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Result:
    """All repeats of one reader on one set, and whether its output was right."""

    tests: int
    xml_bytes: int
    reader: str
    runs: tuple[Run, ...]
    check: str

    @property
    def median(self) -> float:
        return statistics.median(run.seconds for run in self.runs)

    @property
    def cpu_median(self) -> float:
        return statistics.median(run.cpu_seconds for run in self.runs)

    @property
    def peak_rss_mib(self) -> float:
        return max(run.max_rss_kib for run in self.runs) / 1024

    @property
    def micros_per_test(self) -> float:
        """Median wall time per test id per replay, in microseconds."""
        return self.median / (self.tests * REPLAYS) * 1e6


def measured_env() -> dict[str, str]:
    """The environment of measured processes: the repository importable, and no CI
    variables, so the gate writes only the files it is told to."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GITHUB_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    return env


def measure(command: Sequence[str], cwd: Path, logs: Path) -> Run:
    """Run `command` in a fresh process; wall time and max RSS of that process alone."""
    logs.mkdir(parents=True, exist_ok=True)
    outcome = logs / "measured"
    with (logs / "stdout").open("wb") as out, (logs / "stderr").open("wb") as err:
        launcher = [sys.executable, "-I", "-S", "-c", LAUNCHER, str(outcome), *command]
        subprocess.run(launcher, cwd=cwd, env=measured_env(), stdout=out, stderr=err, check=True)
    seconds, cpu_seconds, max_rss_kib, exit_code = outcome.read_text(encoding="utf-8").split()
    return Run(
        seconds=float(seconds),
        cpu_seconds=float(cpu_seconds),
        max_rss_kib=int(max_rss_kib),
        exit_code=int(exit_code),
        stdout=(logs / "stdout").read_text(encoding="utf-8", errors="replace"),
        stderr=(logs / "stderr").read_text(encoding="utf-8", errors="replace"),
    )


def ratio_table(
    runs: dict[str, list[Run]], labels: dict[str, str], baseline: str, headers: tuple[str, str]
) -> list[str]:
    """A Markdown table of each labelled command's wall times and peak RSS, with the ratio
    of its median to the `baseline`'s; `headers` name the first and the ratio columns."""
    base = statistics.median(run.seconds for run in runs[baseline])
    lines = [
        f"| {headers[0]} | wall median (s) | min-max (s) | {headers[1]} | peak RSS (MB) |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, label in labels.items():
        seconds = [run.seconds for run in runs[name]]
        median = statistics.median(seconds)
        rss = max(run.max_rss_kib for run in runs[name]) / 1024
        lines.append(
            f"| {label} | {median:.3f} | {min(seconds):.3f}-{max(seconds):.3f} "
            f"| {median / base:.2f} | {rss:.0f} |"
        )
    return lines


def ensure_set(root: Path, tests: int) -> dict[str, object]:
    """The manifest of the set for T, generating the set when absent or stale."""
    manifest = read_manifest(root)
    wanted = set_parameters(tests, DEFAULT_SEED)
    if manifest is not None and all(manifest.get(key) == value for key, value in wanted.items()):
        return manifest
    print(f"generating T={tests:,} into {root}", file=sys.stderr)
    return generate(root, tests, DEFAULT_SEED)


def warm_page_cache(root: Path) -> None:
    """Read every report once so the first measured reader does not pay for the disk."""
    for path in sorted((root / "reports").glob("run-*.xml")):
        with path.open("rb") as stream:
            while stream.read(1 << 20):
                pass


def gate_command(out_dir: Path) -> list[str]:
    return [
        sys.executable, "-m", "waiver", "gate",
        "--reports", "reports",
        "--properties", "properties.xml",
        "--fixtures", "fixtures",
        "--lock", "fixture.lock",
        "--known-tests", "known-tests.txt",
        "--out", str(out_dir / "waiver.json"),
        "--summary", str(out_dir / "summary.md"),
        "--root", ".",
    ]  # fmt: skip


def check_reader(run: Run, manifest: dict[str, object]) -> str:
    """'ok' when a floor or peer run saw exactly the generated cases."""
    if run.exit_code != 0:
        return f"exit {run.exit_code}"
    expected = {
        "occurrences": manifest["expected_occurrences"],
        "id_chars": manifest["expected_id_chars"],
    }
    seen = json.loads(run.stdout)
    return "ok" if seen == expected else f"saw {seen}, expected {expected}"


def check_gate(run: Run, out_dir: Path, manifest: dict[str, object]) -> str:
    """'ok' when the gate classified the set as generated and exited accordingly."""
    counts = manifest["expected_counts"]
    assert isinstance(counts, dict)
    expected_exit = 1 if any(counts[name] for name in BLOCKING_CLASSES) else 0
    if run.exit_code != expected_exit:
        return f"exit {run.exit_code}, expected {expected_exit}"
    report = json.loads((out_dir / "waiver.json").read_text(encoding="utf-8"))
    seen = {"counts": report["counts"], "skipped": len(report["skipped"])}
    expected = {"counts": counts, "skipped": manifest["expected_skipped"]}
    if not (out_dir / "summary.md").is_file():
        return "no summary written"
    return "ok" if seen == expected else f"saw {seen}, expected {expected}"


def bench_size(data: Path, tests: int, repeat: int) -> list[Result]:
    """Measure the three readers on the set for T, interleaving their repeats."""
    root = data / f"t{tests}"
    manifest = ensure_set(root, tests)
    xml_bytes = manifest["xml_bytes"]
    assert isinstance(xml_bytes, int)
    warm_page_cache(root)
    runs: dict[str, list[Run]] = {reader: [] for reader in READERS}
    checks: dict[str, str] = {reader: "ok" for reader in READERS}
    with tempfile.TemporaryDirectory(prefix="waiver-bench-") as scratch:
        for attempt in range(repeat):
            print(f"T={tests:,} repeat {attempt + 1}/{repeat}", file=sys.stderr)
            for reader in READERS:
                logs = Path(scratch) / f"{reader}-{attempt}"
                if reader == "gate":
                    run = measure(gate_command(logs), root, logs)
                    check = check_gate(run, logs, manifest)
                else:
                    command = [sys.executable, str(BENCH / f"{reader}.py"), "reports"]
                    run = measure(command, root, logs)
                    check = check_reader(run, manifest)
                if check != "ok" and checks[reader] == "ok":
                    checks[reader] = check
                    print(
                        f"{reader} at T={tests:,}: {check}\n{run.stderr[-4000:]}", file=sys.stderr
                    )
                runs[reader].append(run)
    return [
        Result(tests, xml_bytes, reader, tuple(runs[reader]), checks[reader]) for reader in READERS
    ]


def results_table(results: Sequence[Result]) -> str:
    lines = [
        "| T | XML (MB) | reader | wall median (s) | min-max (s) | x floor | CPU median (s) "
        "| peak RSS (MB) | µs per test per replay | check |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    floors = {result.tests: result.median for result in results if result.reader == "floor"}
    for result in results:
        seconds = [run.seconds for run in result.runs]
        lines.append(
            f"| {result.tests:,} | {result.xml_bytes / 1e6:.1f} | {result.reader} "
            f"| {result.median:.3f} "
            f"| {min(seconds):.3f}-{max(seconds):.3f} | {result.median / floors[result.tests]:.2f} "
            f"| {result.cpu_median:.3f} | {result.peak_rss_mib:.0f} | {result.micros_per_test:.2f} "
            f"| {result.check} |"
        )
    return "\n".join(lines) + "\n"


def targets_table(results: Sequence[Result]) -> str:
    """The targets of issue 6, each with what was measured and pass or fail."""
    found = {(result.tests, result.reader): result for result in results}

    def verdict(ok: bool) -> str:
        return "pass" if ok else "**fail**"

    rows: list[tuple[str, str, str]] = []
    for tests in (100_000, 500_000):
        gate, floor = found.get((tests, "gate")), found.get((tests, "floor"))
        target = f"`waiver gate` ≤ 1.3x the floor at T = {tests:,}"
        if gate and floor:
            ratio = gate.median / floor.median
            rows.append((target, f"{ratio:.2f}x", verdict(ratio <= 1.3)))
        else:
            rows.append((target, "not measured", "—"))
    gate = found.get((500_000, "gate"))
    target = "peak RSS of `waiver gate` ≤ 300 MB at T = 500,000"
    rows.append(
        (target, f"{gate.peak_rss_mib:.0f} MB", verdict(gate.peak_rss_mib <= 300))
        if gate
        else (target, "not measured", "—")
    )
    gate, peer = found.get((100_000, "gate")), found.get((100_000, "peer"))
    target = "`waiver gate` ≥ 2x faster than the peer at T = 100,000"
    if gate and peer:
        speedup = peer.median / gate.median
        rows.append((target, f"peer / gate = {speedup:.2f}", verdict(speedup >= 2)))
    else:
        rows.append((target, "not measured", "—"))
    large, small = found.get((500_000, "gate")), found.get((10_000, "gate"))
    target = "per-test time of `waiver gate` at T = 500,000 ≤ 1.2x that at T = 10,000"
    if large and small:
        growth = large.micros_per_test / small.micros_per_test
        rows.append((target, f"{growth:.2f}x", verdict(growth <= 1.2)))
    else:
        rows.append((target, "not measured", "—"))
    rows.append(
        ("hardening on while measuring", "gate run with its default flags", "by construction")
    )
    lines = ["| target | measured | result |", "|---|---|---|"]
    lines += [f"| {target} | {measured} | {result} |" for target, measured, result in rows]
    return "\n".join(lines) + "\n"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def results_document(results: Sequence[Result], repeat: int, load_before: float) -> str:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""# Benchmark: `waiver gate` against the expat floor and the junitparser peer

Regenerate with one command, from the repository root: `python bench/run.py`
(`--sizes 10000 100000` to choose sizes, `--repeat N`, `--quick` for a smoke run).

- Date: {now}
- Machine: {os.cpu_count()} cores ({cpu_model()}), {platform.system()} {platform.machine()}; \
1-minute load average {load_before:.2f} before and {os.getloadavg()[0]:.2f} after the run
- Python: {platform.python_implementation()} {platform.python_version()}
- Repeats: {repeat} per reader and size, interleaved (floor, peer, gate, floor, …)

## What is measured

Every reader runs in its own fresh process on the same files; wall time is process start
to exit (median of the repeats, min-max beside it), CPU is user plus system time, peak RSS
is that process's maximum resident set (`os.wait4`), the largest over the repeats. CPU and
RSS include any child processes a reader starts (RSS as the largest single process).

- **floor** (`bench/floor.py`): one `xml.parsers.expat` pass per replay that takes
  (`classname::name`, outcome) from every testcase and does nothing else.
- **peer** (`bench/peer.py`): junitparser's whole-tree `JUnitXml.fromfile`, one replay at a
  time, visiting every case and reading its results.
- **gate**: `python -m waiver gate --reports reports --properties properties.xml --fixtures fixtures
  --lock fixture.lock --known-tests known-tests.txt --out … --summary … --root .`, end to end,
  writing `waiver.json` and the summary. It reads the first replay itself and the others in
  worker processes, one per core, so its wall time is below its CPU time; the floor and the
  peer use one core.

The sets (`bench/generate.py`, seeded, written to `bench/data/`, not committed): T test ids in
pytest `--junitxml` form, parametrized, one module file per 100 ids so ids follow the pytest
rule; 2% fail in every replay with multi-KB tracebacks (a tenth of them as setup errors),
1% are skipped, 0.5% flip between the {REPLAYS} replays, 3% carry `system-out`; a passing
property report of 40 cases; 300 JSON fixtures under a `sha256sum` lock; a registry of every id
expected to run. *check* is `ok` when the floor and peer saw exactly the generated cases and the
gate's counts per class and skipped list equal the generated ones (and it exited 1: the stable
failures block).

## Results

{results_table(results)}
## Targets (issue 6)

{targets_table(results)}
The per-test growth target compares whole-process times, so the start-up of the process
weighs more at T = 10,000 than at T = 500,000; the target guards against superlinear cost.
"""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES), help="values of T"
    )
    parser.add_argument(
        "--repeat", type=int, default=5, help="runs per reader and size (median is reported)"
    )
    parser.add_argument("--quick", action="store_true", help=f"T={QUICK_SIZE:,}, one repeat")
    parser.add_argument(
        "--out", type=Path, default=BENCH / "RESULTS.md", help="where to write the results"
    )
    parser.add_argument(
        "--data", type=Path, default=BENCH / "data", help="folder holding the generated sets"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.repeat = [QUICK_SIZE], 1
    if args.repeat < 1 or any(size < 1 for size in args.sizes):
        parser.error("--repeat and every size must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    load_before = os.getloadavg()[0]
    results: list[Result] = []
    for tests in args.sizes:
        results += bench_size(args.data, tests, args.repeat)
    print(results_table(results))
    print(targets_table(results))
    # The sections measured apart (bench/workflow.py, startup.py, freeze.py, harness.py, and
    # the test suite by hand) are kept.
    kept = separate_sections(args.out.read_text(encoding="utf-8")) if args.out.exists() else ""
    document = results_document(results, args.repeat, load_before)
    args.out.write_text(document + (f"\n{kept}" if kept else ""), encoding="utf-8")
    return 0 if all(result.check == "ok" for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
