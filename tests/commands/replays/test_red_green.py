"""`waiver red-green` on real pytest runs: new tests replayed on the base's code with the
change's test files, and the base's harness."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.commit_support import committed_change
from helpers.red_green_support import ERRORED, GREEN, KNOWN, PYTEST, RED, base_and_change
from helpers.support import git, write_tree
from waiver.cli import main
from waiver.commands.replays.red_green import (
    PATTERN_BYTES,
    by_file,
    name_pattern,
    parse_shard,
    shard_of,
    with_tests,
)
from waiver.errors import UsageError
from waiver.read.harness.named import Harness
from waiver.replay.red_green_tree import laid_files, lay_out, link_installs
from waiver.runners import runner_named
from waiver.runners.pytest.harness.finder import PYTEST_FINDER


def red_green(work: Path, base: str, *tests: str, count: int = 2) -> dict[str, Any]:
    args = ["red-green", "--base", base, "-n", str(count), "--out", "rg"]
    for test in tests:
        args.append(f"--test={test}")
    assert main([*args, "--", *PYTEST, "--junitxml={junit}"]) == 0
    document: dict[str, Any] = json.loads((work / "rg" / "red-green.json").read_text())
    return document


@pytest.mark.slow
def test_each_test_is_replayed_on_the_base_with_the_changes_test_files(work: Path) -> None:
    base = base_and_change(work)
    document = red_green(work, base, RED, GREEN, ERRORED, KNOWN)
    rows = {row["test_id"]: row for row in document["rows"]}
    # The fix is not on the base: the test that exercises it fails in every replay.
    assert (rows[RED]["base_pass"], rows[RED]["base_total"], rows[RED]["result"]) == (0, 2, "red")
    # One that passes whatever the code does proves nothing about the change.
    assert (rows[GREEN]["base_pass"], rows[GREEN]["result"]) == (2, "green")
    # One whose module imports what only the change defines errors on the base: red.
    assert (rows[ERRORED]["result"], rows[ERRORED]["errored"]) == ("red", 2)
    assert rows[KNOWN]["result"] == "green"
    assert document["base"] == base
    assert document["head"] == git(work, "rev-parse", "HEAD")
    # The change's test modules were laid over the base; its conftest (harness) was not,
    # or the forged hook would have passed the red test.
    assert document["laid_over"] == ["tests/test_calc.py", "tests/test_mul.py"]
    # Collecting test_mul.py failed and stopped pytest: the others ran again without it.
    assert sorted(p.name for p in (work / "rg").iterdir() if p.suffix == ".xml") == [
        "run-1-2.xml",
        "run-1.xml",
        "run-2-2.xml",
        "run-2.xml",
    ]
    # The work tree is the change's, untouched.
    assert git(work, "status", "--porcelain", "--untracked-files=no") == ""
    assert "mul" in (work / "calc.py").read_text()


@pytest.mark.slow
def test_a_test_the_base_cannot_run_is_not_run_with_why(work: Path) -> None:
    base = base_and_change(work)
    missing = "tests/test_calc.py::test_gone"
    document = red_green(work, base, missing, RED, count=1)
    row = next(row for row in document["rows"] if row["test_id"] == missing)
    assert (row["result"], row["base_total"]) == ("not_run", 0)
    assert row["why"].startswith("replay 1 ")


@pytest.mark.slow
def test_no_test_replays_nothing(work: Path) -> None:
    base = base_and_change(work)
    document = red_green(work, base, count=1)
    assert (document["rows"], document["tests"]) == ([], 0)
    assert not (work / "rg" / "run-1.xml").exists()


@pytest.mark.slow
def test_an_id_that_reads_as_an_option_is_never_passed_to_the_command(work: Path) -> None:
    base = base_and_change(work)
    document = red_green(work, base, "-pforge", count=1)
    assert document["rows"] == [
        {
            "test_id": "-pforge",
            "base_pass": 0,
            "base_total": 0,
            "errored": 0,
            "result": "not_run",
            "why": "an id that starts with - is not passed to the command",
        }
    ]
    assert not (work / "rg" / "run-1.xml").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--base", "main"], "full commit id"),
        (["-n", "0"], "argument -n: must be at least 1, got 0"),
    ],
)
def test_bad_usage_is_refused(
    work: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = base_and_change(work)
    given = {"--base": base, "-n": "2", **dict(zip(args[::2], args[1::2], strict=True))}
    flat = [part for pair in given.items() for part in pair]
    assert main(["red-green", *flat, "--out", "rg", "--test", RED, "--", *PYTEST]) == 2
    assert message in capsys.readouterr().err


def test_the_ids_go_where_the_command_says() -> None:
    assert with_tests(["pytest", "{tests}", "-q"], ["a", "b"]) == ["pytest", "a", "b", "-q"]
    assert with_tests(["pytest", "-q"], ["a"]) == ["pytest", "-q", "a"]


def test_the_shards_split_the_tests_between_them() -> None:
    tests = ["d", "a", "c", "b", "e"]
    shards = [shard_of(tests, (number, 2)) for number in (1, 2)]
    assert shards == [("a", "c", "e"), ("b", "d")]
    assert shard_of(tests, parse_shard("1/1")) == ("a", "b", "c", "d", "e")


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0"])
def test_a_shard_that_is_not_k_of_m_is_refused(text: str) -> None:
    with pytest.raises(UsageError, match="expected K/M"):
        parse_shard(text)


def test_the_runner_s_harness_stays_the_base_s_in_the_laid_out_tree(tmp_path: Path) -> None:
    """A setup file jest's configuration names is harness, even under the test folder: the
    change's edit of it is not laid over the base, while its new test file is."""
    config = "module.exports = { setupFilesAfterEnv: ['./test/setup.js'] };\n"
    committed = committed_change(
        tmp_path,
        {"jest.config.js": config, "test/setup.js": "// base\n", "test/a.test.js": "// a\n"},
        {"test/setup.js": "// the change's\n", "test/new.test.js": "// new\n"},
    )
    modules = frozenset({"test/new.test.js"})
    jest = runner_named("jest").harness((), frozenset())
    assert laid_files(committed, modules, jest) == ["test/new.test.js"]
    # pytest's harness knows nothing of jest's files: the setup file is test code there.
    assert laid_files(committed, modules, Harness(PYTEST_FINDER)) == [
        "test/new.test.js",
        "test/setup.js",
    ]


def test_the_work_tree_s_installs_are_linked_beside_the_base_s_package_files(
    tmp_path: Path,
) -> None:
    """Each `node_modules` the work tree holds beside a package.json of the base is linked
    into the scratch folder; a file the base itself tracks there stays the base's, and the
    installed entries beside it are linked."""
    root = tmp_path / "repo"
    root.mkdir()
    packages = {
        "package.json": "{}",
        "packages/a/package.json": "{}",
        "packages/b/package.json": "{}",
    }
    patched = {"node_modules/left-pad/index.js": "// the base's patch\n"}
    committed = committed_change(root, {**packages, **patched}, {})
    write_tree(root, {
        "node_modules/left-pad/index.js": "// installed\n",
        "node_modules/left-pad/package.json": "{}",
        "node_modules/vitest/package.json": "{}",
        "packages/a/node_modules/x/package.json": "{}",
    })  # fmt: skip
    folder = tmp_path / "scratch"
    folder.mkdir()
    lay_out(committed, frozenset(), str(folder), Harness(PYTEST_FINDER))
    linked = link_installs(committed, str(root), str(folder))
    assert linked == ["node_modules", "packages/a/node_modules"]
    tracked = folder / "node_modules" / "left-pad" / "index.js"
    assert (tracked.is_symlink(), tracked.read_text()) == (False, "// the base's patch\n")
    assert (folder / "node_modules" / "left-pad" / "package.json").is_symlink()
    assert (folder / "node_modules" / "vitest").readlink() == root / "node_modules" / "vitest"
    assert (folder / "packages/a/node_modules").readlink() == root / "packages/a/node_modules"
    assert not (folder / "packages/b/node_modules").exists()


def test_a_file_of_very_many_tests_runs_in_parts_whose_pattern_fits_one_argument() -> None:
    """Linux refuses an argument or a variable past 128 KiB: a part's name pattern stays
    under PATTERN_BYTES, and the parts hold every id once, in order, one file each."""
    jest = runner_named("jest")
    many = [f"test/big.test.js::adds case {n} (of [many])" for n in range(6000)]
    ids = ["test/a.test.js::one", *many, "test/z.test.js::two"]
    parts = by_file(jest, ids)
    assert [path for path, _ in parts][:2] == ["test/a.test.js", "test/big.test.js"]
    assert [path for path, _ in parts][-1] == "test/z.test.js"
    assert len(parts) > 3  # the big file in several parts
    assert [test_id for _, part in parts for test_id in part] == ids
    for path, part in parts:
        assert all(test_id.startswith(path + "::") for test_id in part)
        assert len(name_pattern(jest, part).encode()) <= PATTERN_BYTES + len("^(?:)$")
