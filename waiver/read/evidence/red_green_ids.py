"""The test ids `waiver red-green` is given, read where they enter: `--test`, a file of
ids (`--tests`, one a line, read as the registry is) and the rows of a waiver.json
(`--from-report`). An id holding a control character is an input error naming where it
came from, before any id reaches a command line (`waiver.read.junit.testid`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from waiver.errors import InputError
from waiver.read.junit.testid import id_problem
from waiver.read.stores.registry import MAX_REGISTRY_BYTES, registry_blocks
from waiver.read.stores.waiver_json import read_report
from waiver.read.untrusted.files import read_small


def checked_ids(test_ids: list[str], source: str) -> list[str]:
    """`test_ids`, given by `source`, when each is a test id; else an input error."""
    for test_id in test_ids:
        problem = id_problem(test_id)
        if problem is not None:
            raise InputError(source, problem)
    return test_ids


def read_tests_file(path: str) -> list[str]:
    """The ids of a file of them, read as the registry is: an id line that holds a control
    character is refused, naming the line."""
    data = read_small(path, MAX_REGISTRY_BYTES, path)
    return [test_id.strip() for block in registry_blocks(data, path) for test_id in block]


def needs_red_green(row: Mapping[str, Any]) -> bool:
    """A new or edited row that passed every replay of the change: the rows whose red-green
    outcome an approval can use (a test that fails on the change is red whatever the base)."""
    return (
        row.get("unknown") in ("new", "edited")
        and row.get("replay_pass") == row.get("replay_total")
        and bool(row.get("replay_total"))
    )


def tests_from_report(path: str) -> list[str]:
    """The ids `needs_red_green` picks among a waiver.json's rows, at least `min_replays`
    replays each."""
    document = read_report(path, needs_red_green).document
    least = document["min_replays"]
    rows = document["rows"]
    return checked_ids([row["test_id"] for row in rows if row["replay_total"] >= least], path)
