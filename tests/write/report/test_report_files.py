"""The gate's two files: the summary first, then waiver.json, whether a forked process
writes waiver.json meanwhile or this one writes it after."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from waiver.errors import InputError
from waiver.read.policy.settings import Flags, effective
from waiver.write.report import report_files
from waiver.write.report.report import Json, error_report_json
from waiver.write.report.report_files import write_report

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)


@pytest.fixture(params=["forked", "here"])
def where(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways of writing waiver.json: by a forked process, or by this one."""
    if request.param == "here":
        monkeypatch.setattr(report_files, "fork", lambda *args: None)
    return str(request.param)


def document() -> Json:
    error = InputError("reports", "no replay found")
    return error_report_json(error, effective(None, Flags(), "."), NOW, None)


def test_the_summary_then_the_report(tmp_path: Path, where: str) -> None:
    out, summary = tmp_path / "waiver.json", tmp_path / "summary.md"
    write_report(str(out), str(summary), document())
    assert json.loads(out.read_text(encoding="utf-8"))["error"]["problem"] == "no replay found"
    assert summary.read_text(encoding="utf-8").startswith("## ⛔ waiver: blocked")
    assert sorted(os.listdir(tmp_path)) == ["summary.md", "waiver.json"]


def test_a_summary_that_cannot_be_written_leaves_no_report(tmp_path: Path, where: str) -> None:
    out, summary = tmp_path / "waiver.json", tmp_path / "missing" / "summary.md"
    with pytest.raises(InputError, match="cannot write the summary"):
        write_report(str(out), str(summary), document())
    assert os.listdir(tmp_path) == []


def test_a_report_that_cannot_be_written_after_the_summary(tmp_path: Path, where: str) -> None:
    out, summary = tmp_path / "missing" / "waiver.json", tmp_path / "summary.md"
    with pytest.raises(InputError, match="cannot write the report"):
        write_report(str(out), str(summary), document())
    assert os.listdir(tmp_path) == ["summary.md"]


def test_what_runs_while_the_report_is_written(tmp_path: Path, where: str) -> None:
    out, summary = tmp_path / "waiver.json", tmp_path / "summary.md"
    assert write_report(str(out), str(summary), document(), meanwhile=lambda: "table") == "table"
    assert sorted(os.listdir(tmp_path)) == ["summary.md", "waiver.json"]


def test_an_error_while_the_report_is_written_leaves_none(tmp_path: Path, where: str) -> None:
    def broken() -> str:
        raise RuntimeError("a bug")

    out, summary = tmp_path / "waiver.json", tmp_path / "summary.md"
    with pytest.raises(RuntimeError):
        write_report(str(out), str(summary), document(), meanwhile=broken)
    assert os.listdir(tmp_path) == ["summary.md"]
