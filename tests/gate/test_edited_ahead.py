"""The edited tests compared ahead, in a forked process, for every id the registry lists:
narrowed to the ids the gate compares, they are what comparing those ids alone gives, and
whatever goes wrong in the process, the gate compares them itself."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from waiver.errors import InputError
from waiver.gate import edited as edited_module
from waiver.gate.edited import edited_ahead, edited_facts
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import DiskTree
from waiver.runners import PYTEST
from waiver.runners.pytest import Pytest

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
