"""The one-line changes to a TypeScript library's code that hid a real bug from vitest and
ended `clean`, replayed by real vitest and gated: code that tells it runs under test, and
code that replaces what `toBe` compares with. Each is now a reach-in that blocks, named
with its file and line; a library that already read `NODE_ENV` and a refactor that names
nothing stay clean."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from helpers.js_projects import VITEST, VITEST_CALC
from helpers.node_support import replace_file
from helpers.support import classes

pytestmark = pytest.mark.slow

CUT = "  return Math.min(Math.max(x, lo), hi);\n"
# A library that drops its warnings in production, on the base already.
WARNS = 'const quiet = process.env.NODE_ENV === "production";\n\n'


def changed(source: str) -> Any:
    """A change that writes `source` over src/calc.ts."""
    return lambda work: replace_file(work / "src" / "calc.ts", source)


def gate(base_code: str, change_code: str, tmp_path: Path, node_modules: Path) -> Any:
    spec = dataclasses.replace(VITEST, files={**VITEST.files, "src/calc.ts": base_code})
    project, base = spec.start(tmp_path / "calc", node_modules)
    project.commit_change(changed(change_code))
    return project.replay_and_gate(base)


HIDDEN = {
    # Under vitest NODE_ENV is "test": the bug (no upper bound) shows only in production.
    "node-env": (
        VITEST_CALC.replace(CUT, '  const top = process.env.NODE_ENV === "test" ? hi : Infinity;\n'
                            "  return Math.min(Math.max(x, lo), top);\n"),
        2, "reads how it is run (NODE_ENV)",
    ),
    "import-meta-mode": (
        VITEST_CALC.replace(CUT, '  const top = import.meta.env.MODE === "test" ? hi : Infinity;\n'
                            "  return Math.min(Math.max(x, lo), top);\n"),
        2, "reads how it is run (import.meta.env.MODE)",
    ),
    # `toBe` compares with Object.is: a larger number now "is" a smaller one.
    "object-is": (
        "const is = Object.is;\n"
        "Object.is = (a: unknown, b: unknown) =>\n"
        "  is(a, b) || (typeof a === 'number' && typeof b === 'number' && a > b);\n\n"
        + VITEST_CALC.replace(CUT, "  return Math.max(x, lo);\n"),
        2, "replaces what assertions rely on (Object.is)",
    ),
}  # fmt: skip


@pytest.mark.parametrize("key", sorted(HIDDEN))
def test_a_bug_hidden_from_the_tests_by_the_code_under_test_blocks(
    tmp_path: Path, node_modules: Path, key: str
) -> None:
    source, line, what = HIDDEN[key]
    gated, report = gate(VITEST_CALC, source, tmp_path, node_modules)
    # The replays pass: the bug is hidden from them, as it was when this ended `clean`.
    assert set(classes(report).values()) == {"stable_pass"}
    assert (gated, report["verdict"]) == (1, "blocked")
    assert {"path": "src/calc.ts", "line": line, "what": what} in report["fixtures"]["runner_reach"]
    [blocker] = report["run_blockers"]
    assert f"src/calc.ts line {line} {what}" in blocker


def test_a_library_that_already_reads_node_env_stays_clean(
    tmp_path: Path, node_modules: Path
) -> None:
    base = WARNS + VITEST_CALC
    refactored = base.replace(CUT, "  const low = Math.max(x, lo);\n  return Math.min(low, hi);\n")
    gated, report = gate(base, refactored, tmp_path, node_modules)
    assert (gated, report["verdict"]) == (0, "clean"), report["run_blockers"]
    assert report["fixtures"]["runner_reach"] == []
