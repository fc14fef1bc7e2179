"""Everything GitHub-specific: workflow commands, step outputs and the job summary.

The environment arrives as a mapping (the command passes `os.environ`); nothing here
reads it on its own. Renderers return text or write to a stream they are given; only
`write_outputs`, `append_summary` and `publish` open the files that the runner names.

Untrusted text (test ids, paths, messages) reaches the log only as the data of a
workflow command, escaped by the runner's rules, or between `::stop-commands::` and
its random token, so it can never issue a command of its own.
"""

from __future__ import annotations

import os
import posixpath
import secrets
from collections.abc import Callable, Mapping
from typing import TextIO

from waiver.errors import InputError
from waiver.model import TestClass
from waiver.read.untrusted.files import open_beneath
from waiver.write.report.report import split_rows
from waiver.write.report.report_types import ReportJson, RowJson, report_of
from waiver.write.summary.summary import render_summary
from waiver.write.summary.summary_facts import listed_order
from waiver.write.words.escape import visible_text
from waiver.write.words.why import class_label, expected_replays, row_blocks

MAX_PER_KIND = 10  # the runner shows at most 10 error and 10 warning annotations per step
MAX_LOGGED_ROWS = 100
EXPLANATIONS = {
    TestClass.PROPERTY_VIOLATION: "a property case failed, so no test result can be trusted",
    TestClass.FIXTURE_DRIFT: "a fixture or test-harness file differs from the lock",
    TestClass.UNKNOWN_TEST: "new, edited, vanished, or too few replay outcomes; needs human review",
    TestClass.UNSTABLE_ASSERTION: "flips between replays; a freeze proposal is not a pass",
    TestClass.STABLE_ASSERTION_FAIL: "failed in every replay",
}
STRICT = "flips between replays under a strict pattern: blocks, and gets no freeze"
BASE_BLOCKS = (
    "flips between replays, and the base replays do not show it flipping "
    "(introduced_instability: block): blocks, and gets no freeze"
)

Token = Callable[[], str]


def random_token() -> str:
    return secrets.token_hex(16)


def on_github(env: Mapping[str, str]) -> bool:
    return env.get("GITHUB_ACTIONS") == "true"


def escape_data(text: str) -> str:
    """The message of a workflow command: the runner unescapes exactly these three."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value (`file=`, `title=`), where `:` and `,` also end the value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, properties: Mapping[str, str], message: str) -> str:
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def stop_commands(text: str, token: Token = random_token) -> str:
    """`text` wrapped so that the runner reads none of its lines as a workflow command.

    The token ends the stretch, so it must not occur in the text: a test name that
    guessed it could switch commands back on.
    """
    chosen = token()
    while chosen in text:
        chosen = token()
    return f"::stop-commands::{chosen}\n{text}\n::{chosen}::\n"


def repository_file(test_id: str, root: str, workspace: str) -> str | None:
    """The workspace-relative path of the file a pytest id names, if it is a real file.

    Only a normalised relative path to a regular file beneath the root qualifies (no
    symlink on the way); anything else gets no `file=`, rather than a guessed one.
    """
    candidate = test_id.split("::", 1)[0]
    if (
        "::" not in test_id
        or candidate.startswith("/")
        or "\\" in candidate
        or posixpath.normpath(candidate) != candidate
        or candidate.startswith("../")
    ):
        return None
    try:
        fd = open_beneath(root, candidate, candidate)
    except (InputError, OSError):
        return None
    if fd is None:
        return None
    os.close(fd)
    path = os.path.relpath(os.path.join(os.path.abspath(root), candidate), workspace)
    return None if path.startswith("..") else path.replace(os.sep, "/")


def _row_annotation(row: RowJson, root: str, workspace: str, expected: int) -> tuple[str, str]:
    test_class = TestClass(row["class"])
    # Every row that blocks is an error (`row_blocks`: the closed classes, unknown_test, an
    # unstable row under a strict pattern or one the policy blocks as not flipping on the
    # base). An unstable row that does not block, and a row an approval admitted, is a
    # warning.
    strict = test_class is TestClass.UNSTABLE_ASSERTION and row["strict"]
    base_blocks = test_class is TestClass.UNSTABLE_ASSERTION and not strict and row_blocks(row)
    kind = "error" if row_blocks(row) else "warning"
    # The title says which question an unknown_test row asks: new, vanished or short.
    properties = {"title": f"waiver: {class_label(row, expected)}"}
    path = repository_file(row["test_id"], root, workspace)
    if path is not None:
        properties["file"] = path
    message = (
        f"{visible_text(row['test_id'])}: "
        f"{STRICT if strict else BASE_BLOCKS if base_blocks else EXPLANATIONS[test_class]} "
        f"(passed {row['replay_pass']} of {row['replay_total']} replays)"
    )
    failure = row.get("message")
    if failure is not None:  # on a line of its own, as the runner shows it below the title
        message += f"\nfirst failure: {visible_text(failure)}"
    return kind, command(kind, properties, message)


def render_annotations(report: ReportJson, root: str, workspace: str) -> str:
    """`::error` for every blocking row and for what blocks the run apart from its rows (a
    missing registry), `::warning` for unstable rows that do not block, capped.

    At most MAX_PER_KIND of each kind, closed classes first; a final `::notice` says how
    many more there are, since the runner would drop an eleventh annotation silently.
    """
    if report["error"] is not None:
        return command("error", {"title": "waiver: input error"}, error_line(report)) + "\n"
    rows = split_rows(report["rows"])[1]
    rows.sort(key=listed_order)
    lines: list[str] = []
    shown = {"error": 0, "warning": 0}
    more = {"error": 0, "warning": 0}
    expected = expected_replays(report)
    for row in rows:
        kind, line = _row_annotation(row, root, workspace, expected)
        if shown[kind] < MAX_PER_KIND:
            shown[kind] += 1
            lines.append(line)
        else:
            more[kind] += 1
    # What blocks the run apart from its rows: the gate's own words, one line each.
    lines += [
        command("error", {"title": "waiver: blocked"}, reason)
        for reason in report.get("run_blockers", [])
    ]
    if more["error"] or more["warning"]:
        lines.append(
            command(
                "notice",
                {"title": "waiver: more annotations"},
                f"{more['error']} more errors and {more['warning']} more warnings are "
                "listed in the job summary and in waiver.json",
            )
        )
    return "".join(line + "\n" for line in lines)


def render_log(report: ReportJson) -> str:
    """The rows that are not a pass, one line each, as plain text for the job log."""
    rows = split_rows(report["rows"])[1]
    rows.sort(key=listed_order)
    expected = expected_replays(report)
    lines = [
        f"{class_label(row, expected):<22} {row['replay_pass']}/{row['replay_total']}  "
        f"{visible_text(row['test_id'])}"
        for row in rows[:MAX_LOGGED_ROWS]
    ]
    if len(rows) > MAX_LOGGED_ROWS:
        lines.append(f"... and {len(rows) - MAX_LOGGED_ROWS} more in waiver.json")
    return "\n".join(lines)


def error_line(report: ReportJson) -> str:
    """The input error of a report as one line, every control character spelled out."""
    error = report["error"]
    if error is None:
        return ""
    return f"{visible_text(error['source'])}: {visible_text(error['problem'], 2000)}"


def output_values(report: ReportJson, report_path: str) -> dict[str, str]:
    values = {
        "blocked": "true" if report["blocked"] else "false",
        "verdict": report["verdict"],
        "waiver-json": report_path,
        "error": error_line(report),
    }
    for test_class in TestClass:
        values[f"count-{test_class.value.replace('_', '-')}"] = str(report["counts"][test_class])
    return values


def render_outputs(values: Mapping[str, str], token: Token = random_token) -> str:
    """`$GITHUB_OUTPUT` lines in the multi-line form, each with a fresh random delimiter.

    A delimiter that occurs in the value would let the value end early and set other
    outputs, so a colliding one is drawn again.
    """
    parts = []
    for name, value in values.items():
        delimiter = f"ghadelimiter_{token()}"
        while delimiter in value:
            delimiter = f"ghadelimiter_{token()}"
        parts.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(parts)


def _append(path: str, text: str) -> None:
    with open(path, "a", encoding="utf-8", newline="\n") as stream:
        stream.write(text)


def write_outputs(env: Mapping[str, str], values: Mapping[str, str]) -> None:
    path = env.get("GITHUB_OUTPUT", "")
    if path:
        _append(path, render_outputs(values))


def append_summary(env: Mapping[str, str], report: ReportJson) -> None:
    path = env.get("GITHUB_STEP_SUMMARY", "")
    if path:
        _append(path, render_summary(report))


def _same_file(first: str | None, second: str) -> bool:
    return first is not None and bool(second) and os.path.abspath(first) == os.path.abspath(second)


def is_step_summary(env: Mapping[str, str], path: str | None) -> bool:
    """Whether `path` is the runner's $GITHUB_STEP_SUMMARY, which is appended to, never replaced."""
    return _same_file(path, env.get("GITHUB_STEP_SUMMARY", ""))


def publish(
    env: Mapping[str, str],
    document: Mapping[str, object],
    *,
    report_path: str,
    root: str,
    summary_written_to: str | None,
    stream: TextIO,
) -> None:
    """After waiver.json is written: annotations and the row list to the log, then the
    step outputs and the job summary (unless `--summary` already wrote to that file)."""
    report = report_of(document)
    workspace = env.get("GITHUB_WORKSPACE") or os.getcwd()
    stream.write(render_annotations(report, root, workspace))
    listing = render_log(report)
    if listing:
        stream.write(stop_commands(listing))
    stream.flush()
    write_outputs(env, output_values(report, report_path))
    if not _same_file(summary_written_to, env.get("GITHUB_STEP_SUMMARY", "")):
        append_summary(env, report)
