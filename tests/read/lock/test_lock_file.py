"""The fixture lock: GNU sha256sum format both ways, strict reading, byte hashing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from waiver.cli import main
from waiver.errors import InputError
from waiver.read.lock.lock_file import LockEntry, format_lock, lock_digest, parse_lock
from waiver.runners import LOCK_TABLES

DIGEST = "0" * 64


def make_fixtures(root: Path) -> None:
    (root / "fixtures" / "nested").mkdir(parents=True)
    (root / "fixtures" / "a.json").write_bytes(b'{"a": 1}\n')
    (root / "fixtures" / "nested" / "b.json").write_bytes(b'{"b":2}')
    (root / "fixtures" / "back\\slash.json").write_bytes(b"[]")
    (root / "fixtures" / "new\nline.json").write_bytes(b"{}")
    (root / "fixtures" / "notes.txt").write_bytes(b"not a fixture")


def test_written_lock_is_accepted_by_sha256sum_c(tmp_path: Path) -> None:
    make_fixtures(tmp_path)
    lock = tmp_path / "fixture.lock"
    code = main(["lock", "--root", str(tmp_path), "--fixtures", str(tmp_path / "fixtures"),
                 "--pattern", "*.json", "--out", str(lock)])  # fmt: skip
    assert code == 0
    checked = subprocess.run(
        ["sha256sum", "-c", "--strict", str(lock)], cwd=tmp_path, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count(": OK") == 4
    assert "notes.txt" not in lock.read_text()


def test_lock_from_find_sort_xargs_sha256sum_is_read(tmp_path: Path) -> None:
    make_fixtures(tmp_path)
    written = subprocess.run(
        "find fixtures -type f -name '*.json' -print0 | sort -z | xargs -0 sha256sum",
        shell=True, cwd=tmp_path, capture_output=True, check=True,
    ).stdout  # fmt: skip
    entries = parse_lock(written, "fixture.lock", LOCK_TABLES)
    assert sorted(entry.path for entry in entries) == [
        "fixtures/a.json",
        "fixtures/back\\slash.json",
        "fixtures/nested/b.json",
        "fixtures/new\nline.json",
    ]
    ours = format_lock(entries)
    assert parse_lock(ours.encode(), "ours", LOCK_TABLES) == tuple(
        sorted(entries, key=lambda e: e.path.encode())
    )


def test_binary_mode_marker_is_accepted() -> None:
    [entry] = parse_lock(f"{DIGEST} *fixtures/a.bin\n".encode(), "lock", LOCK_TABLES)
    assert entry == LockEntry("fixtures/a.bin", DIGEST)


def test_digest_ignores_line_order() -> None:
    a, b = LockEntry("x", DIGEST), LockEntry("y", "1" * 64)
    assert lock_digest([a, b]) == lock_digest([b, a]) != lock_digest([a])


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (f"{DIGEST}  ../escape.json", "'..'"),
        (f"{DIGEST}  /etc/passwd", "absolute"),
        (f"{DIGEST}  fixtures//a.json", "empty"),
        (f"{DIGEST}  fixtures/a\0.json", "NUL"),
        (f"{'A' * 64}  fixtures/a.json", "64 lowercase hex"),
        (f"{DIGEST} fixtures/a.json", "64 lowercase hex"),
        (f"{DIGEST}  fixtures/a.json\r", "carriage return"),
        (f"\\{DIGEST}  fixtures/a\\t.json", "unknown escape"),
        (f"{DIGEST}  fixtures/a.json\n{DIGEST}  fixtures/A.json", "case-folding"),
        (f"{DIGEST}  fixtures/a.json\n{DIGEST}  fixtures/a.json", "repeats"),
        ("", "no fixtures"),
    ],
)
def test_malformed_lock_lines_are_input_errors(line: str, problem: str) -> None:
    with pytest.raises(InputError) as raised:
        parse_lock(line.encode(), "fixture.lock", LOCK_TABLES)
    assert problem in str(raised.value)
    assert raised.value.source.startswith("fixture.lock")


def test_escaped_newline_name_round_trips() -> None:
    entry = LockEntry("fixtures/new\nline\\x.json", DIGEST)
    text = format_lock([entry])
    assert text == f"\\{DIGEST}  fixtures/new\\nline\\\\x.json\n"
    assert parse_lock(text.encode(), "lock", LOCK_TABLES) == (entry,)


def test_a_folder_no_pattern_reaches_is_not_entered_but_a_reachable_symlink_is_an_error(
    tmp_path: Path,
) -> None:
    """`--fixtures .` with globs (several fixture folders): a virtualenv's symlinked lib64
    beside them is no error, a symlinked folder where a glob reaches still is."""
    (tmp_path / "tests" / "data").mkdir(parents=True)
    (tmp_path / "tests" / "data" / "a.json").write_bytes(b"{}")
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "b.json").write_bytes(b"[]")
    (tmp_path / ".venv" / "lib").mkdir(parents=True)
    (tmp_path / ".venv" / "lib64").symlink_to(tmp_path / ".venv" / "lib")
    lock = tmp_path / "fixture.lock"

    def write() -> int:
        return main(["lock", "--root", str(tmp_path), "--fixtures", str(tmp_path),
                     "--pattern", "tests/data/*", "--pattern", "fixtures/*",
                     "--out", str(lock)])  # fmt: skip

    assert write() == 0
    assert [line.split("  ")[1] for line in lock.read_text().splitlines()] == [
        "fixtures/b.json",
        "tests/data/a.json",
    ]
    (tmp_path / "tests" / "data" / "linked").symlink_to(tmp_path / ".venv" / "lib")
    assert write() == 2
