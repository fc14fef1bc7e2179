"""Hostile known-tests registries: bytes that are not UTF-8 fail closed, naming the line."""

from __future__ import annotations

import json

import pytest

import waiver.read.stores.registry
from helpers.hostile_support import Repo, Run
from waiver.read.stores.registry import BLOCK_BYTES, match_registry, registry_blocks


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
# The registry is decoded in blocks of whole lines; tiny blocks put lines in later blocks.
@pytest.mark.parametrize("block", [BLOCK_BYTES, 8], ids=["one-block", "8-byte-blocks"])
def test_a_registry_that_is_not_utf8_fails_closed_naming_the_line(
    repo: Repo,
    checked_gate: Run,
    monkeypatch: pytest.MonkeyPatch,
    registry: bytes,
    where: str,
    block: int,
) -> None:
    monkeypatch.setattr(waiver.read.stores.registry, "BLOCK_BYTES", block)
    path = repo.root / "known-tests.txt"
    path.write_bytes(registry)
    code, _, err = checked_gate("--known-tests", str(path))
    assert code == 2
    assert f"{path}: {where}" in err
    report = json.loads((repo.root / "waiver.json").read_text())
    assert (report["blocked"], report["rows"]) == (True, [])


def test_lines_are_the_same_whatever_the_block_size(monkeypatch: pytest.MonkeyPatch) -> None:
    data = "a::one\r\n\n# comment\n  \nb::twö\u2028three\nlast::line".encode()
    expected = ["a::one", "b::twö\u2028three", "last::line"]
    for block in (1, 3, 8, BLOCK_BYTES):
        monkeypatch.setattr(waiver.read.stores.registry, "BLOCK_BYTES", block)
        blocks = registry_blocks(data, "known-tests.txt")
        assert [test_id for block in blocks for test_id in block] == expected


def test_comment_and_blank_lines_list_no_test_even_one_named_like_them() -> None:
    """A reported id may look like a comment or be blank; the registry cannot list it."""
    index = {"# not listed": 0, "a::one": 1, "  ": 2, "b::two": 3}
    data = b"# not listed\r\na::one\n  \nc::gone\nb::two\r\nc::gone\n"
    registry = match_registry(data, "known-tests.txt", index)
    assert (list(registry.expected), registry.vanished) == ([0, 1, 0, 1], ("c::gone",))
