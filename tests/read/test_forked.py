"""Work in a forked process: its answer comes back through the pipe, a process that ends
without one is an EOFError rather than a wait for ever, and parts shared with it are each
taken once."""

from __future__ import annotations

import os

import pytest

from waiver.read.forked import Claims, Forked


def test_the_answer_comes_back_from_another_process() -> None:
    assert Forked(lambda a, b: (a + b, os.getpid()), 2, 3).result()[0] == 5
    assert Forked(os.getpid).result() != os.getpid()


def test_a_process_that_ends_without_an_answer_is_an_eoferror() -> None:
    with pytest.raises(EOFError):
        Forked(os._exit, 0).result()


def test_each_part_is_taken_once_between_two_processes() -> None:
    claims = Claims(200)
    theirs = Forked(lambda: list(claims.taken()))
    ours = list(claims.taken())
    taken = ours + theirs.result()
    claims.close()
    assert sorted(taken) == list(range(200))


def test_a_part_is_one_byte() -> None:
    with pytest.raises(ValueError, match="256 parts"):
        Claims(256)
