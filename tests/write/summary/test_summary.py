"""The job summary of big suites: passes are a count, the budget never cuts markup in half;
and the summary of a run that ended in an input error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers.support import (
    REPO,
    check_golden,
    gate_args,
    git,
    load_report,
    report_document,
    write_big_run,
)
from waiver.cli import main
from waiver.model import TestClass
from waiver.write.summary.budget import LIST_CAP
from waiver.write.summary.summary import LIMIT, RESERVE, render_summary

CLASSES = [test_class.value for test_class in TestClass]


def check_balanced(summary: str) -> None:
    """Every <details> opened is closed, nothing nests, and every table is whole: a head,
    its separator, and rows of the head's width."""
    depth = 0
    for line in summary.splitlines():
        depth += line.count("<details>") - line.count("</details>")
        assert depth in (0, 1), summary
    assert depth == 0
    for table in re.findall(r"(?:^\|.*\n)+", summary, flags=re.MULTILINE):
        lines = table.splitlines()
        assert len(lines) >= 3, table  # a head, a separator and at least one row
        width = lines[0].count(" | ") + 1
        assert re.fullmatch(r"\|(---\|)+", lines[1]), table
        assert lines[1].count("---") == width
        for line in lines[2:]:
            assert line.endswith(" |"), line
            # Untrusted text cannot hold a bare `|` (md_code escapes it), so cells count.
            assert line.replace("\\|", "").count(" | ") + 1 == width, line


ids = st.text(alphabet="abc/_:.|`<> ", min_size=1, max_size=40)


@given(
    rows=st.lists(st.tuples(ids, st.sampled_from(CLASSES)), max_size=300),
    skipped=st.lists(ids, max_size=60),
    room=st.integers(min_value=0, max_value=12_000),
)
def test_the_budget_never_leaves_markup_unbalanced(
    rows: list[tuple[str, str]], skipped: list[str], room: int
) -> None:
    limit = RESERVE + room
    summary = render_summary(report_document(rows, skipped), limit=limit)
    check_balanced(summary)
    assert len(summary.encode("utf-8")) <= limit


def test_a_cut_list_keeps_its_closing_tag_and_counts_what_it_left_out() -> None:
    """The budget runs out inside the skipped list: it is closed, and the count is right."""
    passes = [(f"t::pass_{n}", "stable_pass") for n in range(3)]
    skipped = [f"t::skipped_{n}" for n in range(LIST_CAP)]
    whole = render_summary(report_document(passes, skipped))
    cut = render_summary(
        report_document(passes, skipped), limit=len(whole.encode()) + RESERVE - 200
    )
    check_balanced(cut)
    shown = cut.count("- `t::skipped_")
    assert 0 < shown < LIST_CAP
    assert cut.endswith(
        f"_{LIST_CAP - shown} rows left out to stay under 1 MiB; all of them are in waiver.json._\n"
    )


def test_passes_past_the_cap_are_a_count() -> None:
    rows = [(f"t::pass_{n:03}", "stable_pass") for n in range(LIST_CAP + 7)]
    summary = render_summary(report_document(rows, []))
    assert f"<details><summary>{LIST_CAP + 7} stable passes</summary>" in summary
    assert summary.count("- `t::pass_") == LIST_CAP
    assert "- … and 7 more, listed in waiver.json" in summary
    assert "left out" not in summary


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real gate run over 20,000 passing tests and one flaky one."""
    root = tmp_path_factory.mktemp("big")
    write_big_run(root, 20_000, flaky=frozenset({7}))
    assert main(gate_args(root, "--summary", str(root / "summary.md"))) == 0
    return root


@pytest.mark.slow
def test_a_20000_test_run_has_a_summary_of_a_few_kilobytes(clean_run: Path) -> None:
    summary = (clean_run / "summary.md").read_text()
    assert len(summary.encode("utf-8")) < 50_000
    assert len(summary.encode("utf-8")) < 5_000  # a few KB: the passes are a count
    check_balanced(summary)
    report = load_report(clean_run / "waiver.json")
    assert report["counts"]["stable_pass"] == 19_999
    assert "<details><summary>19999 stable passes</summary>" in summary
    assert (
        "| `unstable_assertion` | `pkg.module_0000::test_case_000007` | 2/5 ✘✔✘✔✘ | "
        "proposed, expires 2026-12-02T12:00:00Z | `no` |"
    ) in summary.splitlines()


def test_a_clean_64000_test_summary_is_a_few_kilobytes() -> None:
    rows = [(f"tests/test_m{n // 100:03}.py::test_{n:05}", "stable_pass") for n in range(64_000)]
    summary = render_summary(report_document(rows, [f"tests/t.py::skip_{n}" for n in range(900)]))
    check_balanced(summary)
    assert len(summary.encode("utf-8")) < 5_000
    assert "- … and 880 more, listed in waiver.json" in summary


def test_rows_with_the_longest_messages_stay_under_1_mib() -> None:
    """6,000 stable failures, each with a message of the most that escaping can make of
    200 characters: hidden characters spelled out, pipes and backticks escaped."""
    rows = [(f"tests/t.py::test_{n:05}", "stable_assertion_fail") for n in range(6_000)]
    document = report_document(rows)
    for row in document["rows"]:
        row["message"] = "\u200b|`" * 66 + "…"
    summary = render_summary(document)
    check_balanced(summary)
    assert len(summary.encode("utf-8")) <= LIMIT
    assert "<U+200B>\\|" in summary
    assert re.search(
        r"_\d+ rows left out to stay under 1 MiB; all of them are in waiver.json._", summary
    )


def test_an_input_error_summary_names_the_trusted_revision_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A commit of fixed bytes and dates, so that its id, and the golden file, stay the same.
    for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(name, "2026-11-30T12:00:00+00:00")
    monkeypatch.chdir(tmp_path)
    git(tmp_path, "init", "--quiet")
    (tmp_path / "fixture.lock").write_text("")
    git(tmp_path, "add", "fixture.lock")
    git(tmp_path, "commit", "--quiet", "-m", "base")
    revision = git(tmp_path, "rev-parse", "HEAD")
    (tmp_path / "reports").mkdir()
    (tmp_path / "properties.xml").write_text("<testsuite><testcase")

    code = main(gate_args(Path("."), "--trusted-ref", revision, "--summary", "summary.md"))

    report = load_report(tmp_path / "waiver.json")
    assert (code, report["error"]["source"], report["trusted_revision"]) == (
        2,
        "properties.xml",
        revision,
    )
    summary = (tmp_path / "summary.md").read_text()
    assert f"Trusted revision given: `{revision}`." in summary
    check_golden(REPO / "tests" / "golden" / "summary" / "input-error-trusted.md", summary)
