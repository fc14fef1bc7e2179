"""`waiver change-tests-plan` on a base and a change built from scratch: which of the
change's test files run apart on its tree and which tests need red-green replays, read from
the two commits alone, and the tree they run in; and `waiver red-green --replayed`, which
reads replays another process ran."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.red_green_support import BASE, CHANGE, ERRORED, GREEN, KNOWN, RED, commit
from helpers.support import git
from waiver.cli import main

REGISTRY = "known-tests.txt"
REGISTERED_BASE = {**BASE, REGISTRY: f"{KNOWN}\n"}
# The change edits the known test's assertion, lists two of its three new tests in its
# registry, and rewrites the conftest (harness).
REGISTERED_CHANGE = {
    **CHANGE,
    "tests/test_calc.py": CHANGE["tests/test_calc.py"].replace(
        "assert add(1, 2) == 3", "assert add(1, 2) is not None"
    ),
    REGISTRY: f"{KNOWN}\n{RED}\n{ERRORED}\n",
}


def repository(work: Path, change: dict[str, str] = REGISTERED_CHANGE) -> str:
    """The base with its registry committed, then `change` over it; the base's commit."""
    git(work, "init", "--quiet")
    base = commit(work, REGISTERED_BASE, "base")
    commit(work, change, "change")
    return base


def plan(base: str, *more: str) -> int:
    return main(["change-tests-plan", "--trusted-ref", base, "--out", "plan",
                 "--known-tests", REGISTRY, *more])  # fmt: skip


def test_the_new_tests_the_change_lists_and_the_tests_it_edited_are_planned(work: Path) -> None:
    base = repository(work)

    assert plan(base, "--lay-out") == 0

    # GREEN is new and its file declares it, though the change's registry does not list
    # it: it gets its evidence too.
    candidates = [RED, KNOWN, GREEN, ERRORED]
    assert (work / "plan" / "candidates.txt").read_text().splitlines() == candidates
    modules = work / "plan" / "modules"
    assert sorted(p.name for p in modules.iterdir()) == [
        "1.file", "1.pattern", "1.txt", "2.file", "2.pattern", "2.txt",
    ]  # fmt: skip
    assert [(modules / f"{k}.txt").read_text().splitlines() for k in (1, 2)] == [
        [RED, KNOWN, GREEN], [ERRORED],
    ]  # fmt: skip
    # Beside each module's ids, its file and a pattern of its tests' names, for a runner
    # that selects tests by name.
    assert (modules / "1.file").read_text() == "tests/test_calc.py\n"
    pattern = "^(?:test_add_big|test_add_small|test_add_zero)$\n"
    assert (modules / "1.pattern").read_text() == pattern
    tree = work / "plan" / "tree"
    # The base's code and harness, the change's test modules.
    assert (tree / "calc.py").read_text() == BASE["calc.py"]
    assert (tree / "conftest.py").read_text() == ""
    assert "is not None" in (tree / "tests" / "test_calc.py").read_text()
    assert (tree / "tests" / "test_mul.py").exists()
    # Each test file the change adds or edits runs whole on its tree, GREEN's included.
    assert (work / "plan" / "files.txt").read_text() == "tests/test_calc.py\ntests/test_mul.py\n"
    change = work / "plan" / "change"
    assert [(change / f"{j}.{part}").read_text() for j in (1, 2) for part in ("txt", "pattern")] == [
        "tests/test_calc.py\n", ".*\n", "tests/test_mul.py\n", ".*\n",
    ]  # fmt: skip
    assert (work / "plan" / "command.txt").read_text().startswith("xargs -r -d")


def test_a_test_the_base_s_file_declares_is_no_new_test_though_its_registry_leaves_it_out(
    work: Path,
) -> None:
    """A test the base's file already holds and its registry does not list (one skipped
    for good) is not a test the change adds: an edit of its neighbour plans the edit alone."""
    skipped = '\n\n@pytest.mark.skip("for good")\ndef test_add_later():\n    pass\n'
    calc = "import pytest\n" + BASE["tests/test_calc.py"] + skipped
    git(work, "init", "--quiet")
    base = commit(work, {**REGISTERED_BASE, "tests/test_calc.py": calc}, "base")
    edited = calc.replace("assert add(1, 2) == 3", "assert add(1, 2) is not None")
    commit(work, {"tests/test_calc.py": edited}, "change")
    assert plan(base) == 0
    assert (work / "plan" / "candidates.txt").read_text().splitlines() == [KNOWN]


def test_a_title_that_holds_a_control_character_makes_no_id(work: Path) -> None:
    """A new test's id is one line of printable text: a title whose text holds a control
    character (written raw, or as an escape) names no test to replay, and no line of the
    plan's files breaks."""
    git(work, "init", "--quiet")
    policy = "runner: jest\nregistry: known-tests.txt\n"
    one = "it('one', () => {});\n"
    files = {"waiver.yml": policy, "package.json": "{}", "test/a.test.js": one}
    base = commit(work, {**files, REGISTRY: "test/a.test.js::one\n"}, "base")
    tests = (
        one + "it('bell\x07', () => {});\nit('two\\nlines', () => {});\nit('three', () => {});\n"
    )
    commit(work, {"test/a.test.js": tests}, "change")
    assert plan(base, "--config", "waiver.yml") == 0
    assert (work / "plan" / "candidates.txt").read_text() == "test/a.test.js::three\n"


def test_shards_split_the_tests_as_waiver_red_green_does(work: Path) -> None:
    base = repository(work)
    assert plan(base, "--shard", "2/2", "--lay-out") == 0
    # Every candidate is listed for the read-back; this shard runs every 2nd, from the 2nd.
    assert len((work / "plan" / "candidates.txt").read_text().splitlines()) == 4
    modules = work / "plan" / "modules"
    assert sorted(p.name for p in modules.iterdir()) == [
        "1.file", "1.pattern", "1.txt", "2.file", "2.pattern", "2.txt",
    ]  # fmt: skip
    assert [(modules / f"{k}.txt").read_text().splitlines() for k in (1, 2)] == [
        [KNOWN], [ERRORED],
    ]  # fmt: skip
    # The test files too, each named by its place among all of them.
    change = work / "plan" / "change"
    assert sorted(p.name for p in change.iterdir()) == ["2.file", "2.pattern", "2.txt"]


def test_a_change_with_nothing_new_or_edited_plans_nothing_and_lays_out_nothing(
    work: Path,
) -> None:
    base = repository(work, {"calc.py": CHANGE["calc.py"]})
    assert plan(base, "--lay-out") == 0
    assert (work / "plan" / "candidates.txt").read_text() == ""
    assert not (work / "plan" / "tree").exists()


def test_a_branch_name_is_a_usage_error(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repository(work)
    given = ["--trusted-ref", "main", "--known-tests", REGISTRY]
    assert main(["change-tests-plan", "--out", "plan", *given]) == 2
    assert "give the base's full commit id" in capsys.readouterr().err


def test_without_a_registry_none_of_the_change_s_tests_runs_apart(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = repository(work)
    assert main(["change-tests-plan", "--out", "plan", "--trusted-ref", base]) == 0
    assert "no known-tests registry tells a new test" in capsys.readouterr().out
    assert (work / "plan" / "files.txt").read_text() == ""
    assert (work / "plan" / "candidates.txt").read_text() == ""


def test_replays_another_process_ran_are_read_and_a_missing_one_is_named(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = repository(work)
    run = work / "reports" / "run-1"
    run.mkdir(parents=True)
    (run / "1.xml").write_text(
        '<testsuite><testcase classname="tests.test_calc" name="test_add_big">'
        '<failure message="no"/></testcase>'
        '<testcase classname="tests.test_calc" name="test_add_small"/></testsuite>'
    )
    (work / "ids.txt").write_text(f"{RED}\n{KNOWN}\n{GREEN}\n")

    assert main(["red-green", "--base", base, "-n", "2", "--out", "rg", "--tests", "ids.txt",
                 "--replayed", "reports"]) == 0  # fmt: skip

    rows = {
        r["test_id"]: r for r in json.loads((work / "rg" / "red-green.json").read_text())["rows"]
    }
    assert (rows[RED]["base_pass"], rows[RED]["base_total"]) == (0, 1)
    assert (rows[KNOWN]["base_pass"], rows[KNOWN]["base_total"]) == (1, 1)
    assert rows[RED]["why"] == "replay 2 left no report"
    assert rows[GREEN]["result"] == "not_run"
    capsys.readouterr()
    assert main(["red-green", "--base", base, "-n", "2", "--out", "rg2", "--test", RED,
                 "--replayed", "reports", "--", "true"]) == 2  # fmt: skip
    assert "--replayed reads replays already run: give no command" in capsys.readouterr().err
