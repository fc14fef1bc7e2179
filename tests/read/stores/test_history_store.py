"""A history file is read as hostile: whatever does not hold is an input error naming
the problem, and `waiver history record` then starts the history afresh with a warning."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from helpers.history_support import FLAKY, build_suite, gate_run
from waiver.cli import main
from waiver.errors import InputError
from waiver.read.stores import history_store
from waiver.read.stores.history_store import read_history

RUN = {"commit": None, "time": "2026-11-01T00:00:00Z", "fixture_hash": None,
       "ran": 1, "failed": 0, "storm": False, "head": "b" * 40, "replays": 5}  # fmt: skip
# A run as version 1 wrote it: without the commit it replayed or its replay count.
OLD_RUN = {key: value for key, value in RUN.items() if key not in ("head", "replays")}


def packed(tests: object, runs: object = (RUN,), **top: object) -> bytes:
    document = {"format": "waiver-history", "version": 2, "runs": list(runs), "tests": tests}
    return gzip.compress(json.dumps({**document, **top}).encode())


VALID = packed({"a::b": ["P", [], False, None]})
HOSTILE = {
    "empty": (b"", "the history file is empty"),
    "not gzip": (b'{"format": "waiver-history"}', "not a gzip file"),
    "truncated gzip": (VALID[: len(VALID) // 2], "truncated"),
    "data after the end": (VALID + b"junk", "truncated or has data after its end"),
    "not JSON": (gzip.compress(b"{"), "not valid JSON"),
    "another format": (packed({}, format="other"), "expected format waiver-history"),
    "runs of the wrong type": (packed({}, runs=[{"time": 1}]), "at runs/0"),
    "a count that is no count": (packed({}, runs=[{**RUN, "ran": -1}]), "runs/0/ran"),
    "a time without zone": (
        packed({}, runs=[{**RUN, "time": "2026-11-01T00:00:00"}]),
        "expected an ISO 8601 time with its timezone",
    ),
    "runs out of order": (
        packed({}, runs=[{**RUN, "time": "2026-11-02T00:00:00Z"}, RUN]),
        "not in order of time",
    ),
    "a trace of the wrong type": (packed({"a::b": [7, [], False, None]}), "run-length"),
    "a huge count": (packed({"a::b": ["P99999", [], False, None]}), "does not cover the 1 runs"),
    "a count too long to read": (
        packed({"a::b": ["P" + "9" * 5000, [], False, None]}),
        "run-length",
    ),
    "a missing detail": (packed({"a::b": ["U", [], False, None]}), "one detail is needed"),
    "a detail passing more than it ran": (
        packed({"a::b": ["U", ["6/5"], False, None]}),
        "not a detail",
    ),
    "an empty id": (packed({"": ["P", [], False, None]}), "not a test id"),
    "an id with a newline": (packed({"a\nb": ["P", [], False, None]}), "not a test id"),
    "a flag that is no boolean": (packed({"a::b": ["P", [], 1, None]}), "expected true or false"),
    "a head that is no commit": (packed({}, runs=[{**RUN, "head": "main"}]), "runs/0/head"),
    "a replay count that is no count": (
        packed({}, runs=[{**RUN, "replays": "5"}]),
        "runs/0/replays",
    ),
    "a version 2 run without its head": (packed({}, runs=[OLD_RUN]), "at runs/0"),
    "a version 1 run with a head": (packed({}, runs=[RUN], version=1), "at runs/0"),
    "a version to come": (packed({}, version=3), "expected format waiver-history version 2"),
    "duplicate keys": (gzip.compress(b'{"format": 1, "format": 2}'), "duplicate key"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_history_is_an_input_error(tmp_path: Path, name: str) -> None:
    data, problem = HOSTILE[name]
    (tmp_path / "h.gz").write_bytes(data)
    with pytest.raises(InputError) as raised:
        read_history(str(tmp_path / "h.gz"))
    assert problem in raised.value.problem


def test_a_gzip_bomb_is_refused_before_it_is_spelt_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The cap lowered to 1 MiB: 2 MiB of spaces stand for a bomb without taking seconds.
    monkeypatch.setattr(history_store, "MAX_JSON_BYTES", 1 << 20)
    (tmp_path / "h.gz").write_bytes(gzip.compress(b" " * (2 << 20)))
    with pytest.raises(InputError, match="holds more than 1 MiB"):
        read_history(str(tmp_path / "h.gz"))


def test_a_version_1_history_is_read_and_none_of_its_runs_is_base_evidence(
    tmp_path: Path,
) -> None:
    (tmp_path / "h.gz").write_bytes(packed({"a::b": ["P", [], False, None]}, [OLD_RUN], version=1))
    history = read_history(str(tmp_path / "h.gz"))
    assert history is not None
    assert [(run.head, run.replays) for run in history.runs] == [(None, None)]
    (tmp_path / "h2.gz").write_bytes(VALID)
    again = read_history(str(tmp_path / "h2.gz"))
    assert again is not None and [(r.head, r.replays) for r in again.runs] == [("b" * 40, 5)]


def test_a_missing_history_is_none(tmp_path: Path) -> None:
    assert read_history(str(tmp_path / "nothing.gz")) is None


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = build_suite(tmp_path_factory.mktemp("suite"))
    return gate_run(root, "2026-11-01T06:00:00+00:00", {FLAKY: "x...."})


@pytest.mark.parametrize("name", ["truncated gzip", "a huge count", "an id with a newline"])
def test_recording_over_a_hostile_history_starts_afresh_with_a_warning(
    tmp_path: Path, report: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    history = tmp_path / "h.gz"
    history.write_bytes(HOSTILE[name][0])
    code = main(["history", "record", "--history", str(history), "--report", str(report),
                 "--out", str(history), "--now", "2026-11-02T00:00:00Z"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 0
    assert err.startswith(f"waiver: warning: {history}: ") and "starting the history afresh" in err
    fresh = read_history(str(history))
    assert fresh is not None and len(fresh.runs) == 1 and "a::b" not in fresh.tests


def test_the_gate_warns_of_a_hostile_history_and_shows_none(
    report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = report.parent
    history = tmp_path / "h.gz"
    history.write_bytes(HOSTILE["truncated gzip"][0])
    shown = json.loads(
        gate_run(
            root, "2026-11-01T06:00:00+00:00", {FLAKY: "x...."}, "--history", str(history)
        ).read_text()
    )
    assert "rows show no history" in capsys.readouterr().err
    assert shown["history"]["problem"].startswith("the gzip stream is truncated")
    assert all("history" not in row for row in shown["rows"])
