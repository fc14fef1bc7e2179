"""Each way a change can load its own harness, tried as an attacker would, in the flow a
user runs: the example committed as the base and locked by `waiver lock`, one change
commit, `waiver replay` with real pytest runs (with the change's own harness, and with
`--tests-from BASE`), then the gate with `--trusted-ref BASE`.

`test_empty` is red in truth. The change's harness turns its failure into a pass, so only
the harness resolver stands between the change and a clean verdict.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers.change_support import (
    PASSING_HOOK,
    Patch,
    commit_base,
    commit_change,
    fix_slugify,
    plugin,
    replay_and_gate,
)
from helpers.support import EMPTY, ROUND_TRIP, classes, git
from waiver.write.summary.summary import render_summary
from waiver.write.words.terminal import render_terminal

# Every test commits a base and a change and replays it with real pytest.
pytestmark = pytest.mark.slow

# `python -m pytest` imports this in pytest's place: it runs the real pytest with a plugin.
SHADOW_PYTEST = """\
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
sys.modules.pop("pytest", None)
import pytest

sys.path.append(here)
raise SystemExit(pytest.main([*sys.argv[1:], "-p", "forge_plugin"]))
"""


def pytest_toml(name: str) -> Patch:
    def patch(work: Path) -> None:
        (work / name).write_text(
            '[pytest]\naddopts = ["-p", "no:cacheprovider", "-p", "forge_plugin"]\n'
        )
        plugin(work)

    return patch


def planted_marker_file(work: Path) -> None:
    (work / "tests" / "pyvenv.cfg").write_text("")
    (work / "tests" / "assertions" / "conftest.py").write_text(PASSING_HOOK)


def planted_marker_folder(work: Path) -> None:
    (work / "tests" / "assertions" / "pyvenv.cfg").mkdir()
    (work / "tests" / "assertions" / "pyvenv.cfg" / "home").write_text("")  # for git
    (work / "tests" / "assertions" / "conftest.py").write_text(PASSING_HOOK)


def plugins_in_a_test_module(work: Path) -> None:
    (work / "tests" / "assertions" / "test_setup.py").write_text(
        'pytest_plugins = ["forge_plugin"]\n'
    )
    plugin(work)


def shadowing_pytest(work: Path) -> None:
    (work / "pytest.py").write_text(SHADOW_PYTEST)
    plugin(work)


def entry_points(work: Path) -> None:
    (work / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0"\n\n'
        '[project.entry-points.pytest11]\nforge = "forge_plugin"\n'
    )
    plugin(work)


def dist_info(work: Path) -> None:
    # `python -m pytest` puts the working directory on sys.path, and pytest's plugin
    # autoload reads the entry points of any metadata found there.
    metadata = work / "forge-0.1.dist-info"
    metadata.mkdir()
    (metadata / "METADATA").write_text("Metadata-Version: 2.1\nName: forge\nVersion: 0.1\n")
    (metadata / "entry_points.txt").write_text("[pytest11]\nforge = forge_plugin\n")
    plugin(work)


# Imported by pytest at start-up: with the real module's names, and the forged hook.
SHADOW_INICONFIG = """import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
del sys.modules["iniconfig"]
import iniconfig as real

sys.modules["iniconfig"] = sys.modules[__name__]
globals().update({k: v for k, v in vars(real).items() if not k.startswith("__")})
sys.path.insert(0, here)
os.environ["PYTEST_PLUGINS"] = "forge_plugin"
"""


def shadowing_iniconfig(work: Path) -> None:
    (work / "iniconfig.py").write_text(SHADOW_INICONFIG)
    plugin(work)


def encoded_plugin_list(work: Path) -> None:
    (work / "tests" / "assertions" / "test_setup.py").write_bytes(
        b"# coding: unicode_escape\npytest\\x5fplugins = ['forge_plugin']\n"
    )
    plugin(work)


def poetry_entry_points(work: Path) -> None:
    (work / "pyproject.toml").write_text(
        '[tool.poetry]\nname = "demo"\nversion = "0"\n\n'
        '[tool.poetry.plugins."pytest11"]\nforge = "forge_plugin"\n'
    )
    plugin(work)


def setup_cfg_entry_points(work: Path) -> None:
    (work / "setup.cfg").write_text(
        "[metadata]\nname = demo\n\n[options.entry_points]\npytest11 =\n    forge = forge_plugin\n"
    )
    plugin(work)


ENTRY_POINTS = "project.entry-points.pytest11"
# The attack, the drift the gate must name ((path, kind, table)), and whether the change's
# harness, when it runs, really turns the red test green (an entry point needs an install).
ATTACKS: dict[str, tuple[Patch, list[tuple[str, str, str | None]], bool]] = {
    "pytest.toml": (
        pytest_toml("pytest.toml"),
        [("forge_plugin.py", "not_in_lock", None), ("pytest.toml", "not_in_lock", None)],
        True,
    ),
    ".pytest.toml": (
        pytest_toml(".pytest.toml"),
        [(".pytest.toml", "not_in_lock", None), ("forge_plugin.py", "not_in_lock", None)],
        True,
    ),
    # The planted marker is data beside the tests, drift of its own (part test_data).
    "pyvenv.cfg file": (
        planted_marker_file,
        [
            ("tests/assertions/conftest.py", "not_in_lock", None),
            ("tests/pyvenv.cfg", "not_in_lock", None),
        ],
        True,
    ),
    "pyvenv.cfg folder": (
        planted_marker_folder,
        [
            ("tests/assertions/conftest.py", "not_in_lock", None),
            ("tests/assertions/pyvenv.cfg/home", "not_in_lock", None),
        ],
        True,
    ),
    # The test module stays a test (an edit of it is an edited test); the plugin it names
    # is harness.
    "pytest_plugins in a test module": (
        plugins_in_a_test_module,
        [("forge_plugin.py", "not_in_lock", None)],
        True,
    ),
    "pytest.py under python -m pytest": (
        shadowing_pytest,
        [("pytest.py", "not_in_lock", None)],  # its plugin is named by its code alone
        True,
    ),
    "pytest11 entry points": (
        entry_points,
        [("forge_plugin.py", "not_in_lock", None), ("pyproject.toml", "not_in_lock", ENTRY_POINTS)],
        False,
    ),
    "setup.cfg's pytest11 entry points": (
        setup_cfg_entry_points,
        [("forge_plugin.py", "not_in_lock", None), ("setup.cfg", "not_in_lock", None)],
        False,
    ),
    "dist-info at the root": (
        dist_info,
        [
            ("forge-0.1.dist-info/METADATA", "not_in_lock", None),
            ("forge-0.1.dist-info/entry_points.txt", "not_in_lock", None),
            ("forge_plugin.py", "not_in_lock", None),
        ],
        True,
    ),
    "iniconfig.py under python -m pytest": (
        shadowing_iniconfig,
        [("iniconfig.py", "not_in_lock", None)],  # its plugin is named by its code alone
        True,
    ),
    "pytest_plugins under a declared encoding": (
        encoded_plugin_list,
        [("forge_plugin.py", "not_in_lock", None)],
        True,
    ),
    "poetry's pytest11 entry points": (
        poetry_entry_points,
        [
            ("forge_plugin.py", "not_in_lock", None),
            ("pyproject.toml", "not_in_lock", "tool.poetry.plugins.pytest11"),
        ],
        False,
    ),
}


# Attacks that write a file another attack writes too, left out where all are applied at once.
OVERLAPPING = {"pytest_plugins under a declared encoding", "poetry's pytest11 entry points"}


def drift_of(report: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    assert {d["part"] for d in report["fixtures"]["drift"]} <= {"harness", "test_data"}
    return [(d["path"], d["kind"], d.get("table")) for d in report["fixtures"]["drift"]]


@pytest.mark.parametrize("name", ATTACKS)
def test_a_change_that_loads_its_own_harness_is_blocked_and_named(
    tmp_path: Path, name: str
) -> None:
    patch, drift, turns_green = ATTACKS[name]
    work = tmp_path / "demo"
    base = commit_base(work)
    commit_change(work, patch)
    replayed, gated, report = replay_and_gate(work, base, tests_from=False)
    assert replayed == 0
    assert (gated, report["verdict"]) == (1, "blocked")
    assert set(classes(report).values()) == {"fixture_drift"}
    assert drift_of(report) == drift
    row = next(row for row in report["rows"] if row["test_id"] == EMPTY)
    # The change's harness really ran: the red test passed in every replay.
    assert (row["replay_pass"] == row["replay_total"]) is turns_green
    assert "**The change edits the test harness**" in render_summary(report)
    terminal = render_terminal(report)
    assert all(f"  {path}" in terminal for path, _, _ in drift)


def test_with_the_base_harness_every_removed_attack_is_still_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One change holding every attack: the restore takes each out of the work tree, so
    # the replays are honest, and the change's commit still names each one.
    work = tmp_path / "demo"
    base = commit_base(work)
    attacks = [attack for name, attack in ATTACKS.items() if name not in OVERLAPPING]
    for patch, _, _ in attacks:
        patch(work)
    commit_change(work, lambda work: None)
    replayed, gated, report = replay_and_gate(work, base, tests_from=True)
    assert replayed == 0
    restore = next(
        line for line in capsys.readouterr().out.splitlines() if "tests from trusted" in line
    )
    assert restore.endswith(
        ": 0 files restored; 13 removed, .pytest.toml, forge-0.1.dist-info/METADATA, "
        "forge-0.1.dist-info/entry_points.txt, forge_plugin.py, iniconfig.py, pyproject.toml, "
        "pytest.py, pytest.toml, setup.cfg, tests/assertions/conftest.py, "
        "tests/assertions/pyvenv.cfg/home, tests/assertions/test_setup.py, tests/pyvenv.cfg"
    )
    # Put back once the replays were done: the gate reads the change's own tree.
    assert (work / "pytest.toml").exists() and (work / "pytest.py").exists()
    assert (gated, report["verdict"]) == (1, "blocked")
    assert set(classes(report).values()) == {"fixture_drift"}
    added = sorted({(path, table) for _, drift, _ in attacks for path, _, table in drift})
    assert [(c["path"], c.get("table")) for c in report["fixtures"]["committed_changes"]] == added
    assert {c["change"] for c in report["fixtures"]["committed_changes"]} == {"added"}
    assert [(path, table) for path, _, table in drift_of(report)] == added
    # The replays ran with the base's harness: the red test is red in every one.
    row = next(row for row in report["rows"] if row["test_id"] == EMPTY)
    assert row["replay_pass"] == 0
    assert "Locked and harness files this change's commit adds" in render_summary(report)


def support_plugin_base(work: Path) -> None:
    (work / "conftest.py").write_text('pytest_plugins = ["support_plugin"]\n')
    (work / "support_plugin.py").write_text('"""Shared test helpers."""\n')


@pytest.mark.parametrize("tests_from", [False, True], ids=["own tests", "base tests"])
def test_an_edited_plugin_module_that_a_conftest_names_is_drift(
    tmp_path: Path, tests_from: bool
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work, support_plugin_base)
    assert "  support_plugin.py\n" in (work / "fixture.lock").read_text()
    commit_change(work, lambda work: plugin(work, "support_plugin.py"))
    replayed, gated, report = replay_and_gate(work, base, tests_from)
    assert (replayed, gated) == (0, 1)
    assert set(classes(report).values()) == {"fixture_drift"}
    assert drift_of(report) == [("support_plugin.py", "changed", None)]
    row = next(row for row in report["rows"] if row["test_id"] == EMPTY)
    assert (row["replay_pass"] == row["replay_total"]) is not tests_from


@pytest.mark.parametrize("tests_from", [False, True], ids=["own tests", "base tests"])
@pytest.mark.parametrize("prepare", [None, support_plugin_base], ids=["demo", "plugin base"])
def test_an_honest_fix_is_admitted_in_both_flows(
    tmp_path: Path, tests_from: bool, prepare: Patch | None
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work, prepare)
    commit_change(work, fix_slugify)
    replayed, gated, report = replay_and_gate(work, base, tests_from, replays=5)
    assert (replayed, gated, report["verdict"]) == (0, 0, "review")
    assert report["fixtures"]["drift"] == report["fixtures"]["committed_changes"] == []
    assert classes(report)[EMPTY] == "stable_pass"
    assert classes(report)[ROUND_TRIP] == "unstable_assertion"


@pytest.mark.parametrize("tests_from", [False, True], ids=["own tests", "base tests"])
def test_the_unchanged_base_is_blocked_by_its_red_test_alone(
    tmp_path: Path, tests_from: bool
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)
    replayed, gated, report = replay_and_gate(work, base, tests_from, replays=5)
    assert (replayed, gated) == (0, 1)
    assert report["fixtures"]["drift"] == report["fixtures"]["committed_changes"] == []
    assert classes(report)[EMPTY] == "stable_assertion_fail"
    assert "fixture_drift" not in classes(report).values()


@pytest.mark.parametrize("tests_from", [False, True], ids=["own tests", "base tests"])
def test_reports_the_change_commits_are_refused(
    tmp_path: Path, tests_from: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)

    def committed_reports(work: Path) -> None:
        # Passing reports, written by a passing hook that the change then removes.
        (work / "conftest.py").write_text(PASSING_HOOK)
        replay_and_gate(work, base, tests_from=False, replays=5)
        (work / "conftest.py").unlink()
        (work / "waiver.json").unlink()

    commit_change(work, committed_reports)
    assert "reports/run-5.xml" in git(work, "ls-files")
    capsys.readouterr()
    # `waiver replay` refuses the full folder; a script that gates anyway gets no verdict.
    replayed, gated, report = replay_and_gate(work, base, tests_from, replays=5)
    assert (replayed, gated, report["verdict"]) == (2, 2, "blocked")
    assert report["error"]["source"] == str(work / "reports" / "properties.log")
    assert "the change's commit tracks this file" in report["error"]["problem"]
    assert "Traceback" not in capsys.readouterr().err


def computed_plugin_list(work: Path) -> None:
    (work / "tests" / "assertions" / "conftest.py").write_text(
        'globals()["pytest_" + "plugins"] = ["forge_plugin"]\n'
    )
    plugin(work)


def decorated_plugin_list(work: Path) -> None:
    (work / "tests" / "assertions" / "conftest.py").write_text(
        '@(lambda function: ["forge_plugin"])\ndef pytest_plugins():\n    pass\n'
    )
    plugin(work)


@pytest.mark.parametrize("patch", [computed_plugin_list, decorated_plugin_list])
def test_a_plugin_list_bound_without_a_literal_is_refused_naming_the_module(
    tmp_path: Path, patch: Patch, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)
    commit_change(work, patch)
    capsys.readouterr()
    _, gated, report = replay_and_gate(work, base, tests_from=False)
    assert (gated, report["verdict"]) == (2, "blocked")
    assert report["error"]["source"] == "tests/assertions/conftest.py"
    assert "gate cannot tell which files it loads" in report["error"]["problem"]
    assert "Traceback" not in capsys.readouterr().err


FORGING_SOURCE = """\
import atexit
import os

atexit.register(lambda: open(os.environ["WAIVER_JUNIT"], "a").close())
"""


def test_source_code_that_newly_reaches_into_the_runner_blocks_and_is_named(
    tmp_path: Path,
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)

    def reach_in(work: Path) -> None:
        fix_slugify(work)
        code = work / "slugify.py"
        code.write_text(FORGING_SOURCE + code.read_text())

    commit_change(work, reach_in)
    replayed, gated, report = replay_and_gate(work, base, tests_from=True, replays=5)
    assert (replayed, gated, report["verdict"]) == (0, 1, "blocked")
    # No row is repaired or pardoned: the fix passes, and the run still blocks on review.
    assert classes(report)[EMPTY] == "stable_pass"
    assert report["fixtures"]["runner_reach"] == [
        {"path": "slugify.py", "line": 1, "what": "registers exit hooks (atexit)"},
        {"path": "slugify.py", "line": 4, "what": "names WAIVER_JUNIT"},
        {"path": "slugify.py", "line": 4, "what": "registers exit hooks (atexit)"},
    ]
    (blocker,) = report["run_blockers"]
    assert blocker.endswith(
        "a reviewer must read it (slugify.py line 1 registers exit hooks (atexit); "
        "slugify.py line 4 names WAIVER_JUNIT; slugify.py line 4 registers exit hooks (atexit))"
    )
    assert "newly reaches into the test runner" in render_summary(report)
    assert "newly reaches into the test runner" in render_terminal(report)
