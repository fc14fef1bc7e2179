"""What the commands' flags take, as argparse types: a value that would not do stops at the
command line with a message naming it, before anything is read."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

import pytest

from waiver.commands.support import (
    commit_argument,
    full_commit,
    moment,
    new_folder,
    seconds,
    whole_number,
)
from waiver.errors import UsageError

SHA = "0123456789abcdef0123456789abcdef01234567"


def test_a_moment_needs_its_timezone() -> None:
    assert moment("2026-11-01T12:00:00+00:00") == datetime(2026, 11, 1, 12, tzinfo=UTC)
    with pytest.raises(argparse.ArgumentTypeError, match="needs a timezone"):
        moment("2026-11-01T12:00:00")
    with pytest.raises(argparse.ArgumentTypeError, match="not an ISO 8601 time"):
        moment("yesterday")


@pytest.mark.parametrize(
    ("text", "message"),
    [("0", "must be between 1 and 3, got 0"), ("4", "must be between 1 and 3, got 4"),
     ("1.5", "not a whole number: '1.5'")],
)  # fmt: skip
def test_a_whole_number_out_of_its_range_is_refused(text: str, message: str) -> None:
    parse = whole_number(1, 3)
    assert [parse("1"), parse("3")] == [1, 3]
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        parse(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [("0", "must be more than 0 and at most 60 seconds"), ("61", "at most 60 seconds, got 61"),
     ("nan", "must be more than 0"), ("soon", "not a number of seconds")],
)  # fmt: skip
def test_seconds_are_more_than_0_and_at_most_the_limit(text: str, message: str) -> None:
    parse = seconds(60)
    assert [parse("0.5"), parse("60")] == [0.5, 60.0]
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        parse(text)


@pytest.mark.parametrize("given", ["main", "v1.0", SHA[:7], SHA.upper(), SHA + "0"])
def test_only_a_full_commit_id_is_taken(given: str) -> None:
    assert commit_argument(SHA) == full_commit("--base", SHA) == SHA
    with pytest.raises(argparse.ArgumentTypeError, match="not a full commit id"):
        commit_argument(given)
    with pytest.raises(UsageError, match=r"--base .*give the base's full commit id"):
        full_commit("--base", given)


def test_a_command_writes_into_a_new_or_empty_folder(tmp_path: Path) -> None:
    new_folder(str(tmp_path / "out"), "replay")
    (tmp_path / "out" / "run-1.xml").write_text("")
    with pytest.raises(UsageError, match="is not empty: waiver replay writes into a new folder"):
        new_folder(str(tmp_path / "out"), "replay")
