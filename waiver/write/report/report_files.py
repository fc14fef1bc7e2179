"""The gate's two files on disk: waiver.json, written atomically, and the Markdown summary;
and the checks that a run makes of their paths before it writes either."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import TypeVar

from waiver.errors import InputError, UsageError
from waiver.read.forked import Forked, fork
from waiver.write.files.atomic import discard, put_in_place, write_atomic, write_temporary
from waiver.write.report.report import Json, json_chunks
from waiver.write.report.report_types import report_of
from waiver.write.summary.summary import render_summary

Answer = TypeVar("Answer")


def write_report(
    out: str,
    summary: str | None,
    document: Json,
    *,
    summary_appends: bool = False,
    meanwhile: Callable[[], Answer] | None = None,
) -> Answer | None:
    """The Markdown summary, then waiver.json atomically; returns what `meanwhile` gave.

    The summary is written first so that one that cannot be written leaves no report
    behind. A `summary` file is replaced, so a second run does not double it, unless it
    is the runner's step summary (`summary_appends`), which other steps share. Meanwhile a
    forked process writes waiver.json to its temporary file, which is put in place once
    the summary is written and `meanwhile` (the terminal's table) has run.
    """
    if summary is None:
        _write_json(out, document)
        return None if meanwhile is None else meanwhile()
    writing = fork(_write_temporary, out, document)
    try:
        _write_summary(summary, render_summary(report_of(document)), summary_appends)
        answer = None if meanwhile is None else meanwhile()
    except BaseException:
        if writing is not None:
            _discard(writing)
        raise
    written = None
    if writing is not None:
        with contextlib.suppress(EOFError):
            written = writing.result()
    if written is None:  # no process, or one that did not finish: written here
        _write_json(out, document)
        return answer
    try:
        if isinstance(written, OSError):
            raise written
        put_in_place(written, out)
    except OSError as error:
        raise _report_error(out, error) from None
    return answer


def _write_summary(summary: str, text: str, summary_appends: bool) -> None:
    try:
        if summary_appends:
            with open(summary, "a", encoding="utf-8") as stream:
                stream.write(text)
        else:
            write_atomic(summary, text)
    except OSError as error:
        raise InputError(summary, f"cannot write the summary: {error.strerror}") from None


def _write_json(out: str, document: Json) -> None:
    try:
        write_atomic(out, json_chunks(document))
    except OSError as error:
        raise _report_error(out, error) from None


def _report_error(out: str, error: OSError) -> InputError:
    return InputError(out, f"cannot write the report: {error.strerror}")


def _write_temporary(out: str, document: Json) -> str | OSError | None:
    """In the forked process: waiver.json written to its temporary file, that file's path;
    the error when it could not be written; None when anything else went wrong, which the
    gate then meets itself."""
    try:
        return write_temporary(out, json_chunks(document))
    except OSError as error:
        return error
    except Exception:
        return None


def _discard(writing: Forked[str | OSError | None]) -> None:
    """The report written meanwhile, removed: the summary could not be written."""
    with contextlib.suppress(EOFError):
        written = writing.result()
        if isinstance(written, str):
            discard(written)


def remove_report(out: str) -> None:
    """Remove an earlier report at `out`, so no exit but 0 or 1 leaves one that is green."""
    if os.path.isdir(out) and not os.path.islink(out):
        raise UsageError(f"--out {out} is a folder; give the path of waiver.json")
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        os.unlink(out)


def check_output_paths(out: str, summary: str | None) -> None:
    """Both output files must have a folder to go in, checked before anything is written."""
    for flag, path in (("--out", out), ("--summary", summary)):
        if path is None:
            continue
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise UsageError(f"{flag} {path}: the folder {folder} does not exist")
    if summary is not None and os.path.isdir(summary):
        raise UsageError(f"--summary {summary} is a folder; give a file path")
