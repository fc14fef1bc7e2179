"""Output that says what next: each row's outcomes in replay order, the hint that state
carried between replays, the rows of one parametrized function on one line, labelled
terminal columns, and the failed property's own message. Real `classify` and gate runs,
rendered to the terminal, the summary and the comment."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers.change_support import (
    NEW,
    NEW_TEST,
    change_tests,
    commit_base,
    commit_change,
    fix_slugify,
    replay_and_gate,
)
from helpers.support import case_json, gate_args, git, load_report, run_gate
from waiver.cli import main
from waiver.github.comment_body import render_comment
from waiver.write.report.report_types import report_of
from waiver.write.summary.summary import RESERVE, render_summary
from waiver.write.words.terminal import MAX_LINES, render_terminal

PARAMS = [f"tests/test_p.py::test_f[{n}-x]" for n in range(12)]
LONE = "tests/test_p.py::test_g[a]"
STATE = "tests/test_s.py::test_state"
CARRIED = (
    "passed the first replay and failed every one after: state carried from one replay to the "
    "next (a database, a cache, a file) may be the cause"
)


@pytest.fixture
def classified(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, Path]:
    """Twelve failing ids of one parametrized function, a failing id of another with one
    parameter, and a test that passed the first replay and failed every one after."""
    cases = [case_json(test_id, [False] * 5) for test_id in [*PARAMS, LONE]]
    cases.append(case_json(STATE, [True, False, False, False, False]))
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    out = tmp_path / "waiver.json"
    assert main(["classify", "--cases", str(tmp_path / "cases.json"), "--out", str(out)]) == 1
    return capsys.readouterr().out, out


def test_the_terminal_labels_its_columns_groups_parameters_and_shows_the_order(
    classified: tuple[str, Path],
) -> None:
    terminal, out = classified
    assert terminal == (
        f"waiver: blocked; report written to {out}\n"
        "blocking tests (13):\n"
        "  class                  replays passed  test id\n"
        "  stable_assertion_fail  0/5 ✘✘✘✘✘       tests/test_p.py::test_f[…] (12 ids)\n"
        f"  stable_assertion_fail  0/5 ✘✘✘✘✘       {LONE}\n"
        "unstable, not a pass (1):\n"
        "  replays passed  test id\n"
        f"  1/5 ✔✘✘✘✘       {STATE}  freeze proposed\n"
        f"      {CARRIED}\n"
    )


def test_waiver_json_keeps_every_id_and_its_outcomes(classified: tuple[str, Path]) -> None:
    report = load_report(classified[1])
    rows = {row["test_id"]: row for row in report["rows"]}
    assert sorted(rows) == sorted([*PARAMS, LONE, STATE])
    assert rows[STATE]["outcomes"] == [True, False, False, False, False]
    assert all(rows[test_id]["outcomes"] == [False] * 5 for test_id in PARAMS)


def test_the_summary_and_the_comment_group_parameters_and_name_carried_state(
    classified: tuple[str, Path],
) -> None:
    report = report_of(load_report(classified[1]))
    summary = render_summary(report).splitlines()
    assert summary[summary.index("### Not a pass (14)") + 2 :][:5] == [
        "| class | test id | replays passed, in order | freeze | what next |",
        "|---|---|---|---|---|",
        "| `stable_assertion_fail` ⛔ | `tests/test_p.py::test_f[…]` (12 ids) | 0/5 ✘✘✘✘✘ | — "
        "| — |",
        f"| `stable_assertion_fail` ⛔ | `{LONE}` | 0/5 ✘✘✘✘✘ | — | — |",
        f"| `unstable_assertion` | `{STATE}` | 1/5 ✔✘✘✘✘ | proposed, expires "
        f"{report['rows'][-1]['freeze']['expires_at']} | {CARRIED} |",  # type: ignore[index]
    ]
    comment = render_comment(report, None).splitlines()
    assert comment[comment.index("### What blocks (13)") + 2 :][:4] == [
        "| class | test id | replays passed, in order | first failure |",
        "|---|---|---|---|",
        "| `stable_assertion_fail` | `tests/test_p.py::test_f[…]` (12 ids) | `0/5 ✘✘✘✘✘` | — |",
        f"| `stable_assertion_fail` | `{LONE}` | `0/5 ✘✘✘✘✘` | — |",
    ]


def test_rows_of_one_function_that_differ_are_not_grouped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [case_json(PARAMS[0], [False] * 5), case_json(PARAMS[1], [False] * 5)]
    cases.append(case_json(PARAMS[2], [False] * 5, known_test=False))
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    out = tmp_path / "waiver.json"
    assert main(["classify", "--cases", str(tmp_path / "cases.json"), "--out", str(out)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[2:] == [
        "  class                  replays passed  test id",
        "  stable_assertion_fail  0/5 ✘✘✘✘✘       tests/test_p.py::test_f[…] (2 ids)",
        f"  unknown_test (new)     0/5 ✘✘✘✘✘       {PARAMS[2]}",
        "      no approval admits it until it passes every replay",
    ]


def test_a_failed_property_shows_its_message_everywhere(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    properties = example / "properties.xml"
    properties.write_text(
        properties.read_text().replace(
            "</testsuite>",
            '<testcase classname="tests.properties.test_p" name="test_never">'
            '<failure message="assert 100 == 2000">long trace</failure></testcase></testsuite>',
            1,
        )
    )
    code, report = run_gate(example)
    assert code == 1
    never = "tests.properties.test_p::test_never"
    assert report["properties"]["messages"] == {never: "assert 100 == 2000"}
    assert f"  {never}: assert 100 == 2000\n" in capsys.readouterr().out
    summary = render_summary(report_of(report))
    assert f"| `{never}` | `assert 100 == 2000` |" in summary.splitlines()
    comment = render_comment(report_of(report), None).splitlines()
    assert comment[comment.index("### Failed properties (1): no test result can be trusted") :][
        2:5
    ] == ["| property | first failure |", "|---|---|", f"| `{never}` | `assert 100 == 2000` |"]


def _add_unlisted_test(work: Path) -> None:
    fix_slugify(work)
    test = work / "tests/assertions/test_slug.py"
    test.write_text(test.read_text() + NEW_TEST)


@pytest.mark.slow
def test_a_new_test_row_says_whether_the_registry_must_list_it_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)
    commit_change(work, _add_unlisted_test)
    replayed, gated, report = replay_and_gate(work, base, tests_from=True, replays=5)
    assert (replayed, gated) == (0, 1)
    assert report["registry"]["change_lists"] == []
    approval = "an approval of the head commit by a writer who wrote none of it admits it"
    unlisted = f"add it to known-tests.txt in this change, then {approval}"
    out = capsys.readouterr().out
    assert f"  unknown_test (new)  5/5 ✔✔✔✔✔       {NEW}\n      {unlisted}\n" in out
    assert f"| {unlisted.replace('known-tests.txt', '`known-tests.txt`')} |" in render_summary(
        report_of(report)
    )
    # Listed by the change's own registry, the same row needs only the approval.
    registry = work / "known-tests.txt"
    registry.write_text(registry.read_text() + NEW + "\n")
    git(work, "commit", "--quiet", "-m", "list it", "known-tests.txt")
    properties = str(work / "reports/properties.xml")
    gated = main(
        gate_args(work, "--trusted-ref", base, "--properties", properties, *change_tests(work))
    )
    assert gated == 1
    report = load_report(work / "waiver.json")
    assert report["registry"]["change_lists"] == [NEW]
    assert f"  unknown_test (new)  5/5 ✔✔✔✔✔       {NEW}\n      {approval}\n" in (
        capsys.readouterr().out
    )
    comment = render_comment(report_of(report), None)
    assert f"| `{NEW}` | `new` | `5/5 ✔✔✔✔✔` | {approval} |" in comment.splitlines()


def _ids_shown(lines: list[str], table: str) -> int:
    """The ids the lines of a Markdown table stand for: a line of `(12 ids)` for twelve."""
    start = lines.index(table) + 4
    end = next((n for n in range(start, len(lines)) if not lines[n].startswith("| ")), len(lines))
    found = [re.search(r"\((\d+) ids\)", line) for line in lines[start:end]]
    return sum(int(match[1]) if match else 1 for match in found)


def test_what_a_cut_summary_leaves_out_is_counted_in_ids(classified: tuple[str, Path]) -> None:
    report = report_of(load_report(classified[1]))
    full = render_summary(report)
    assert "left out" not in full
    table = "### Not a pass (14)"
    cut_at = len(full[: full.index(table)].encode("utf-8"))
    seen = set()
    # From no room for the table to room for all but its last line.
    for limit in range(cut_at + RESERVE - 200, len(full.encode("utf-8")) + RESERVE - 40, 20):
        lines = render_summary(report, limit).splitlines()
        left = re.fullmatch(r"_(\d+) rows left out to stay under 1 MiB; .*_", lines[-1])
        assert left is not None, limit
        shown = _ids_shown(lines, table) if table in lines else 0
        assert int(left[1]) + shown == 14, limit
        seen.add(shown)
    # Cut before the table, past the twelve ids of its first line, and past the second.
    assert {0, 12, 13} <= seen


def test_the_terminal_counts_the_edited_tests_it_does_not_show(
    classified: tuple[str, Path],
) -> None:
    document = load_report(classified[1])
    # Twenty-five functions of two ids each, and one more id alone: 26 lines, 20 shown.
    edited = [
        {"test_id": f"tests/test_e.py::test_{n:02}[{p}]", "changes": ["its body"], "findings": []}
        for n in range(25)
        for p in "ab"
    ]
    edited.append({"test_id": "tests/test_e.py::test_z", "changes": ["its body"], "findings": []})
    document["registry"] = {"used": True, "path": "known-tests.txt", "edited": edited}
    lines = render_terminal(document).splitlines()
    shown = [line for line in lines if line.startswith("  tests/test_e.py::")]
    assert len(shown) == MAX_LINES
    assert shown[0] == "  tests/test_e.py::test_00[…] (2 ids): its body (edited)"
    assert lines[lines.index(shown[-1]) + 1] == "  … and 11 more edited tests in waiver.json"
