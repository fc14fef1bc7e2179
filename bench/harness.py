"""Measure harness resolution as the number of plugin names grows: it must stay linear.

A configuration file's `addopts` can name plugins by the tens of thousands within the size
caps, and every name is resolved at every import root. This writes a tree whose `pytest.ini`
names N plugins (`-p plugin_<n>`; every tenth resolves to a module in the tree), resolves
the harness in this process for each N, interleaved over the repeats, and prints the
medians and their ratio to the smallest N's. Linear work gives a ratio near N / N_min.
It replaces the section "Harness resolution by plugin count" of bench/RESULTS.md.

Usage: python bench/harness.py [--names 4000 16000] [--repeat 5] [--out PATH]
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from sections import HARNESS, write_section

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))

from waiver.read.harness.named import Harness, harness_in_tree  # noqa: E402
from waiver.read.trusted.ignored import ignored_folders  # noqa: E402
from waiver.runners.pytest.harness.finder import PYTEST_FINDER  # noqa: E402


def write_tree(root: Path, names: int) -> None:
    """A repository whose pytest.ini names `names` plugins, a tenth of them in the tree."""
    root.mkdir(parents=True)
    options = "\n".join(f"    -p plugin_{n}" for n in range(names))
    (root / "pytest.ini").write_text(f"[pytest]\naddopts =\n{options}\n")
    (root / "conftest.py").write_text("")
    for n in range(0, names, 10):
        (root / f"plugin_{n}.py").write_text("")


def resolve_seconds(root: Path) -> tuple[float, int]:
    start = time.perf_counter()
    # The folders the lock skips are found first, as `waiver lock` finds them.
    found = harness_in_tree(str(root), Harness(PYTEST_FINDER), ignored_folders(str(root), None))
    return time.perf_counter() - start, len(found)


def measure(sizes: Sequence[int], repeat: int) -> dict[int, tuple[list[float], int]]:
    with tempfile.TemporaryDirectory() as scratch:
        roots = {size: Path(scratch) / f"n{size}" for size in sizes}
        for size, root in roots.items():
            write_tree(root, size)
        times: dict[int, list[float]] = {size: [] for size in sizes}
        found: dict[int, int] = {}
        for _ in range(repeat):
            for size, root in roots.items():
                seconds, found[size] = resolve_seconds(root)
                times[size].append(seconds)
    return {size: (times[size], found[size]) for size in sizes}


def section(results: dict[int, tuple[list[float], int]], repeat: int) -> str:
    smallest = min(results)
    base = statistics.median(results[smallest][0])
    lines = [
        HARNESS,
        "",
        "Regenerate with `python bench/harness.py` (in-process, interleaved, "
        f"{repeat} repeats per size).",
        "",
        f"- Date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC",
        f"- Python: {platform.python_implementation()} {platform.python_version()}",
        "",
        "| plugin names | harness files | median (s) | min-max (s) | x smallest | names x smallest |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for size, (times, found) in sorted(results.items()):
        median = statistics.median(times)
        lines.append(
            f"| {size:,} | {found:,} | {median:.3f} | {min(times):.3f}-{max(times):.3f} "
            f"| {median / base:.2f} | {size / smallest:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, nargs="+", default=[4000, 16000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args(argv)
    text = section(measure(args.names, args.repeat), args.repeat)
    print(text, end="")
    write_section(args.out, HARNESS, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
