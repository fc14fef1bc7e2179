"""Human review the gate can see: which approvals count, read from a local stand-in of the
REST API, and what a counted approval admits in a real gate run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.change_support import (
    NEW,
    NEW_TEST,
    add_a_test,
    approved,
    commit_base,
    commit_change,
    replay_and_gate,
)
from helpers.github_api import Answers, commit, github_api, review
from helpers.support import (
    EMPTY,
    KNOWN,
    REPO,
    check_golden,
    git,
    report_document,
)
from waiver.decide.approval import Refusal, count_approvals
from waiver.github.rest import ApiFailed
from waiver.github.reviews import fetch_reviews
from waiver.model import Admission
from waiver.read.evidence.review_data import Unusable, review_data
from waiver.write.summary.summary import render_summary
from waiver.write.words.terminal import render_terminal

HEAD = "a" * 40
OLD = "b" * 40


def event(tmp_path: Path, head: str = HEAD) -> Path:
    path = tmp_path / "event.json"
    pull = {"number": 7, "user": {"login": "agent"}, "head": {"sha": head}}
    path.write_text(json.dumps({"action": "submitted", "pull_request": pull}))
    return path


def environment(tmp_path: Path, api: str, head: str = HEAD) -> dict[str, str]:
    return {
        "GITHUB_API_URL": api,
        "GITHUB_TOKEN": "secret-token",
        "GITHUB_EVENT_PATH": str(event(tmp_path, head)),
        "GITHUB_REPOSITORY": "owner/repo",
    }


def judged(answers: Answers, tmp_path: Path, approvers: list[str] | None = None) -> Any:
    with github_api(answers) as api:
        document = fetch_reviews(environment(tmp_path, api))
    return count_approvals(review_data(document), approvers)


def test_each_kind_of_approval_is_counted_or_refused_as_the_contract_says(tmp_path: Path) -> None:
    answers = Answers(
        reviews=[
            review(1, "maintainer", "APPROVED", HEAD),
            review(2, "stale", "APPROVED", OLD),  # a push after the approval voids it
            review(3, "agent", "APPROVED", HEAD),  # the pull request's author
            review(4, "reader", "APPROVED", HEAD),  # read permission only
            review(5, "helper[bot]", "APPROVED", HEAD, bot=True),
            review(6, "withdrawn", "APPROVED", HEAD),
            review(7, "withdrawn", "CHANGES_REQUESTED", HEAD),
            review(8, "dismissed", "APPROVED", HEAD),
            review(9, "dismissed", "DISMISSED", HEAD),
            review(10, "coauthor", "APPROVED", HEAD),  # committed to the pull request
            review(11, "Commenter", "APPROVED", HEAD),
            review(12, "commenter", "COMMENTED", HEAD),  # a later comment withdraws nothing
            review(13, "outsider", "APPROVED", HEAD),  # no collaborator at all: 404
        ],
        commits=[commit("agent", "web-flow"), commit(None, "coauthor"), commit("agent", None)],
        permissions={
            "maintainer": "admin",
            "stale": "write",
            "agent": "write",
            "reader": "read",
            "helper[bot]": "write",
            "coauthor": "maintain",
            "Commenter": "write",
        },
    )
    counted, refused = judged(answers, tmp_path)
    assert counted == (Admission("maintainer", 1, HEAD), Admission("Commenter", 11, HEAD))
    assert refused == (
        Refusal("stale", f"approved commit {OLD}, not the head {HEAD}"),
        Refusal("agent", "the pull request's author"),
        Refusal("reader", "has read permission, not write, maintain or admin"),
        Refusal("helper[bot]", "a bot"),
        Refusal("withdrawn", "their latest review requests changes"),
        Refusal("dismissed", "their approval was dismissed"),
        Refusal("coauthor", "an author or committer of a commit of the pull request"),
        Refusal("outsider", "has none permission, not write, maintain or admin"),
    )
    # Every page was read, each with the token, and no permission but the approvers'.
    paths = [path for path, _ in answers.asked]
    assert paths.count("/repos/owner/repo/pulls/7/reviews") == 7
    assert {token for _, token in answers.asked} == {"Bearer secret-token"}
    assert "/repos/owner/repo/collaborators/withdrawn/permission" not in paths


def test_the_policy_narrows_who_counts(tmp_path: Path) -> None:
    answers = Answers(
        reviews=[review(1, "maintainer", "APPROVED", HEAD), review(2, "owner", "APPROVED", HEAD)],
        permissions={"maintainer": "write", "owner": "admin"},
    )
    counted, refused = judged(answers, tmp_path, approvers=["Owner"])
    assert counted == (Admission("owner", 2, HEAD),)
    assert refused == (Refusal("maintainer", "not one of the policy's approvers"),)


@pytest.mark.parametrize(
    ("answers", "problem"),
    [
        (Answers(status=500), "GET /repos/owner/repo/pulls/7/reviews answered HTTP 500"),
        (Answers(status=401), "GET /repos/owner/repo/pulls/7/reviews answered HTTP 401"),
        (Answers(raw_body=b"<html>"), "answered something that is not JSON"),
        (Answers(raw_body=b'{"not": "a list"}'), "answered something that is not a list"),
        (
            Answers(
                reviews=[review(n, "x", "COMMENTED", HEAD) for n in range(5)], next_host="evil:1"
            ),
            "a URL points away from GITHUB_API_URL",
        ),
    ],
)
def test_an_api_that_fails_is_named_and_admits_nothing(
    tmp_path: Path, answers: Answers, problem: str
) -> None:
    with github_api(answers) as api, pytest.raises(ApiFailed) as raised:
        fetch_reviews(environment(tmp_path, api))
    assert problem in str(raised.value)
    assert "secret-token" not in str(raised.value)


@pytest.mark.parametrize("missing", ["GITHUB_TOKEN", "GITHUB_EVENT_PATH"])
def test_a_run_without_a_token_or_an_event_reads_no_reviews(tmp_path: Path, missing: str) -> None:
    env = environment(tmp_path, "http://127.0.0.1:9")
    del env[missing]
    with pytest.raises(ApiFailed, match=f"{missing} is not set"):
        fetch_reviews(env)


@pytest.mark.parametrize(
    "document",
    [
        [],
        {"error": "boom"},
        {"reviews": [], "commits": [], "permissions": {}},
        {
            "pull_request": {"number": "7", "user": {"login": "a"}, "head": {"sha": HEAD}},
            "reviews": [],
            "commits": [],
            "permissions": {},
        },
    ],
)
def test_a_document_of_the_wrong_shape_is_unusable(document: object) -> None:
    with pytest.raises(Unusable):
        review_data(document)


# --- the gate ---------------------------------------------------------------------------


@pytest.mark.slow
def test_an_approval_of_the_head_admits_a_new_and_an_edited_test_and_no_more(
    tmp_path: Path,
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)
    commit_change(work, add_a_test)
    replayed, gated, report = replay_and_gate(work, base, tests_from=True, replays=5)
    assert (replayed, gated) == (0, 1)
    assert {row["test_id"]: row["unknown"] for row in report["rows"] if row["unknown"]} == {
        NEW: "new",
        KNOWN: "edited",
    }
    head = git(work, "rev-parse", "HEAD")
    gated, report = approved(work, base, head)
    assert (gated, report["verdict"]) == (0, "review")
    admitted = {row["test_id"]: row.get("admitted_by") for row in report["rows"]}
    by = {"login": "maintainer", "review_id": 1, "commit": head}
    assert admitted[NEW] == admitted[KNOWN] == by
    assert admitted[EMPTY] is None
    assert {row["class"] for row in report["rows"] if row["test_id"] in (NEW, KNOWN)} == {
        "unknown_test"
    }
    assert report["approvals"]["counted"] == [by]
    # An approval of another commit admits nothing, and says why.
    gated, report = approved(work, base, "c" * 40)
    assert (gated, report["verdict"]) == (1, "blocked")
    assert (
        report["approvals"]["problem"]
        == f"the reviews are of head {'c' * 40}; the gate checks {head}"
    )
    # GitHub checks out refs/pull/N/merge, the head merged into the base: its approval counts.
    git(work, "checkout", "--quiet", "--detach", base)
    git(work, "merge", "--quiet", "--no-ff", "-m", "Merge the head into the base", head)
    merge = git(work, "rev-parse", "HEAD")
    gated, report = approved(work, base, head)
    assert (gated, report["verdict"], report["approvals"]["problem"]) == (0, "review", None)
    # ...but an approval of the base, the merge's other parent, does not.
    gated, report = approved(work, base, base)
    assert (gated, report["approvals"]["problem"]) == (
        1, f"the reviews are of head {base}; the gate checks {merge}",
    )  # fmt: skip


@pytest.mark.slow
def test_a_closed_class_is_never_admitted(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    base = commit_base(work)

    def add_without_the_fix(work: Path) -> None:
        test = work / "tests/assertions/test_slug.py"
        test.write_text(test.read_text() + NEW_TEST)
        registry = work / "known-tests.txt"
        registry.write_text(registry.read_text() + NEW + "\n")

    commit_change(work, add_without_the_fix)
    replay_and_gate(work, base, tests_from=True, replays=5)
    head = git(work, "rev-parse", "HEAD")
    gated, report = approved(work, base, head)
    assert (gated, report["verdict"]) == (1, "blocked")
    row = next(row for row in report["rows"] if row["test_id"] == EMPTY)
    assert row["class"] == "stable_assertion_fail" and "admitted_by" not in row
    assert (
        next(r for r in report["rows"] if r["test_id"] == NEW)["admitted_by"]["login"]
        == "maintainer"
    )


def review_report() -> dict[str, Any]:
    """A report in which an approval admitted an edited and a new test, and one reviewer's
    approval did not count; untrusted text in every field the renderers show."""
    document = report_document(
        [(KNOWN, "unknown_test"), (NEW, "unknown_test"), (EMPTY, "stable_pass")]
    )
    by = {"login": "maintainer", "review_id": 11, "commit": HEAD}
    for row, unknown in zip(document["rows"][:2], ["edited", "new"], strict=True):
        row.update(unknown=unknown, replay_pass=5, admitted_by=by)
    document["verdict"], document["blocked"] = "review", False
    document["registry"] = {
        "used": True,
        "path": "known-tests.txt",
        "edited": [
            {
                "test_id": KNOWN,
                "changes": ["its body", "`check` in tests/h.py | @x"],
                "findings": [{"kind": "comparison_loosened", "detail": "`==` became `in` | @x"}],
            }
        ],
    }
    document["approvals"] = {
        "source": "github",
        "pull_request": 7,
        "head": HEAD,
        "counted": [by],
        "refused": [{"login": "agent", "reason": "the pull request's author"}],
        "problem": None,
    }
    return document


def test_the_summary_names_the_reviewer_what_they_admitted_and_what_was_edited() -> None:
    summary = render_summary(review_report())
    check_golden(REPO / "tests" / "golden" / "summary" / "approved.md", summary)
    assert "Blocked by" not in summary


def test_the_terminal_names_the_edits_and_the_reviews() -> None:
    document = review_report()
    document["approvals"]["problem"] = "no approval is counted: GITHUB_TOKEN is not set"
    document["blocked"] = True  # it explains a blocked run
    lines = render_terminal(document).splitlines()
    assert lines[-4:] == [
        "tests this change edits (1), no evidence about it:",
        f"  {KNOWN}: its body; `check` in tests/h.py | @x"
        " (comparison loosened: `==` became `in` | @x)",
        "approvals: no approval is counted: GITHUB_TOKEN is not set",
        "  not counted: agent: the pull request's author",
    ]
