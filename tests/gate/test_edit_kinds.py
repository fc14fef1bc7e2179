"""The kinds of edit in a gate run: a base commit of a test module, a change that loosens one
test, skips another and reformats a third, and the gate with `--trusted-ref BASE`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.junit_support import case, junit
from helpers.support import gate_args, git, load_report
from waiver.cli import main

MODULE = "tests/test_calc.py"
BASE = """\
import pytest

from calc import add


def test_loose():
    assert add(2, 3) == 5


def test_skipped():
    assert add(1, 1) == 2


def test_reformatted():
    assert add(0, 0) == 0
"""
CHANGE = """\
import pytest

from calc import add


def test_loose():
    assert add(2, 3) is not None


@pytest.mark.skip(reason="later")
def test_skipped():
    assert add(1, 1) == 2


def test_reformatted():
    assert (
        add(0,
            0) == 0  # the same test
    )
"""
IDS = [f"{MODULE}::{name}" for name in ("test_loose", "test_skipped", "test_reformatted")]


def write_inputs(root: Path) -> None:
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "tests").mkdir()
    (root / MODULE).write_text(BASE)
    (root / "fixtures").mkdir()
    (root / "fixtures" / "data.json").write_text("{}\n")
    lock = ["lock", "--root", str(root), "--fixtures", str(root / "fixtures")]
    assert main([*lock, "--out", str(root / "fixture.lock")]) == 0
    (root / "properties.xml").write_text(junit(case("tests.properties", "test_invariant")))
    (root / "reports").mkdir()
    for replay in range(1, 6):
        cases = [case("tests.test_calc", test_id.split("::")[1]) for test_id in IDS]
        (root / "reports" / f"run-{replay}.xml").write_text(junit(*cases))
    (root / "known-tests.txt").write_text("".join(f"{test_id}\n" for test_id in IDS))


def test_a_loosened_comparison_and_a_skip_are_named_and_a_reformatting_is_no_edit(
    tmp_path: Path,
) -> None:
    write_inputs(tmp_path)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A", "--", ".", ":!reports", ":!properties.xml")
    git(tmp_path, "commit", "-q", "-m", "base")
    base = git(tmp_path, "rev-parse", "HEAD")
    (tmp_path / MODULE).write_text(CHANGE)
    git(tmp_path, "commit", "-q", "-am", "change")

    assert main(gate_args(tmp_path, "--trusted-ref", base, summary=True)) == 1
    report: dict[str, Any] = load_report(tmp_path / "waiver.json")
    assert report["registry"]["edited"] == [
        {
            "test_id": IDS[0],
            "changes": ["its body"],
            "findings": [{"kind": "comparison_loosened", "detail": "`==` became `is not None`"}],
            "diff": [
                "@@ its definition @@",
                " def test_loose():",
                "-    assert add(2, 3) == 5",
                "+    assert add(2, 3) is not None",
            ],
        },
        {
            "test_id": IDS[1],
            "changes": ["its decorators"],
            "findings": [{"kind": "mark_added", "detail": "`@pytest.mark.skip`"}],
            "diff": [
                "@@ its definition @@",
                "+@pytest.mark.skip(reason='later')",
                " def test_skipped():",
            ],
        },
    ]
    classes = {row["test_id"]: (row["class"], row["unknown"]) for row in report["rows"]}
    assert classes == {
        IDS[0]: ("unknown_test", "edited"),
        IDS[1]: ("unknown_test", "edited"),
        IDS[2]: ("stable_pass", None),
    }
    summary = (tmp_path / "summary.md").read_text()
    assert "| `` comparison loosened: `==` became `is not None` `` |" in summary
    assert "| `` mark added: `@pytest.mark.skip` `` |" in summary
    assert (
        "```diff\n@@ its definition @@\n def test_loose():\n-    assert add(2, 3) == 5\n" in summary
    )
