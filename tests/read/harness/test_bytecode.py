"""Bytecode a change commits in place of a locked module, tried as an attacker would.

The base's property suite checks slugs with a helper module, `slug_checks.py`, that the
lock hashes. The change breaks `slugify` so that the property fails, and commits beside
the unchanged helper an unchecked-hash pyc (PEP 552) of a forged one that passes
everything: Python loads such a pyc without comparing it with its source. The gate must
name the pyc, and the replays must never read it.
"""

from __future__ import annotations

import os
import py_compile
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.change_support import commit_base, commit_change, fix_slugify, replay_and_gate
from helpers.support import classes, gate_args, git, load_report, replay_example, run_pytest
from waiver.cli import main
from waiver.write.words.terminal import render_terminal

# Every test replays a commit with real pytest.
pytestmark = pytest.mark.slow

HELPER = '''"""What a good slug looks like."""

import re


def is_clean(slug: str) -> bool:
    return re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug) is not None
'''
FORGED = "def is_clean(slug):\n    return True\n"
PROPERTIES = '''"""Every slug is clean."""

import pytest
from slug_checks import is_clean
from slugify import slugify


@pytest.mark.parametrize("text", ["Hello, World", "Wow!", "a_b c"])
def test_slug_is_clean(text: str) -> None:
    assert is_clean(slugify(text))
'''
SUITE = Path("tests/properties")
CACHED = f"{SUITE}/__pycache__/slug_checks.{sys.implementation.cache_tag}.pyc"
PLAIN_ENV = ("PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE")


def helper_base(work: Path) -> None:
    """The example with its red test fixed and a property suite that uses a helper."""
    fix_slugify(work)
    (work / SUITE / "test_slug_properties.py").write_text(PROPERTIES)
    (work / SUITE / "slug_checks.py").write_text(HELPER)


def compile_unchecked(source: str, cached: Path, scratch: Path) -> None:
    """An unchecked-hash pyc of `source` at `cached`."""
    forged = scratch / "forged.py"
    forged.write_text(source)
    py_compile.compile(
        str(forged),
        cfile=str(cached),
        doraise=True,
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )


def forged_helper(work: Path) -> None:
    """Break slugify (a `!` stays in the slug) and commit the forged helper's bytecode."""
    code = work / "slugify.py"
    code.write_text(code.read_text().replace("[^a-z0-9]+", "[^a-z0-9!]+"))
    compile_unchecked(FORGED, work / CACHED, work.parent)


def reword_docstring(work: Path) -> None:
    """An honest change of the code under test."""
    code = work / "slugify.py"
    code.write_text(code.read_text().replace("a tiny slug function", "one slug function"))


@pytest.fixture
def attacked(tmp_path: Path) -> tuple[Path, str]:
    """The base commit and the change's commit, with the pyc tracked: (work tree, base)."""
    work = tmp_path / "demo"
    base = commit_base(work, helper_base)
    assert f"  {SUITE}/slug_checks.py\n" in (work / "fixture.lock").read_text()
    commit_change(work, forged_helper)
    assert CACHED in git(work, "ls-files").splitlines()
    assert (work / SUITE / "slug_checks.py").read_text() == HELPER
    return work, base


def test_committed_bytecode_blocks_the_gate_and_is_named(
    attacked: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    work, base = attacked
    # Reports from plain pytest runs, as a runner without waiver's cache folder leaves them.
    for name in PLAIN_ENV:
        monkeypatch.delenv(name, raising=False)
    replay_example(work)
    gated = main(gate_args(work, "--trusted-ref", base))
    report = load_report(work / "waiver.json")
    assert report["properties"]["failed"] == []  # the forged helper really ran
    assert (gated, report["verdict"]) == (1, "blocked")
    assert set(classes(report).values()) == {"fixture_drift"}
    assert report["fixtures"]["committed_changes"] == [
        {"path": CACHED, "change": "added", "part": "harness"}
    ]
    assert report["fixtures"]["drift"] == [
        {"path": CACHED, "kind": "not_in_lock", "part": "harness"}
    ]
    assert f"  {CACHED}" in render_terminal(report)


@pytest.mark.parametrize("tests_from", [False, True], ids=["own tests", "base tests"])
def test_the_replays_never_read_the_committed_bytecode(
    attacked: tuple[Path, str], tests_from: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    work, base = attacked
    replayed, gated, report = replay_and_gate(work, base, tests_from)
    # The real helper ran: the property suite failed, and no replay was run.
    assert (replayed, gated) == (1, 1)
    assert report["properties"]["failed"] == [
        f"{SUITE}/test_slug_properties.py::test_slug_is_clean[Wow!]"
    ]
    assert set(classes(report).values()) == {"property_violation"}
    assert (work / CACHED).exists() is not tests_from
    restore = [line for line in capsys.readouterr().out.splitlines() if "tests from" in line]
    assert [line.endswith(f"; 1 removed, {CACHED}") for line in restore] == [True] * tests_from


def test_an_honest_change_with_bytecode_its_runs_left_is_not_drift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work, helper_base)
    commit_change(work, reword_docstring)
    # A plain pytest run leaves __pycache__ folders beside the sources, untracked.
    for name in PLAIN_ENV:
        monkeypatch.delenv(name, raising=False)
    run_pytest(work, "tests")
    untracked = git(work, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert f"?? {CACHED}" in untracked
    replayed, gated, report = replay_and_gate(work, base, tests_from=False, replays=5)
    assert (replayed, gated, report["verdict"]) == (0, 0, "review")
    assert report["fixtures"]["drift"] == report["fixtures"]["committed_changes"] == []
    assert (work / CACHED).exists()


def test_a_replay_gives_its_command_a_cache_folder_outside_the_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # A folder of the tree that the caller's environment names is not used.
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(tmp_path / "cache"))
    (tmp_path / "child.py").write_text(
        "import os, sys\n"
        "print('prefix', sys.pycache_prefix, os.listdir(sys.pycache_prefix))\n"
        "with open(os.environ['WAIVER_JUNIT'], 'w') as report:\n"
        '    report.write(\'<testsuite><testcase classname="c" name="t"/></testsuite>\')\n'
    )
    assert main(["replay", "-n", "2", "--out", "out", "--", sys.executable, "child.py"]) == 0
    lines = [(tmp_path / "out" / f"run-{i}.log").read_text().split() for i in (1, 2)]
    prefix = Path(lines[0][1])
    assert lines[0] == ["prefix", str(prefix), "[]"]  # empty when the first run starts
    assert lines[1][1] == str(prefix)
    assert prefix.is_absolute() and not prefix.is_relative_to(tmp_path)
    assert not prefix.exists()  # removed with the replays


def test_restore_harness_removes_bytecode_but_in_virtualenvs_and_never_follows_a_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)
    compile_unchecked("FORGED = True\n", work / "helper.pyc", tmp_path)
    compile_unchecked("FORGED = True\n", tmp_path / "outside.pyc", tmp_path)
    (work / "tests" / "linked.pyc").symlink_to(tmp_path / "outside.pyc")
    venv_bytecode = work / ".venv" / "lib" / "python3.12" / "site-packages" / "installed.pyc"
    venv_bytecode.parent.mkdir(parents=True)
    venv_bytecode.write_bytes(b"")
    (work / ".venv" / "bin").mkdir()
    (work / ".venv" / "bin" / "python").write_text("")
    (work / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    # A sourceless pyc is imported even with a cache folder elsewhere.
    child = subprocess.run(
        [sys.executable, "-c", "import helper; print(helper.FORGED)"],
        cwd=work,
        env={**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path / "cache")},
        capture_output=True,
        text=True,
        check=True,
    )
    assert child.stdout == "True\n"
    root = ["--root", str(work), "--lock", str(work / "fixture.lock")]
    assert main(["restore-tests", "--from", base, *root]) == 0
    assert capsys.readouterr().out.endswith(
        "0 files restored; 2 removed, helper.pyc, tests/linked.pyc\n"
    )
    assert not (work / "helper.pyc").exists() and not (work / "tests" / "linked.pyc").is_symlink()
    assert (tmp_path / "outside.pyc").exists() and venv_bytecode.exists()


def bytecode_in_the_fixtures(work: Path) -> None:
    compile_unchecked("FORGED = True\n", work / "fixtures" / "__pycache__" / "x.pyc", work.parent)


def linked_cache_folder(work: Path) -> None:
    (work / SUITE / "__pycache__").symlink_to("../../forged")


def test_bytecode_in_the_fixture_folder_is_harness_and_drifts_every_row(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)
    commit_change(work, bytecode_in_the_fixtures)
    replay_example(work)
    assert main(gate_args(work, "--trusted-ref", base)) == 1
    report = load_report(work / "waiver.json")
    assert report["fixtures"]["committed_changes"] == [
        {"path": "fixtures/__pycache__/x.pyc", "change": "added", "part": "harness"}
    ]
    assert set(classes(report).values()) == {"fixture_drift"}


def test_a_committed_cache_folder_that_is_a_symlink_is_an_input_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)
    commit_change(work, linked_cache_folder)
    replay_example(work)
    assert main(gate_args(work, "--trusted-ref", base)) == 2
    assert f"waiver: error: {SUITE}/__pycache__: not a regular file" in capsys.readouterr().err


def test_bytecode_the_base_tracks_and_the_change_edits_is_named_edited(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    legacy = work / "tools" / "legacy.pyc"
    base = commit_base(work, lambda work: compile_unchecked("OLD = 1\n", legacy, tmp_path))
    commit_change(work, lambda work: compile_unchecked("OLD = 2\n", legacy, tmp_path))
    replay_example(work)
    assert main(gate_args(work, "--trusted-ref", base)) == 1
    report = load_report(work / "waiver.json")
    assert report["fixtures"]["committed_changes"] == [
        {"path": "tools/legacy.pyc", "change": "edited", "part": "harness"}
    ]
    assert report["fixtures"]["drift"] == [
        {"path": "tools/legacy.pyc", "kind": "changed", "part": "harness"}
    ]
