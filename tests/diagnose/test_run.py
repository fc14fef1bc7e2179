"""`waiver diagnose` against a real HTTP server on 127.0.0.1 that plays an OpenAI-compatible
endpoint, plus the pure reply guard and the commentary renderer.

The input waiver.json comes from `waiver classify`, so it is a real, schema-valid report.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.chat_server import Answer, ChatServer, reply, running_chat_server
from helpers.support import REPO, case_json
from waiver.cli import main
from waiver.diagnose.reply_guard import Accepted, Dropped, guard
from waiver.diagnose.run import INSTRUCTION, NOTICE
from waiver.write.summary.commentary import render_commentary

KEY = "sk-local-7f3a9c1e5b2d"
HASH = "a" * 64
EMPTY = "tests/assertions/test_parse.py::test_empty"  # stable_assertion_fail
KNOWN = "tests/assertions/test_parse.py::test_known"  # stable_pass
ROUND_TRIP = "tests/assertions/test_parse.py::test_round_trip"  # unstable 2/5
SHUFFLE = "tests/assertions/test_parse.py::test_shuffle"  # unstable 4/5
GOOD = (
    "1. Shared state between replays, such as a counter file left on disk.\n"
    "2. Dependence on test order or on a random seed.\n"
    "3. A timing-sensitive assertion."
)
CLOSED_FLAKY = f"{EMPTY} is a stable_assertion_fail, but it is only flaky: same timing issue."
FREEZE_OTHER = f"1. Shared counter between replays.\n2. Freeze {EMPTY} as well until it is fixed."
FACTS_ROUND_TRIP = {
    "class": "unstable_assertion",
    "test_id": ROUND_TRIP,
    "fixture_hash": HASH,
    "replay_pass": 2,
    "replay_total": 5,
    "counts_as_pass": False,
}


@pytest.fixture
def endpoint() -> Iterator[ChatServer]:
    with running_chat_server() as server:
        yield server


@pytest.fixture
def report(tmp_path: Path) -> Path:
    """A blocked waiver.json with two unstable rows, a stable failure and a stable pass."""
    cases = tmp_path / "cases.json"
    cases.write_text(
        json.dumps(
            [
                case_json(ROUND_TRIP, [False, True, False, True, False]),
                case_json(SHUFFLE, [True, True, True, True, False]),
                case_json(EMPTY, [False] * 5),
                case_json(KNOWN, [True] * 5),
            ]
        )
    )
    out = tmp_path / "waiver.json"
    assert main(["classify", "--cases", str(cases), "--out", str(out)]) == 1
    return out


def diagnose(report: Path, url: str, *extra: str) -> int:
    folder = report.parent
    return main(
        [
            "diagnose",
            "--report", str(report),
            "--endpoint", url,
            "--model", "local-model",
            "--out", str(folder / "diagnosis.json"),
            "--summary", str(folder / "summary.md"),
            *extra,
        ]
    )  # fmt: skip


def notes(report: Path) -> list[dict[str, Any]]:
    document: dict[str, Any] = json.loads((report.parent / "diagnosis.json").read_text())
    result: list[dict[str, Any]] = document["notes"]
    return result


def note(test_id: str, status: str, commentary: str | None, reason: str | None) -> dict[str, Any]:
    replays = {ROUND_TRIP: (2, 5), SHUFFLE: (4, 5)}[test_id]
    return {
        "test_id": test_id,
        "class": "unstable_assertion",
        "replay_pass": replays[0],
        "replay_total": replays[1],
        "fixture_hash": HASH,
        "status": status,
        "commentary": commentary,
        "reason": reason,
    }


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAIVER_MODEL_API_KEY", KEY)


def test_a_good_reply_is_recorded_beside_the_unchanged_report(
    endpoint: ChatServer, report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = report.read_bytes()
    endpoint.answers = [reply(GOOD), reply(GOOD)]
    assert diagnose(report, endpoint.url) == 0
    assert report.read_bytes() == before
    assert json.loads((report.parent / "diagnosis.json").read_text()) == {
        "schema_version": 1,
        "notice": NOTICE,
        "report": {"path": str(report), "sha256": hashlib.sha256(before).hexdigest()},
        "model": "local-model",
        "unstable_rows": 2,
        "notes": [
            note(ROUND_TRIP, "accepted", GOOD, None),
            note(SHUFFLE, "accepted", GOOD, None),
        ],
    }
    fenced = "```text\n" + GOOD + "\n```"
    assert (report.parent / "summary.md").read_text() == (
        "\n"
        "## Commentary — not a test result\n"
        "\n"
        "Model `local-model` was asked about 2 of 2 `unstable_assertion` rows. Its notes change "
        "no class, expiry, verdict or exit code: waiver.json and the gate's summary are the "
        "result.\n"
        "\n"
        "| # | test id | replays passed | notes |\n"
        "|---|---|---|---|\n"
        f"| 1 | `{ROUND_TRIP}` | 2/5 | kept, notes below |\n"
        f"| 2 | `{SHUFFLE}` | 4/5 | kept, notes below |\n"
        "\n"
        "Notes 1, from the model, unchecked:\n"
        "\n"
        f"{fenced}\n"
        "\n"
        "Notes 2, from the model, unchecked:\n"
        "\n"
        f"{fenced}\n"
    )
    assert capsys.readouterr().out == (
        "waiver: commentary on 2 unstable rows (2 kept) written to "
        f"{report.parent / 'diagnosis.json'}; the report is unchanged\n"
    )


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            CLOSED_FLAKY,
            "the reply names the closed class stable_assertion_fail; a closed class is never "
            "flaky or safe, and only the gate assigns classes",
        ),
        (
            "The stable failure in test_empty is flaky too.",
            "the reply names the closed class stable_assertion_fail; a closed class is never "
            "flaky or safe, and only the gate assigns classes",
        ),
        (
            FREEZE_OTHER,
            f"the reply recommends a freeze, skip or waiver and names another test id: {EMPTY!r}",
        ),
    ],
)
def test_a_reply_that_reads_as_a_decision_is_dropped_with_the_reason(
    endpoint: ChatServer, report: Path, text: str, reason: str
) -> None:
    before = report.read_bytes()
    endpoint.answers = [reply(text)]
    assert diagnose(report, endpoint.url, "--max-rows", "1") == 0
    assert notes(report) == [note(ROUND_TRIP, "dropped", None, reason)]
    assert report.read_bytes() == before
    summary = (report.parent / "summary.md").read_text()
    assert text not in summary
    assert "```" not in summary  # nothing of a dropped reply is shown


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (Answer(delay=10, body=reply(GOOD).body), "no reply within the timeout of 1 s"),
        (Answer(trickle=2, body=reply(GOOD).body[:8]), "no reply within the timeout of 1 s"),
        (Answer(status=500, body=b'{"error": "boom"}'), "the endpoint answered HTTP 500"),
        (
            Answer(body=b"{choices: [}"),
            "unreadable reply: not valid JSON: Expecting property name enclosed in double "
            "quotes (line 1, column 2)",
        ),
        (Answer(body=b""), "the reply body is empty"),
        (Answer(body=b'{"choices": []}'), "the reply has no text at choices[0].message.content"),
    ],
    ids=["timeout", "slow-body", "http-500", "malformed-json", "empty-body", "no-choices"],
)
def test_a_failed_call_is_recorded_and_changes_nothing(
    endpoint: ChatServer, report: Path, answer: Answer, reason: str
) -> None:
    before = report.read_bytes()
    endpoint.answers = [answer]
    started = time.monotonic()
    assert diagnose(report, endpoint.url, "--max-rows", "1", "--timeout", "1") == 0
    # One try and no waiting out the server: it would take 10 s or more; the margin below is
    # wide so that a loaded machine cannot make this fail.
    assert time.monotonic() - started < 6
    assert report.read_bytes() == before
    assert notes(report) == [note(ROUND_TRIP, "failed", None, reason)]
    assert len(endpoint.seen) == 1
    assert f"| 1 | `{ROUND_TRIP}` | 2/5 | call failed: `{reason}` |" in (
        (report.parent / "summary.md").read_text().splitlines()
    )


def test_a_redirect_is_not_followed(endpoint: ChatServer, report: Path) -> None:
    elsewhere = f"http://127.0.0.1:{endpoint.server_address[1]}/elsewhere"
    endpoint.answers = [Answer(status=302, headers=(("Location", elsewhere),)), reply(GOOD)]
    assert diagnose(report, endpoint.url, "--max-rows", "1") == 0
    assert notes(report) == [note(ROUND_TRIP, "failed", None, "the endpoint answered HTTP 302")]
    assert [seen.path for seen in endpoint.seen] == ["/v1/chat/completions"]


def test_a_proxy_never_sees_a_plain_http_request(
    endpoint: ChatServer, report: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")  # nothing listens there
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    endpoint.answers = [reply(GOOD)]
    assert diagnose(report, endpoint.url, "--max-rows", "1") == 0
    assert notes(report) == [note(ROUND_TRIP, "accepted", GOOD, None)]


def test_an_unreachable_endpoint_is_recorded_not_raised(report: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert diagnose(report, f"http://127.0.0.1:{port}", "--max-rows", "1") == 0
    assert notes(report) == [
        note(
            ROUND_TRIP,
            "failed",
            None,
            "could not reach the endpoint: [Errno 111] Connection refused",
        )
    ]


def test_each_request_carries_only_its_own_rows_facts(endpoint: ChatServer, report: Path) -> None:
    endpoint.answers = [reply(GOOD), reply(GOOD)]
    assert diagnose(report, endpoint.url + "/") == 0
    first, second = endpoint.seen
    assert first.path == second.path == "/v1/chat/completions"
    assert first.headers["Content-Type"] == "application/json"
    assert json.loads(first.body) == {
        "model": "local-model",
        "messages": [
            {"role": "system", "content": INSTRUCTION},
            {"role": "user", "content": json.dumps(FACTS_ROUND_TRIP)},
        ],
    }
    facts = json.loads(json.loads(second.body)["messages"][1]["content"])
    assert facts == {**FACTS_ROUND_TRIP, "test_id": SHUFFLE, "replay_pass": 4}
    for seen, own in ((first, ROUND_TRIP), (second, SHUFFLE)):
        others = {EMPTY, KNOWN, ROUND_TRIP, SHUFFLE} - {own}
        assert [test_id for test_id in others if test_id.encode() in seen.body] == []
        assert b"retries" not in seen.body
        assert b"freeze" not in seen.body
        assert b"expires_at" not in seen.body


def test_max_rows_limits_the_calls(endpoint: ChatServer, report: Path) -> None:
    endpoint.answers = [reply(GOOD)]
    assert diagnose(report, endpoint.url, "--max-rows", "1") == 0
    assert len(endpoint.seen) == 1
    document = json.loads((report.parent / "diagnosis.json").read_text())
    assert (document["unstable_rows"], len(document["notes"])) == (2, 1)


def test_the_key_is_in_the_authorization_header_and_nowhere_else(
    endpoint: ChatServer, report: Path
) -> None:
    # The second reply echoes the key back: it must not reach the files either.
    endpoint.answers = [reply(GOOD), reply(f"1. The key {KEY} looks wrong.")]
    folder = report.parent
    completed = subprocess.run(
        [
            sys.executable, "-m", "waiver", "diagnose",
            "--report", str(report),
            "--endpoint", endpoint.url,
            "--model", "local-model",
            "--out", str(folder / "diagnosis.json"),
            "--summary", str(folder / "summary.md"),
        ],
        cwd=REPO,
        env={**os.environ, "WAIVER_MODEL_API_KEY": KEY},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert [seen.headers["Authorization"] for seen in endpoint.seen] == [f"Bearer {KEY}"] * 2
    assert all(KEY.encode() not in seen.body for seen in endpoint.seen)
    assert notes(report)[1] == note(SHUFFLE, "dropped", None, "the reply repeats the API key")
    for text in (
        completed.stdout,
        completed.stderr,
        (folder / "diagnosis.json").read_text(),
        (folder / "summary.md").read_text(),
    ):
        assert KEY not in text


def test_a_missing_or_invalid_report_exits_2_and_asks_nothing(
    endpoint: ChatServer, report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert diagnose(report.parent / "absent.json", endpoint.url) == 2
    assert "absent.json: file not found" in capsys.readouterr().err
    document = json.loads(report.read_text())
    document["rows"][0]["class"] = "flaky"
    report.write_text(json.dumps(document))
    assert diagnose(report, endpoint.url) == 2
    assert "not a valid waiver report at rows/0/class" in capsys.readouterr().err
    report.write_text("{")
    assert diagnose(report, endpoint.url) == 2
    assert endpoint.seen == []
    assert not (report.parent / "diagnosis.json").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--endpoint", "http://models.example/v1"], "must use https unless it is on this machine"),
        (["--endpoint", "file:///etc/passwd"], "must be an https:// base URL"),
        (["--endpoint", "https://u:p@models.example/v1"], "must not hold credentials"),
        (["--out", "{report}"], "--out and --summary must differ"),
        (["--max-rows", "0"], "argument --max-rows: must be between 1 and 20, got 0"),
        (
            ["--timeout", "0"],
            "argument --timeout: must be more than 0 and at most 60 seconds, got 0",
        ),
        (
            ["--timeout", "61"],
            "argument --timeout: must be more than 0 and at most 60 seconds, got 61",
        ),
    ],
)
def test_usage_errors_exit_2_and_leave_the_report(
    report: Path, extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = report.read_bytes()
    argv = [
        "diagnose", "--report", str(report), "--endpoint", "http://127.0.0.1:9/v1",
        "--model", "m", "--out", str(report.parent / "diagnosis.json"),
        *(value.format(report=report) for value in extra),
    ]  # fmt: skip
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert report.read_bytes() == before


UNUSABLE_KEY = "waiver: error: WAIVER_MODEL_API_KEY must be printable ASCII without spaces\n"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "waiver: error: WAIVER_MODEL_API_KEY is not set\n"),
        ("two words", UNUSABLE_KEY),
        ("line\nbreak", UNUSABLE_KEY),
        ("ключ", UNUSABLE_KEY),
    ],
)
def test_a_missing_or_unusable_key_exits_2_without_showing_it(
    report: Path,
    value: str,
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("WAIVER_MODEL_API_KEY", value)
    assert diagnose(report, "http://127.0.0.1:9/v1") == 2
    assert capsys.readouterr().err == message
    assert not (report.parent / "diagnosis.json").exists()


ROW = {"test_id": ROUND_TRIP, "class": "unstable_assertion"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"  {GOOD}\n\n", Accepted(GOOD)),
        ("The test passes in 2 of 5 replays, so order may matter.", None),
        ("1. An unstable assertion on wall-clock time.", None),
        ("pytest-randomly ordering could skip a setup step.", None),
        (f"1. Shared counter.\n2. Until fixed, the freeze on {ROUND_TRIP} stays.", None),
        ("1. Random seed.\n2. Timing in test_round_trip.", None),
        (" \n\t", Dropped("the reply is empty")),
        ("x" * 1501, Dropped("the reply is longer than 1500 characters (1501)")),
        (
            "This looks like Fixture-Drift, so it is safe.",
            Dropped(
                "the reply names the closed class fixture_drift; a closed class is never flaky "
                "or safe, and only the gate assigns classes"
            ),
        ),
        (
            "A property violation that is harmless.",
            Dropped(
                "the reply names the closed class property_violation; a closed class is never "
                "flaky or safe, and only the gate assigns classes"
            ),
        ),
        (
            "It should be a stable_pass.",
            Dropped("the reply names the class stable_pass; only the gate assigns classes"),
        ),
        (
            "Treat it as an unknown test.",
            Dropped("the reply names the class unknown_test; only the gate assigns classes"),
        ),
        (
            "Skip TestCheckout.test_pay until this is fixed.",
            Dropped(
                "the reply recommends a freeze, skip or waiver and names another test id: "
                "'TestCheckout.test_pay'"
            ),
        ),
        (
            "A quarantine of com.acme.CartTest would help.",
            Dropped(
                "the reply recommends a freeze, skip or waiver and names another test id: "
                "'com.acme.CartTest'"
            ),
        ),
        (
            "The test actually passes; the failures are noise.",
            Dropped(
                "the reply claims the test passes; an unstable_assertion never counts as a pass"
            ),
        ),
        (
            "It is safe to merge.",
            Dropped(
                "the reply claims the test passes; an unstable_assertion never counts as a pass"
            ),
        ),
        (
            "This counts as a pass.",
            Dropped(
                "the reply claims the test passes; an unstable_assertion never counts as a pass"
            ),
        ),
    ],
)
def test_guard(text: str, expected: Accepted | Dropped | None) -> None:
    assert guard(ROW, text) == (expected or Accepted(text))


def test_commentary_renders_model_text_inert() -> None:
    hostile = (
        "1. ``` <img src=x> @org/team [x](http://x) | a | b\n2. \u202eevil\u200b\n::error::fake"
    )
    diagnosis = {
        "model": "m|`x`",
        "unstable_rows": 3,
        "notes": [
            {**note(ROUND_TRIP, "accepted", hostile, None), "test_id": "a|b`c"},
            note(SHUFFLE, "dropped", None, "the reply names the class stable_pass; x | y"),
        ],
    }
    assert render_commentary(diagnosis) == (
        "\n"
        "## Commentary — not a test result\n"
        "\n"
        "Model `` m\\|`x` `` was asked about 2 of 3 `unstable_assertion` rows. Its notes change "
        "no class, expiry, verdict or exit code: waiver.json and the gate's summary are the "
        "result.\n"
        "\n"
        "| # | test id | replays passed | notes |\n"
        "|---|---|---|---|\n"
        "| 1 | ``a\\|b`c`` | 2/5 | kept, notes below |\n"
        f"| 2 | `{SHUFFLE}` | 4/5 | dropped: `the reply names the class stable_pass; x \\| y` |\n"
        "\n"
        "Notes 1, from the model, unchecked:\n"
        "\n"
        "````text\n"
        "1. ``` <img src=x> @org/team [x](http://x) | a | b\n"
        "2. <U+202E>evil<U+200B>\n"
        "::error::fake\n"
        "````\n"
    )
