"""Hostile lock lines and fixture trees: every one an input error naming the file, or drift."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from helpers.hostile_support import Repo, Run

DIGEST = "0" * 64


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (f"{DIGEST}  ../outside.json", "'..'"),
        (f"{DIGEST}  fixtures/../../outside.json", "'..'"),
        (f"{DIGEST}  /etc/passwd", "absolute"),
        (f"{DIGEST}  fixtures/a\0b.json", "NUL"),
        (f"{DIGEST}  fixtures/a.json", "repeats or collides"),
        (f"{DIGEST}  fixtures/A.JSON", "case-folding"),
        (f"{DIGEST}  fixtures/x.json {DIGEST}  y", None),
        ("not a lock line", "64 lowercase hex"),
    ],
)
def test_hostile_lock_lines_are_input_errors(
    repo: Repo, checked_gate: Run, line: str, problem: str | None
) -> None:
    repo.write_lock(line)
    code, _, err = checked_gate()
    if problem is None:  # a strange but legal name: it is simply missing, so drift
        assert code == 1
        report = json.loads((repo.root / "waiver.json").read_text())
        assert {row["class"] for row in report["rows"]} == {"fixture_drift"}
        return
    assert code == 2
    assert str(repo.root / "fixture.lock") in err
    assert problem in err


def test_an_escaped_newline_name_is_hashed_as_that_file(repo: Repo, checked_gate: Run) -> None:
    (repo.root / "fixtures" / "new\nline.json").write_text("[]")
    digest = hashlib.sha256(b"[]").hexdigest()
    repo.write_lock(f"\\{digest}  fixtures/new\\nline.json")
    checked_gate(codes=(0,))


def test_a_symlink_fixture_pointing_outside_is_an_input_error(
    repo: Repo, checked_gate: Run
) -> None:
    (repo.root / "fixtures" / "a.json").unlink()
    (repo.root / "fixtures" / "a.json").symlink_to(repo.secret)
    code, _, err = checked_gate()
    assert code == 2
    assert "fixtures/a.json" in err
    assert "symlink" in err


def test_a_symlinked_folder_in_the_fixture_set_is_an_input_error(
    repo: Repo, checked_gate: Run
) -> None:
    (repo.root / "fixtures" / "linked").symlink_to(repo.secret.parent)
    code, _, err = checked_gate()
    assert code == 2
    assert "symlink" in err


def test_a_lock_path_through_a_symlinked_folder_is_an_input_error(
    repo: Repo, checked_gate: Run
) -> None:
    (repo.root / "elsewhere").symlink_to(repo.secret.parent)
    repo.write_lock(f"{DIGEST}  elsewhere/secret.txt")
    code, _, err = checked_gate()
    assert code == 2
    assert "elsewhere/secret.txt" in err


def test_a_fifo_fixture_does_not_hang_the_gate(repo: Repo, checked_gate: Run) -> None:
    os.mkfifo(repo.root / "fixtures" / "pipe.json")
    code, _, err = checked_gate()
    assert code == 2
    assert "fixtures/pipe.json" in err
    assert "not a regular file" in err


def test_a_locked_fifo_does_not_hang_the_gate(repo: Repo, checked_gate: Run) -> None:
    (repo.root / "fixtures" / "a.json").unlink()
    os.mkfifo(repo.root / "fixtures" / "a.json")
    code, _, err = checked_gate()
    assert code == 2
    assert "not a regular file" in err


def test_a_fixture_replaced_by_a_directory_is_an_input_error(repo: Repo, checked_gate: Run) -> None:
    (repo.root / "fixtures" / "a.json").unlink()
    (repo.root / "fixtures" / "a.json").mkdir()
    code, _, err = checked_gate()
    assert code == 2
    assert "fixtures/a.json" in err


def test_a_fixtures_folder_outside_the_root_is_an_input_error(
    repo: Repo, checked_gate: Run
) -> None:
    outside = repo.root.parent / "other"
    outside.mkdir()
    args = ["--fixtures", str(outside)]
    code, _, err = checked_gate(*args)
    assert code == 2
    assert "outside the repository root" in err
