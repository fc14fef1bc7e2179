"""The edited tests compared ahead, in a forked process, for every id the registry lists:
narrowed to the ids the gate compares, they are what comparing those ids alone gives, and
whatever goes wrong in the process, the gate compares them itself."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

import pytest

from waiver.errors import InputError
from waiver.gate import edited_tests as edited_module
from waiver.gate.edited_tests import edited_ahead, edited_facts
from waiver.read.forked import Claims, fork
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import DiskTree
from waiver.runners.pytest import PYTEST, Pytest

REGISTRY = b"a.txt::one\nb.txt::two\nc.txt::three\n"


class Protected:
    """The trusted revision's files, as the registry alone."""

    def __init__(self, registry: bytes) -> None:
        self.registry = registry

    def read(self, path: str, limit: int) -> bytes:
        if not self.registry:
            raise InputError(path, "cannot be read")
        return self.registry


def committed(tmp_path: Path) -> Committed:
    # Ids of files that are not Python modules: edited exactly when their file changed.
    return Committed(
        DiskTree(str(tmp_path)), DiskTree(str(tmp_path)), frozenset({"a.txt", "c.txt"})
    )


@pytest.mark.parametrize("registry", [REGISTRY, b""], ids=["answered", "failed"])
def test_the_ids_compared_get_what_comparing_them_alone_gives(
    tmp_path: Path, registry: bytes
) -> None:
    change = committed(tmp_path)
    compared = ["c.txt::three", "b.txt::two", "d.txt::four"]
    with edited_ahead(PYTEST, change, Protected(registry), "known-tests.txt") as ahead:
        assert ahead is not None
        found = ahead.facts(compared)
    assert found == edited_facts(PYTEST, change, compared)
    assert found.edited == {"c.txt::three": ("its file changed",)}


def test_without_a_process_the_gate_compares_them_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(edited_module, "fork", lambda *args: None)
    asked: list[list[str]] = []

    class Counting(Pytest):
        def edited(self, change: Committed, test_ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
            asked.append(list(test_ids))
            return PYTEST.edited(change, asked[-1])

    with edited_ahead(Counting(), committed(tmp_path), Protected(REGISTRY), "r") as ahead:
        assert ahead is not None
        assert ahead.facts(["a.txt::one"]).edited == {"a.txt::one": ("its file changed",)}
    assert asked == [["a.txt::one"]]


def test_no_change_commit_no_comparison(tmp_path: Path) -> None:
    with edited_ahead(PYTEST, None, Protected(REGISTRY), "r") as ahead:
        assert ahead is None


def test_the_registry_in_parts_each_ending_where_a_file_does() -> None:
    ids = [f"tests/test_{n % 37:02}.py::test_{k}" for n in range(37) for k in range(n % 5 + 1)]
    ids.sort()
    data = "".join(f"{test_id}\n" for test_id in ["# a comment", *ids]).encode()
    parts = edited_module.registry_parts(PYTEST, data, "known-tests.txt")
    assert len(parts) == edited_module.PARTS
    assert [test_id for part in parts for test_id in part] == ids
    files = [{PYTEST.test_file(test_id) for test_id in part} for part in parts]
    assert all(a.isdisjoint(b) for n, a in enumerate(files) for b in files[n + 1 :])
    assert sum(bool(part) for part in parts) > edited_module.PARTS // 2


def test_fewer_ids_than_parts() -> None:
    parts = edited_module.registry_parts(PYTEST, REGISTRY, "r")
    assert [test_id for part in parts for test_id in part] == REGISTRY.decode().split()


def _take_slowly(claims: Claims) -> list[int]:
    taken = []
    for part in claims.taken():
        taken.append(part)
        time.sleep(0.01)
    return taken


def test_a_forked_process_and_this_one_take_every_part_once() -> None:
    claims = Claims(40)
    process = fork(_take_slowly, claims)
    if process is None:
        pytest.skip("no second core to fork onto")
    mine = []
    for part in claims.taken():
        mine.append(part)
        time.sleep(0.01)
    theirs = process.result()
    claims.close()
    assert sorted([*theirs, *mine]) == list(range(40))
    assert theirs == sorted(theirs) and mine == sorted(mine)
    assert theirs and mine


def test_a_process_killed_while_taking_parts_leaves_the_rest_to_this_one() -> None:
    claims = Claims(40)
    process = fork(_take_slowly, claims)
    if process is None:
        pytest.skip("no second core to fork onto")
    time.sleep(0.1)
    process.stop()  # killed between two parts, or while taking one: it holds nothing
    mine = list(claims.taken())
    claims.close()
    assert mine == list(range(mine[0], 40))  # the rest, from where it was killed


def test_when_this_process_fails_at_its_parts_it_compares_the_ids_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent, failed = os.getpid(), []

    class FailingHere(Pytest):
        def edited(self, change: Committed, test_ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
            ids = list(test_ids)
            if os.getpid() != parent:  # the forked process is slow: most parts are ours
                time.sleep(0.05)
            elif len(ids) == 1 and not failed:
                failed.append(ids)
                raise RuntimeError("a part that could not be compared")
            return PYTEST.edited(change, ids)

    change = committed(tmp_path)
    compared = ["c.txt::three", "b.txt::two", "a.txt::one"]
    with edited_ahead(FailingHere(), change, Protected(REGISTRY), "r") as ahead:
        assert ahead is not None
        found = ahead.facts(compared)
    assert failed
    assert found == edited_facts(PYTEST, change, compared)
