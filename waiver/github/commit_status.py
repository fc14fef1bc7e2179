"""The verdict on the pull request's head commit, the check a branch rule requires: the
commit status `waiver`, or the check run `waiver` posted with a GitHub App's token.

A run that `pull_request_review` starts may not update the merge box, and a
`workflow_run` run adds no check of its own; a commit status or a check run does both, for
forks too when a `workflow_run` job posts it. Its state comes from the gate's exit code in
the same job, made stricter, never looser, by the report: `success` only for exit 0
beside a report that blocks nothing, `failure` for a blocked gate, `error` for an input
error or a gate that did not finish (a check run's conclusion is then `failure`, its title
saying why).

A commit status, and a check run posted with the workflow's own token, both come from the
GitHub Actions app, as anything a pull request's own workflow posts does. A check run
posted with the token of the team's own app, minted in a job only the default branch may
run, is the one verdict no pull request can post: require it from that app.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from waiver.github.comment_body import shown_verdict
from waiver.github.rest import FULL_SHA, Api, ApiFailed, Opener, connect, urlopen
from waiver.write.report.report_types import ProvenanceJson, ReportJson, RowJson
from waiver.write.words.escape import md_code
from waiver.write.words.why import row_blocks

CONTEXT = "waiver"
MAX_DESCRIPTION = 140  # GitHub cuts a status description there
# A check run has no `error` conclusion: a gate that did not finish fails the check.
CONCLUSIONS = {"success": "success", "failure": "failure", "error": "failure"}


def _cut(text: str) -> str:
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1] + "…"


def _admitted_by(rows: Sequence[RowJson], provenance: ProvenanceJson | None) -> list[str]:
    logins = {row["admitted_by"]["login"] for row in rows if "admitted_by" in row}
    if provenance is not None and provenance["admitted_by"] is not None:
        logins.add(provenance["admitted_by"]["login"])
    return sorted(logins)


def status_of(exit_code: str, report: ReportJson | None) -> tuple[str, str]:
    """The state and the one-line description of the status."""
    if exit_code not in ("0", "1"):
        error = report["error"] if report else None
        if exit_code == "2" and error:
            return "error", _cut(f"input error: {error['source']}: {error['problem']}")
        return "error", f"the gate did not finish (exit code {exit_code or 'none'})"
    if report is None:
        return "error", "the gate wrote no report"
    rows = list(report["rows"])
    verdict, _ = shown_verdict(report, rows)
    if exit_code == "1" or verdict == "blocked":
        # What blocks the whole run says more than a count: it names the file and why.
        for reason in report["run_blockers"]:
            return "failure", _cut(f"blocked: {reason}")
        blocking = sum(1 for row in rows if row_blocks(row))
        return "failure", _cut(f"blocked: {blocking} test(s) block admission")
    reviewers = _admitted_by(rows, report.get("provenance"))
    if reviewers:
        return "success", _cut(f"{verdict}: admitted by the approval of {', '.join(reviewers)}")
    return "success", _cut(f"{verdict}: nothing blocks admission")


def _on_commit(env: Mapping[str, str], sha: str, what: str, opener: Opener) -> tuple[Api, str]:
    """The API and repository to post `what` on commit `sha` with, which must be whole."""
    if not FULL_SHA.match(sha):
        raise ApiFailed(f"the commit of the {what} must be a full commit id")
    return connect(env, opener)


def post_status(
    env: Mapping[str, str],
    sha: str,
    state_and_description: tuple[str, str],
    target_url: str | None,
    opener: Opener = urlopen,
) -> str:
    """Post the status on `sha`; what was done, in a line."""
    api, repository = _on_commit(env, sha, "status", opener)
    state, description = state_and_description
    body = {"state": state, "context": CONTEXT, "description": description}
    if target_url is not None:
        body["target_url"] = target_url
    api.send("POST", f"{api.base}/repos/{repository}/statuses/{sha}", body)
    return f"status {CONTEXT} is {state} on {sha}: {description}"


def post_check_run(
    env: Mapping[str, str],
    sha: str,
    state_and_description: tuple[str, str],
    target_url: str | None,
    opener: Opener = urlopen,
) -> str:
    """Post the check run `waiver` on `sha`, completed, with the app's token that `env`
    holds; what was done, in a line."""
    api, repository = _on_commit(env, sha, "check run", opener)
    state, description = state_and_description
    conclusion = CONCLUSIONS[state]
    # Markdown: the description may carry untrusted names, so it is an inert code span.
    summary = f"**{state}**: {md_code(description, MAX_DESCRIPTION)}"
    body: dict[str, object] = {
        "name": CONTEXT,
        "head_sha": sha,
        "status": "completed",
        "conclusion": conclusion,
        "output": {"title": description, "summary": summary},
    }
    if target_url is not None:
        body["details_url"] = target_url
    api.send("POST", f"{api.base}/repos/{repository}/check-runs", body)
    return f"check run {CONTEXT} is {conclusion} on {sha}: {description}"
