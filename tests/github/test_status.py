"""The verdict, as the `waiver` commit status or check run: its state from the gate's exit
code made stricter by the report, never looser, posted through a local stand-in of the REST
API, and never for a run that a newer run or attempt superseded."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from helpers.github_api import HEAD, Answers, environment, github_api, use_environment
from helpers.provenance_support import CALLER, PIN, gate_run
from helpers.support import KNOWN, load_report, run_gate
from waiver.cli import main
from waiver.decide.base_order import JobStart, late_base_replays
from waiver.decide.provenance_rules import Artifact
from waiver.github.commit_status import post_check_run, post_status, status_of
from waiver.github.rest import ApiFailed
from waiver.write.report.report_types import report_of


def judged(exit_code: str, report: dict[str, Any] | None) -> tuple[str, str]:
    return status_of(exit_code, None if report is None else report_of(report))


def passing(report: dict[str, Any]) -> dict[str, Any]:
    """The example's report as if every test had passed every replay."""
    rows = [{**row, "class": "stable_pass", "freeze": None} for row in report["rows"]]
    return {**report, "rows": rows, "verdict": "clean", "blocked": False}


def test_the_state_follows_the_exit_code_and_never_trusts_a_verdict_the_rows_deny(
    example: Path,
) -> None:
    code, blocked = run_gate(example)
    assert code == 1
    clean = passing(blocked)
    admitted = {
        **clean,
        "verdict": "review",
        "rows": [
            {**row, "class": "unknown_test", "unknown": "edited",
             "admitted_by": {"login": "maintainer", "review_id": 8, "commit": HEAD}}
            if row["test_id"] == KNOWN else row
            for row in clean["rows"]
        ],
    }  # fmt: skip
    lying = {**blocked, "verdict": "clean", "blocked": False}

    assert judged("1", blocked) == ("failure", "blocked: 1 test(s) block admission")
    assert judged("0", clean) == ("success", "clean: nothing blocks admission")
    assert judged("0", admitted) == (
        "success", "review: admitted by the approval of maintainer",
    )  # fmt: skip
    assert judged("0", lying) == ("failure", "blocked: 1 test(s) block admission")
    assert judged("0", None) == ("error", "the gate wrote no report")
    assert judged("", None) == ("error", "the gate did not finish (exit code none)")
    assert judged("3", blocked) == ("error", "the gate did not finish (exit code 3)")


def test_an_input_error_is_an_error_status_that_says_which_in_at_most_140_characters(
    example: Path,
) -> None:
    code, report = run_gate(example, "--properties", str(example / ("x" * 300 + ".xml")))
    assert code == 2

    state, description = judged("2", report)

    assert state == "error" and description.startswith("input error: ")
    assert len(description) == 140 and description.endswith("…")


def test_late_base_replays_fail_the_status_which_names_the_artifact_its_time_and_the_job(
    example: Path,
) -> None:
    _, report = run_gate(example)
    late = late_base_replays(
        [Artifact(8, "waiver-base-junit-run-1-shard-1", False, datetime(2026, 12, 1, 10, 5, tzinfo=UTC))],
        [JobStart("waiver / properties, then replay 1, shard 1", datetime(2026, 12, 1, 10, 4, tzinfo=UTC), False)],
    )  # fmt: skip
    assert late is not None
    untrusted = {**passing(report), "run_blockers": [f"{late} (run 42)"]}

    state, description = judged("0", untrusted)

    assert (state, description) == (
        "failure",
        "blocked: waiver-base-junit-run-1-shard-1 created 2026-12-01T10:05:00Z after "
        '"properties, then replay 1, shard 1" began 2026-12-01T10:04:00Z…',
    )


def test_the_status_is_posted_on_the_head_with_the_context_and_the_run(tmp_path: Path) -> None:
    answers = Answers()
    with github_api(answers) as api:
        said = post_status(
            environment(tmp_path, api), HEAD, ("success", "clean"), "https://x.test/runs/1"
        )
    assert said == f"status waiver is success on {HEAD}: clean"
    assert answers.writes == [("POST", f"/repos/owner/repo/statuses/{HEAD}")]
    assert answers.statuses == [
        {"state": "success", "context": "waiver", "description": "clean",
         "target_url": "https://x.test/runs/1"},
    ]  # fmt: skip


@pytest.mark.parametrize("sha", ["HEAD", "a" * 39, "A" * 40, "a" * 40 + "\n"])
def test_a_commit_that_is_not_a_full_id_is_refused_before_any_call(
    tmp_path: Path, sha: str
) -> None:
    answers = Answers()
    with github_api(answers) as api, pytest.raises(ApiFailed, match="full commit id"):
        post_status(environment(tmp_path, api), sha, ("success", "clean"), None)
    assert answers.writes == []


def test_the_command_posts_and_an_api_error_is_exit_2_with_a_message(
    example: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    run_gate(example)
    report = str(example / "waiver.json")
    answers = Answers()
    with github_api(answers) as api:
        use_environment(monkeypatch, tmp_path, api)
        monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.example")
        monkeypatch.setenv("GITHUB_RUN_ID", "42")
        capsys.readouterr()
        assert main(["status", "--sha", HEAD, "--exit-code", "1", "--report", report]) == 0
        (tmp_path / "broken.json").write_text("{")
        assert main(["status", "--sha", HEAD, "--exit-code", "0",
                     "--report", str(tmp_path / "broken.json")]) == 0  # fmt: skip
        answers.status = 502
        assert main(["status", "--sha", HEAD, "--exit-code", "1"]) == 2
    out, err = capsys.readouterr()
    assert out.startswith(f"waiver: status waiver is failure on {HEAD}: blocked: ")
    assert "waiver: status: the report is not used: " in out
    assert [s["state"] for s in answers.statuses] == ["failure", "error"]
    assert answers.statuses[0]["target_url"] == "https://github.example/owner/repo/actions/runs/42"
    assert "the GitHub API: POST /repos/owner/repo/statuses/" in err
    assert load_report(example / "waiver.json")["blocked"] is True


def test_a_check_run_is_posted_completed_with_the_app_s_token_and_an_inert_summary(
    tmp_path: Path,
) -> None:
    answers = Answers()
    hostile = "blocked: run 42 uploaded `x` [a](https://evil.test) @org/admins"
    with github_api(answers) as api:
        env = {**environment(tmp_path, api), "GITHUB_TOKEN": "ghs_app_token"}
        said = post_check_run(env, HEAD, ("failure", hostile), "https://x.test/runs/1")
        post_check_run(env, HEAD, ("error", "the gate did not finish (exit code 3)"), None)
    assert said == f"check run waiver is failure on {HEAD}: {hostile}"
    assert answers.writes == [("POST", "/repos/owner/repo/check-runs")] * 2
    first, second = answers.check_runs
    assert first == {
        "name": "waiver", "head_sha": HEAD, "status": "completed", "conclusion": "failure",
        "output": {"title": hostile, "summary": f"**failure**: ``{hostile}``"},
        "details_url": "https://x.test/runs/1", "app": "github-actions",
    }  # fmt: skip
    assert (second["conclusion"], "details_url" in second) == ("failure", False)


def provenance_file(tmp_path: Path, run: dict[str, Any] | None, **more: Any) -> Path:
    path = tmp_path / "provenance.json"
    path.write_text(json.dumps({
        "caller": CALLER, "report_workflow": None, "run": run, "error": None,
        "waiver": {"repository": "waiver/waiver", "commit": PIN}, **more,
    }))  # fmt: skip
    return path


@pytest.mark.parametrize(
    ("runs", "posted"),
    [
        pytest.param([gate_run(42)], ["failure"], id="still the newest"),
        pytest.param([gate_run(42), gate_run(43, status="queued")], [], id="a newer run began"),
        pytest.param([gate_run(42, run_attempt=2)], [], id="a newer attempt began"),
        pytest.param([gate_run(42), gate_run(43, head_branch="b2")], ["failure"],
                     id="a newer run of another branch"),
    ],
)  # fmt: skip
def test_nothing_is_posted_for_a_run_a_newer_one_superseded_just_before(
    example: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    runs: list[dict[str, Any]],
    posted: list[str],
) -> None:
    run_gate(example)
    judged = {"id": 42, "path": CALLER, "head_sha": HEAD, "head_branch": "fix",
              "event": "pull_request", "started_by": "pull_request", "attempt": 1,
              "pull_request": 7, "referenced_workflows": []}  # fmt: skip
    provenance = provenance_file(tmp_path, judged)
    answers = Answers(runs=runs, head=HEAD)
    with github_api(answers) as api:
        use_environment(monkeypatch, tmp_path, api)
        code = main(["status", "--sha", HEAD, "--exit-code", "1", "--check-run",
                     "--report", str(example / "waiver.json"), "--provenance", str(provenance)])  # fmt: skip
    assert code == 0
    assert [check["conclusion"] for check in answers.check_runs] == posted
    assert answers.statuses == []


def test_a_superseded_or_missing_provenance_decides_without_the_api(
    example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    superseded = provenance_file(tmp_path, None, superseded="run 45 is newer")
    answers = Answers()
    with github_api(answers) as api:
        use_environment(monkeypatch, tmp_path, api)
        assert main(["status", "--sha", HEAD, "--exit-code", "1",
                     "--provenance", str(superseded)]) == 0  # fmt: skip
        assert answers.statuses == []
        assert main(["status", "--sha", HEAD, "--exit-code", "1",
                     "--provenance", str(tmp_path / "none.json")]) == 0  # fmt: skip
    assert [status["state"] for status in answers.statuses] == ["error"]
    assert answers.asked == []
