"""The pull request's one waiver comment: rendered from a hostile report, posted or edited
in place through a local stand-in of the REST API."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest

from helpers.github_api import (
    HEAD,
    Answers,
    comment,
    environment,
    fork_answers,
    github_api,
    use_environment,
)
from helpers.support import ROUND_TRIP, run_gate
from waiver.cli import main
from waiver.github.comment_body import LIMIT, MARKER, render_comment
from waiver.github.commit_status import status_of
from waiver.github.pulls import post_comment
from waiver.github.rest import ApiFailed
from waiver.write.report.report_types import report_of

HOSTILE = "@org/admins <img src=x> </details> ``` |"
CODE_SPAN = re.compile(r"(`+).*?\1")


def outside_code(text: str) -> str:
    """The comment's text with every code span taken out: what GitHub renders as Markdown."""
    return "\n".join(CODE_SPAN.sub("", line) for line in text.splitlines()[1:])


def blocked_report(example: Path) -> dict[str, Any]:
    _, report = run_gate(example)
    return report


def test_thousands_of_hostile_rows_give_one_bounded_comment_with_nothing_live(
    example: Path,
) -> None:
    report = blocked_report(example)
    template = next(row for row in report["rows"] if row["class"] == "stable_assertion_fail")
    report["rows"] = [
        {**copy.deepcopy(template), "test_id": f"{HOSTILE} {n:04d}"} for n in range(3000)
    ]
    text = render_comment(report_of(report), "https://github.example/o/r/actions/runs/1")
    assert text.startswith(MARKER + "\n## ⛔ waiver: blocked\n")
    assert len(text) < 65_536 and len(text.encode()) <= LIMIT + 200
    left = re.search(r"_(\d+) rows left out to stay under GitHub's limit", text)
    assert left is not None and 0 < int(left[1]) < 3000
    rendered = outside_code(text)
    assert "@org" not in rendered and "<img" not in rendered and "</details>" not in rendered
    assert (
        "[The run, its summary and waiver.json](https://github.example/o/r/actions/runs/1)" in text
    )


def test_a_clean_verdict_beside_a_closed_row_is_shown_as_blocked(example: Path) -> None:
    report = blocked_report(example)
    report["verdict"], report["blocked"] = "clean", False
    text = render_comment(report_of(report), None)
    assert "## ⛔ waiver: blocked" in text
    assert "The report says `clean`, but it holds what blocks" in text


def test_a_freeze_proposal_comes_with_the_command_that_accepts_it(example: Path) -> None:
    text = render_comment(report_of(blocked_report(example)), None)
    assert "Freeze proposals (1)" in text
    assert (
        "waiver freeze accept --report waiver.json --store freezes.json --owner LOGIN "
        f"--reason TEXT --tracking URL {ROUND_TRIP}"
    ) in text


def test_a_fork_run_posts_one_comment_and_the_next_run_edits_it(tmp_path: Path) -> None:
    answers = fork_answers()
    with github_api(answers) as api:
        env = environment(tmp_path, api)
        assert post_comment(env, MARKER + "\nfirst\n") == "commented on pull request #7"
        assert post_comment(env, MARKER + "\nsecond\n") == "edited the comment on pull request #7"
        assert post_comment(env, MARKER + "\nsecond\n") == (
            "the comment on pull request #7 is unchanged"
        )
    assert answers.writes == [
        ("POST", "/repos/owner/repo/issues/7/comments"),
        ("PATCH", "/repos/owner/repo/issues/comments/1000"),
    ]
    assert [c["body"] for c in answers.comments] == [MARKER + "\nsecond\n"]


def test_a_humans_comment_with_the_marker_is_left_alone_and_pages_are_followed(
    tmp_path: Path,
) -> None:
    others = [comment(n, "someone", f"comment {n}") for n in range(1, 5)]
    human = comment(5, "mallory", MARKER + "\nforged\n")
    ours = comment(6, "github-actions[bot]", MARKER + "\nold\n")
    answers = fork_answers([*others, human, ours])
    with github_api(answers) as api:
        said = post_comment(environment(tmp_path, api), MARKER + "\nnew\n")
    assert said == "edited the comment on pull request #7"
    assert answers.writes == [("PATCH", "/repos/owner/repo/issues/comments/6")]
    assert human["body"] == MARKER + "\nforged\n"


def test_a_head_that_moved_on_posts_nothing(tmp_path: Path) -> None:
    answers = fork_answers()
    answers.head = "b" * 40
    with github_api(answers) as api:
        said = post_comment(environment(tmp_path, api), MARKER + "\ntext\n")
    assert said == f"pull request #7 has moved on to {'b' * 40}; nothing posted for {HEAD}"
    assert answers.writes == []


@pytest.mark.parametrize("status", [403, 500])
def test_an_api_error_is_a_clear_failure(tmp_path: Path, status: int) -> None:
    with github_api(Answers(status=status)) as api, pytest.raises(ApiFailed) as raised:
        post_comment(environment(tmp_path, api), MARKER)
    assert f"answered HTTP {status}" in str(raised.value)


def test_the_command_posts_the_report_and_fails_clearly_on_an_api_error(
    example: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    run_gate(example)
    answers = fork_answers()
    with github_api(answers) as api:
        use_environment(monkeypatch, tmp_path, api)
        capsys.readouterr()
        assert main(["comment", "--report", str(example / "waiver.json")]) == 0
        assert capsys.readouterr().out == "waiver: comment: commented on pull request #7\n"
        answers.status = 502
        assert main(["comment", "--report", str(example / "waiver.json")]) == 2
    assert "the GitHub API: GET /repos/owner/repo/commits" in capsys.readouterr().err
    assert answers.comments[0]["body"].startswith(MARKER + "\n## ⛔ waiver: blocked")


def test_an_instability_the_change_brought_is_shown_as_what_blocks(example: Path) -> None:
    # Under introduced_instability: block, an unstable row the base did not show flipping
    # blocks: the comment and the status count it, as the summary and the annotations do.
    report = blocked_report(example)
    [unstable] = [row for row in report["rows"] if row["test_id"] == ROUND_TRIP]
    unstable["base"] = {"replay_pass": 5, "replay_total": 5, "meaning": "introduced",
                        "blocks": True}  # fmt: skip
    report["rows"] = [unstable]
    text = render_comment(report_of(report), None)
    assert "What blocks (1)" in text
    [line] = [
        line
        for line in text.splitlines()
        if line.startswith(f"| `unstable_assertion` | `{ROUND_TRIP}`")
    ]
    assert "| 5/5, introduced by this change |" in line
    assert status_of("1", report_of(report)) == ("failure", "blocked: 1 test(s) block admission")
