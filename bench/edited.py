"""Measure edited-test detection: the gate with a trusted revision on a large suite.

On the generated set of T tests (bench/generate.py; T = 60,000 by default) the module files
are given real test definitions (parametrized functions and a class of methods, each calling
a helper of `tests/helpers.py`), committed as the base, and one change is committed on top.
Then each repeat runs, each in its own fresh process and interleaved:

- **no trusted revision**: the gate as bench/run.py runs it, nothing compared;
- **source edit**: `--trusted-ref BASE` on a change that edits only code under test, so no
  test module is parsed;
- **one test edited**: the change loosens one test; its module is parsed on both commits;
- **shared helper edited**: the change empties the helper every test calls, so every test
  module is parsed on both commits and every row is edited (the worst case).

It prints the medians and their ratio to the first, and replaces the section "Edited-test
detection on a large suite" of bench/RESULTS.md.

Usage: python bench/edited.py [--tests 60000] [--repeat 3] [--out PATH] [--data DIR]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from run import BENCH, Run, ensure_set, gate_command, measure, ratio_table, warm_page_cache
from sections import EDITED, write_section

TARGET = 2.0  # within twice the gate's time without detection (issues 33 and 39)
HELPERS = "def check(value):\n    assert value.startswith('param-')\n"
TEST = "@pytest.mark.parametrize('param', PARAMS)\ndef test_case_{n}(param):\n    check(param)\n"
METHOD = (
    "    @pytest.mark.parametrize('param', PARAMS)\n"
    "    def test_method_{n}(self, param):\n        check(param)\n"
)
MODULE = (
    '"""Generated benchmark module."""\n\nimport pytest\n\nfrom tests.helpers import check\n\n'
    "PARAMS = [f'param-{{n}}' for n in range(5)]\n\n\n{tests}\n\nclass TestGroup:\n{methods}"
)
SCENARIOS = {
    "plain": "no trusted revision",
    "source": "source edit, `--trusted-ref`",
    "one": "one test edited, `--trusted-ref`",
    "helper": "shared helper edited, `--trusted-ref` (every row edited)",
}


def git(cwd: Path, *args: str) -> str:
    completed = subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@invalid", *args],
        cwd=cwd, capture_output=True, text=True, check=True,
        env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"},
    )  # fmt: skip
    return completed.stdout.strip()


def module_text() -> str:
    tests = "\n\n".join(TEST.format(n=n) for n in range(16))
    methods = "\n".join(METHOD.format(n=n) for n in range(4))
    return MODULE.format(tests=tests, methods=methods)


def make_repository(source: Path, work: Path) -> str:
    """A copy of the set with real test modules, committed: the base commit's id."""
    shutil.copytree(source, work)
    text = module_text()
    for module in (work / "tests").rglob("test_mod_*.py"):
        module.write_text(text, encoding="utf-8")
    (work / "tests" / "helpers.py").write_text(HELPERS, encoding="utf-8")
    (work / "src").mkdir(exist_ok=True)
    (work / "src" / "service.py").write_text("VALUE = 1\n", encoding="utf-8")
    git(work, "init", "--quiet")
    git(work, "add", "tests", "fixtures", "fixture.lock", "known-tests.txt", "src")
    git(work, "commit", "--quiet", "-m", "base")
    return git(work, "rev-parse", "HEAD")


def commit_change(work: Path, base: str, scenario: str) -> None:
    git(work, "checkout", "--quiet", "--force", base)
    if scenario == "source":
        (work / "src" / "service.py").write_text("VALUE = 2\n", encoding="utf-8")
    elif scenario == "one":
        module = work / "tests" / "pkg_0" / "test_mod_0.py"
        module.write_text(module.read_text().replace("    check(param)\n", "    return\n", 1))
    elif scenario == "helper":
        (work / "tests" / "helpers.py").write_text("def check(value):\n    pass\n")
    git(work, "commit", "--quiet", "--allow-empty", "-am", scenario)


def measure_edited(data: Path, tests: int, repeat: int) -> dict[str, list[Run]]:
    source = data / f"t{tests}"
    ensure_set(source, tests)
    runs: dict[str, list[Run]] = {name: [] for name in SCENARIOS}
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch) / "repository"
        base = make_repository(source, work)
        heads = {}
        for scenario in SCENARIOS:
            commit_change(work, base, scenario)
            heads[scenario] = git(work, "rev-parse", "HEAD")
        warm_page_cache(work)
        for attempt in range(repeat):
            for scenario in SCENARIOS:
                print(f"T={tests:,} {scenario} {attempt + 1}/{repeat}", file=sys.stderr)
                git(work, "checkout", "--quiet", "--force", heads[scenario])
                logs = Path(scratch) / f"{scenario}-{attempt}"
                command = gate_command(logs)
                if scenario != "plain":
                    command += ["--trusted-ref", base]
                run = measure(command, work, logs)
                if run.exit_code not in (0, 1):
                    raise SystemExit(f"{scenario}: exit {run.exit_code}\n{run.stderr}")
                edited = json.loads((logs / "waiver.json").read_text())["registry"].get("edited")
                expected = {"plain": None, "source": 0, "one": 5, "helper": None}[scenario]
                if expected is not None and len(edited) != expected:
                    raise SystemExit(f"{scenario}: {len(edited)} edited tests, not {expected}")
                runs[scenario].append(run)
    return runs


def section(runs: dict[str, list[Run]], tests: int, repeat: int) -> tuple[str, float]:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    plain = statistics.median(run.seconds for run in runs["plain"])
    lines = ratio_table(runs, SCENARIOS, "plain", ("gate run", "x no trusted revision"))
    worst = statistics.median(run.seconds for run in runs["helper"]) / plain
    verdict = "pass" if worst <= TARGET else "fail"
    text = "\n".join(
        [
            EDITED,
            "",
            "Regenerate with `python bench/edited.py` (`--tests N`, `--repeat N`).",
            "",
            f"- Date: {now}; {os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
            f"1-minute load average {os.getloadavg()[0]:.2f} at the end",
            f"- Set: the generated set of T = {tests:,} tests in {tests // 100:,} modules, with "
            "real test definitions, committed; one change commit per row",
            f"- Repeats: {repeat}, interleaved, each gate in its own fresh process",
            "",
            *lines,
            "",
            f"Target (issues 33 and 39): the gate with edited-test detection ≤ {TARGET:g}x its time "
            f"without, in the worst case: {worst:.2f}x, {verdict}.",
            "",
        ]
    )
    return text, worst


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=60000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    parser.add_argument("--data", type=Path, default=BENCH / "data")
    args = parser.parse_args(argv)
    runs = measure_edited(args.data, args.tests, args.repeat)
    text, _ = section(runs, args.tests, args.repeat)
    print(text, end="")
    write_section(args.out, EDITED, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
