"""Measure red-green replays: `waiver red-green` of 10 new tests on a large suite, beside
the replays of those 10 tests alone.

On the generated set of T tests (bench/generate.py; T = 60,000 by default), with real test
modules as bench/edited.py makes them, committed as the base with a root `conftest.py` and
a `service.py`, one change fixes `service.py` and adds a module of 10 new tests: 5 that
exercise the fix (red on the base) and 5 that do not (green there too). Each repeat runs,
each in its own fresh process and interleaved:

- **N replays of the 10 tests**: pytest on the 10 ids, N times, in the change's checkout,
  as `waiver replay` runs them (Python's bytecode compiled into a folder of their own);
- **set-up alone**: what `waiver red-green` does before its first replay, the base's files
  written into a scratch folder, the change's test files over them, and the work tree's
  `node_modules` beside each of the base's package.json files linked in (none here: the
  walk that looks for them is what it costs a Python project);
- **waiver red-green -n N**: the set-up, then the same N replays there.

It prints the medians, checks that the command found the 5 red and the 5 green tests, and
replaces the section "Red-green replays on a large suite" of bench/RESULTS.md. The target
(issue 43): red-green takes at most the N replays plus the set-up (with 10% slack for the
noise of separate processes).

Usage: python bench/red_green.py [--tests 60000] [--replays 5] [--repeat 3] [--out PATH]
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

from edited import git, make_repository
from run import BENCH, Run, ensure_set, measure, ratio_table
from sections import RED_GREEN, write_section

SLACK = 1.10
NEW_TESTS = 10
NEW_MODULE = "tests/test_red_green_new.py"
RED_TEST = "def test_fixed_{n}():\n    assert service.value() == 2\n"
GREEN_TEST = "def test_anyway_{n}():\n    assert service.value() in (1, 2)\n"
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
# As `waiver replay` runs them: bytecode compiled into a folder of the run's own.
REPLAYS_SCRIPT = """\
import os, subprocess, sys, tempfile
count, out, command = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
env = {**os.environ, "PYTHONPYCACHEPREFIX": tempfile.mkdtemp(prefix="bench-pycache-")}
for number in range(1, count + 1):
    junit = f"--junitxml={out}/run-{number}.xml"
    subprocess.run([*command, junit], check=False, stdout=subprocess.DEVNULL, env=env)
"""
SETUP_SCRIPT = """\
import sys, tempfile
from waiver.read.harness.named import Harness
from waiver.runners.pytest.harness.finder import PYTEST_FINDER
from waiver.replay.red_green_tree import lay_out, link_installs
from waiver.read.trusted.git import GitRevision
modules = frozenset(test_id.partition("::")[0] for test_id in sys.argv[2:])
committed = GitRevision(".", sys.argv[1]).committed()
with tempfile.TemporaryDirectory() as folder:
    lay_out(committed, modules, folder, Harness(PYTEST_FINDER))
    link_installs(committed, ".", folder)
"""
LABELS = {
    "replays": "N replays of the 10 tests, in the checkout",
    "setup": "set-up alone: the base laid out, the change's test files over it, installs linked",
    "red_green": "`waiver red-green -n N`",
}


def new_ids() -> list[str]:
    half = NEW_TESTS // 2
    return [f"{NEW_MODULE}::test_fixed_{n}" for n in range(half)] + [
        f"{NEW_MODULE}::test_anyway_{n}" for n in range(half)
    ]


def make_change(work: Path) -> str:
    """The base with a root conftest and the code under test; then the fix and the new
    tests. The base's commit id."""
    (work / "conftest.py").write_text("", encoding="utf-8")
    (work / "service.py").write_text("def value():\n    return 1\n", encoding="utf-8")
    git(work, "add", "conftest.py", "service.py")
    git(work, "commit", "--quiet", "-m", "the code under test")
    base = git(work, "rev-parse", "HEAD")
    (work / "service.py").write_text("def value():\n    return 2\n", encoding="utf-8")
    half = NEW_TESTS // 2
    tests = [RED_TEST.format(n=n) for n in range(half)] + [
        GREEN_TEST.format(n=n) for n in range(half)
    ]
    (work / NEW_MODULE).write_text("import service\n\n\n" + "\n\n".join(tests), encoding="utf-8")
    git(work, "add", "service.py", NEW_MODULE)
    git(work, "commit", "--quiet", "-m", "fix and new tests")
    return base


def check(outcomes: Path) -> None:
    rows = json.loads(outcomes.read_text(encoding="utf-8"))["rows"]
    found = sorted(
        (row["test_id"].rpartition("::")[2].rpartition("_")[0], row["result"]) for row in rows
    )
    half = NEW_TESTS // 2
    wanted = sorted([("test_fixed", "red")] * half + [("test_anyway", "green")] * half)
    if found != wanted:
        raise SystemExit(f"red-green found {found}, not {wanted}")


def measure_red_green(data: Path, tests: int, replays: int, repeat: int) -> dict[str, list[Run]]:
    source = data / f"t{tests}"
    ensure_set(source, tests)
    runs: dict[str, list[Run]] = {name: [] for name in LABELS}
    ids = new_ids()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch) / "repository"
        make_repository(source, work)
        base = make_change(work)
        for attempt in range(repeat):
            print(f"T={tests:,} {attempt + 1}/{repeat}", file=sys.stderr)
            logs = Path(scratch) / f"{attempt}"
            out = logs / "replays"
            out.mkdir(parents=True)
            command = [sys.executable, "-c", REPLAYS_SCRIPT, str(replays), str(out)]
            runs["replays"].append(measure([*command, *PYTEST, *ids], work, out))
            setup = measure(
                [sys.executable, "-P", "-c", SETUP_SCRIPT, base, *ids], work, logs / "setup"
            )
            if setup.exit_code != 0:
                raise SystemExit(f"the set-up: exit {setup.exit_code}\n{setup.stderr}")
            runs["setup"].append(setup)
            outcomes = logs / "red-green"
            command = [sys.executable, "-P", "-m", "waiver", "red-green", "--base", base]
            command += ["-n", str(replays), "--out", str(outcomes)]
            command += [f"--test={test_id}" for test_id in ids]
            command += ["--", *PYTEST, "--junitxml={junit}"]
            run = measure(command, work, logs / "command")
            if run.exit_code != 0:
                raise SystemExit(f"waiver red-green: exit {run.exit_code}\n{run.stderr}")
            check(outcomes / "red-green.json")
            runs["red_green"].append(run)
    return runs


def section(runs: dict[str, list[Run]], tests: int, replays: int, repeat: int) -> tuple[str, bool]:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")

    def median(name: str) -> float:
        return statistics.median(run.seconds for run in runs[name])

    budget = (median("replays") + median("setup")) * SLACK
    passed = median("red_green") <= budget
    lines = ratio_table(runs, LABELS, "replays", ("run", "x the N replays"))
    text = "\n".join(
        [
            RED_GREEN,
            "",
            "Regenerate with `python bench/red_green.py` (`--tests N`, `--replays N`, "
            "`--repeat N`).",
            "",
            f"- Date: {now}; {os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
            f"1-minute load average {os.getloadavg()[0]:.2f} at the end",
            f"- Set: the generated set of T = {tests:,} tests with real test definitions, "
            f"committed as the base; a change that fixes the code and adds {NEW_TESTS} tests "
            f"({NEW_TESTS // 2} red on the base, {NEW_TESTS // 2} green there too); "
            f"N = {replays}",
            f"- Repeats: {repeat}, interleaved, each run in its own fresh process",
            "",
            *lines,
            "",
            f"Target (issue 43): `waiver red-green` ≤ the N replays plus the set-up "
            f"({SLACK:g}x for noise): {median('red_green'):.2f} s against "
            f"{budget:.2f} s, {'pass' if passed else 'fail'}.",
            "",
        ]
    )
    return text, passed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=60000)
    parser.add_argument("--replays", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    parser.add_argument("--data", type=Path, default=BENCH / "data")
    args = parser.parse_args(argv)
    runs = measure_red_green(args.data, args.tests, args.replays, args.repeat)
    text, _ = section(runs, args.tests, args.replays, args.repeat)
    print(text, end="")
    write_section(args.out, RED_GREEN, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
