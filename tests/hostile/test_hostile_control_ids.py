"""Test ids holding control characters (NUL, a newline, a tab, DEL, C1), refused where
they enter: a report's testcase, a registry's line, the ids `waiver red-green` is given and
the change's registry that `waiver change-tests-plan` reads. Never an exit 3, never an id
passed on."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers.hostile_support import GOOD_CASE, Repo, Run
from helpers.junit_support import junit
from helpers.red_green_support import BASE, KNOWN, commit
from helpers.support import git
from waiver.cli import main
from waiver.read.stores.registry import format_registry

CONTROLS = {"newline": "\n", "carriage-return": "\r", "tab": "\t", "delete": "\x7f", "c1": "\x85"}


def character(key: str) -> str:
    return f"U+{ord(CONTROLS[key]):04X}"


def evil_case(attribute: str, control: str) -> str:
    name = f"x{control}::error::y"
    escaped = "".join(f"&#{ord(c)};" if not c.isprintable() else c for c in name)
    other = "name" if attribute == "classname" else "classname"
    return f'<testcase {attribute}="{escaped}" {other}="suite.Evil"/>'


@pytest.mark.parametrize("attribute", ["name", "classname"])
@pytest.mark.parametrize("key", sorted(CONTROLS))
def test_a_report_whose_test_id_holds_a_control_character_is_refused(
    repo: Repo, checked_gate: Run, key: str, attribute: str
) -> None:
    for replay in range(1, 6):
        repo.replay(replay, junit(evil_case(attribute, CONTROLS[key]), GOOD_CASE))
    code, _, err = checked_gate()
    assert code == 2
    assert f"run-1.xml: a test id holds the control character {character(key)}" in err


def test_one_replay_that_holds_one_blocks_the_run_and_names_it(
    repo: Repo, checked_gate: Run
) -> None:
    repo.replay(3, junit(evil_case("name", "\n"), GOOD_CASE))
    code, _, _ = checked_gate()
    assert code == 1
    report = json.loads((repo.root / "waiver.json").read_text())
    assert report["verdict"] == "blocked"
    [error] = report["replays"]["errors"]
    assert error["replay"] == 3
    assert error["problem"].startswith("a test id holds the control character U+000A")
    assert all("\n" not in row["test_id"] for row in report["rows"])


def test_a_property_report_that_holds_one_is_refused(repo: Repo, checked_gate: Run) -> None:
    (repo.root / "properties.xml").write_text(junit(evil_case("name", "\t")))
    code, _, err = checked_gate()
    assert code == 2
    assert "properties.xml: a test id holds the control character U+0009" in err


@pytest.mark.parametrize("control", ["\x00", "\t", "\x1b", "\r"])
def test_a_registry_line_that_holds_one_is_refused_naming_the_line(
    repo: Repo, checked_gate: Run, control: str
) -> None:
    registry = repo.root / "known-tests.txt"
    registry.write_bytes(f"# a comment\tkept\nsuite.Good::test_ok\nx{control}y\n".encode())
    code, _, err = checked_gate("--known-tests", str(registry))
    assert code == 2
    assert (
        f"known-tests.txt: line 3: a test id holds the control character U+{ord(control):04X}"
        in err
    )


def test_a_registry_of_blank_lines_and_comments_with_tabs_is_read(
    repo: Repo, checked_gate: Run
) -> None:
    registry = repo.root / "known-tests.txt"
    registry.write_text("#\tgrouped\n\t\n suite.Good::test_ok\r\n".replace(" ", ""))
    code, _, _ = checked_gate("--known-tests", str(registry), codes=(0,))
    assert code == 0


def test_baseline_refuses_to_write_one() -> None:
    with pytest.raises(Exception, match="cannot be written as a registry line"):
        format_registry(["a\tb"])


def red_green(work: Path, *given: str) -> int:
    return main(["red-green", "--base", "0" * 40, "-n", "1", "--out", str(work / "out"),
                 *given, "--", "true"])  # fmt: skip


def test_red_green_refuses_a_nul_in_a_file_of_ids_naming_the_line(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    listed = tmp_path / "ids.txt"
    listed.write_bytes(b"tests/test_a.py::test_ok\ntests/test_a.py::test_\x00evil\n")
    assert red_green(tmp_path, "--tests", str(listed)) == 2
    err = capfd.readouterr().err
    assert "ids.txt: line 2: a test id holds the control character U+0000" in err
    assert "Traceback" not in err and "null byte" not in err


def test_red_green_refuses_one_given_as_a_flag(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    assert red_green(tmp_path, "--test", "tests/test_a.py::test_\x01") == 2
    assert "--test: a test id holds the control character U+0001" in capfd.readouterr().err


def test_red_green_refuses_one_in_a_report_naming_the_report(
    repo: Repo, checked_gate: Run, capfd: pytest.CaptureFixture[str]
) -> None:
    registry = repo.root / "known-tests.txt"
    registry.write_text("")
    (repo.root / "waiver.yml").write_text("registry: known-tests.txt\n")
    checked_gate("--known-tests", str(registry))
    path = repo.root / "waiver.json"
    report = json.loads(path.read_text())
    [row] = [row for row in report["rows"] if row.get("unknown") == "new"]
    row["test_id"] = "suite.Good::test_\x00ok"
    path.write_text(json.dumps(report))
    assert red_green(repo.root, "--from-report", str(path)) == 2
    err = capfd.readouterr().err
    assert "waiver.json: a test id holds the control character U+0000" in err
    assert "Traceback" not in err


def test_change_tests_plan_refuses_a_change_whose_registry_holds_one(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    git(tmp_path, "init", "--quiet")
    base = commit(tmp_path, {**BASE, "known-tests.txt": f"{KNOWN}\n"}, "base")
    commit(tmp_path, {"known-tests.txt": f"{KNOWN}\ntests/test_calc.py::test_\x00x\n"}, "change")
    code = main(["change-tests-plan", "--trusted-ref", base, "--out", "plan",
                 "--known-tests", "known-tests.txt"])  # fmt: skip
    assert code == 2
    err = capfd.readouterr().err
    assert "known-tests.txt: line 2: a test id holds the control character U+0000" in err
    assert not os.listdir(tmp_path / "plan")
