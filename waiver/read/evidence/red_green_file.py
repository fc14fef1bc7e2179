"""The file `waiver red-green` wrote (`red-green.json`), read as the untrusted input it is:
strict JSON, each field checked; anything else is an input error that names the file."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from waiver.decide.red_green_rules import BaseRun
from waiver.errors import InputError
from waiver.read.untrusted.files import read_small
from waiver.read.untrusted.jsonfile import parse_json

MAX_RED_GREEN_BYTES = 64 << 20
OUTCOMES_FILE = "red-green.json"
FORMAT = "waiver-red-green"


@dataclass(frozen=True)
class RedGreenFile:
    base: str
    head: str | None
    replays: int
    runs: Mapping[str, BaseRun]


def _count(value: object, where: str, source: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InputError(source, f"{where}: expected a whole number of at least 0")
    return value


def _run(row: object, replays: int, number: int, source: str) -> tuple[str, BaseRun]:
    where = f"rows[{number}]"
    if not isinstance(row, dict):
        raise InputError(source, f"{where}: expected an object")
    test_id, why = row.get("test_id"), row.get("why")
    if not isinstance(test_id, str) or not test_id:
        raise InputError(source, f"{where}.test_id: expected a test id")
    if why is not None and not isinstance(why, str):
        raise InputError(source, f"{where}.why: expected a string or null")
    passed = _count(row.get("base_pass"), f"{where}.base_pass", source)
    total = _count(row.get("base_total"), f"{where}.base_total", source)
    errored = _count(row.get("errored", 0), f"{where}.errored", source)
    if not passed <= total <= replays or errored > total - passed:
        raise InputError(
            source, f"{where}: base_pass, errored and base_total do not fit {replays} replays"
        )
    return test_id, BaseRun(passed, total, replays, errored, why)


def parse_red_green(data: bytes, source: str) -> RedGreenFile:
    document = parse_json(data, source)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise InputError(source, f"not a file `waiver red-green` wrote (format {FORMAT})")
    if document.get("version") != 1:
        raise InputError(source, "version: expected 1")
    base, head, rows = document.get("base"), document.get("head"), document.get("rows")
    if not isinstance(base, str):
        raise InputError(source, "base: expected the base's commit id")
    if head is not None and not isinstance(head, str):
        raise InputError(source, "head: expected a commit id or null")
    replays = _count(document.get("replays"), "replays", source)
    if replays < 1:
        raise InputError(source, "replays: expected at least 1")
    if not isinstance(rows, list):
        raise InputError(source, "rows: expected a list")
    runs: dict[str, BaseRun] = {}
    for number, row in enumerate(rows):
        test_id, run = _run(row, replays, number, source)
        if test_id in runs:
            raise InputError(source, f"rows[{number}]: {test_id} is listed twice")
        runs[test_id] = run
    return RedGreenFile(base, head, replays, runs)


def shard_files(path: str) -> list[str]:
    """The files a `--red-green` path names: itself, the `red-green.json` of the folder
    `waiver red-green --out` wrote, or that of each folder in it (one per shard, as the
    reusable workflow downloads them)."""
    if not os.path.isdir(path):
        return [path]
    if os.path.lexists(os.path.join(path, OUTCOMES_FILE)):
        return [os.path.join(path, OUTCOMES_FILE)]
    found = sorted(
        os.path.join(path, name, OUTCOMES_FILE)
        for name in os.listdir(path)
        if os.path.isdir(os.path.join(path, name))
    )
    if not found:
        raise InputError(path, f"holds no {OUTCOMES_FILE}, nor a folder per shard with one")
    return found


def read_shards(paths: Sequence[str]) -> RedGreenFile:
    """The shards' files as one: of one base, one head and one replay count, each test in
    one shard only."""
    files = [found for path in paths for found in shard_files(path)]
    first, *others = [(path, read_red_green(path)) for path in files]
    runs = dict(first[1].runs)
    for path, shard in others:
        for name in ("base", "head", "replays"):
            if getattr(shard, name) != getattr(first[1], name):
                raise InputError(path, f"{name} differs from that of {first[0]}")
        for test_id, run in shard.runs.items():
            if test_id in runs:
                raise InputError(path, f"{test_id} is in another shard's file too")
            runs[test_id] = run
    return RedGreenFile(first[1].base, first[1].head, first[1].replays, runs)


def read_red_green(path: str) -> RedGreenFile:
    return parse_red_green(read_small(path, MAX_RED_GREEN_BYTES, path), path)
