"""Hostile known-tests registries: bytes that are not UTF-8 fail closed, naming the line."""

from __future__ import annotations

import json

import pytest

from hostile_support import Repo, Run


@pytest.mark.parametrize(
    ("registry", "where"),
    [
        (b"\xffsuite.Good::test_ok\n", "line 1: not UTF-8 (invalid start byte at byte 0)"),
        (
            b"suite.Good::test_ok\r\n# a comment\nsuite.Go\xc3od::x\n",
            "line 3: not UTF-8 (invalid continuation byte at byte 8)",
        ),
        (b"suite.Good::test_ok\n\xe2\x82", "line 2: not UTF-8 (unexpected end of data at byte 0)"),
    ],
    ids=["first-byte", "inside-a-later-line", "cut-short-at-the-end"],
)
def test_a_registry_that_is_not_utf8_fails_closed_naming_the_line(
    repo: Repo, run_gate: Run, registry: bytes, where: str
) -> None:
    path = repo.root / "known-tests.txt"
    path.write_bytes(registry)
    code, _, err = run_gate("--known-tests", str(path))
    assert code == 2
    assert f"{path}: {where}" in err
    report = json.loads((repo.root / "waiver.json").read_text())
    assert (report["blocked"], report["rows"]) == (True, [])
