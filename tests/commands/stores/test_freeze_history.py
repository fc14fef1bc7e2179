"""`waiver freeze history` and `freeze accept` under `max_renewals`, on the example gated
for real, its freeze store committed in a real git repository."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.support import NOW, ROUND_TRIP, git, run_gate
from waiver.cli import main

EARLIER = [("2026-11-20T00:00:00+00:00", "2026-11-21T00:00:00+00:00"),
           ("2026-11-25T00:00:00+00:00", "2026-11-26T12:00:00+00:00")]  # fmt: skip


def stored(test_id: str, issued_at: str, expires_at: str, **more: str) -> dict[str, Any]:
    return {"test_id": test_id, "class": "unstable_assertion", "fixture_hash": "0" * 64,
            "replay_pass": 3, "replay_total": 5, "counts_as_pass": False,
            "scope": "single_test_id", "issued_at": issued_at, "expires_at": expires_at,
            **more}  # fmt: skip


@pytest.fixture
def gated(example: Path) -> Path:
    """The example gated (its report proposes freezing ROUND_TRIP) and a repository whose
    store froze ROUND_TRIP twice before: once by alice, once owned by carol."""
    run_gate(example)
    git(example, "init", "--quiet")
    git(example, "add", "tests", "fixtures")
    git(example, "commit", "--quiet", "-m", "the project")
    for author, (issued, expires), more in zip(
        ("alice", "bob"), EARLIER, ({}, {"owner": "carol"}), strict=True
    ):
        (example / "freezes.json").write_text(json.dumps([stored(ROUND_TRIP, issued, expires,
                                                                 **more)]))  # fmt: skip
        git(example, "add", "freezes.json")
        git(example, "-c", f"user.name={author}", "commit", "--quiet", "-m", "freeze")
    return example


def policy(work: Path, max_renewals: int) -> str:
    (work / "waiver.yml").write_text(f"max_renewals: {max_renewals}\n")
    return str(work / "waiver.yml")


def accept(work: Path, *extra: str) -> int:
    return main(["freeze", "accept", "--report", str(work / "waiver.json"),
                 "--store", str(work / "freezes.json"), "--now", NOW, *extra, ROUND_TRIP])  # fmt: skip


def test_history_counts_each_tests_freezes_and_says_who_made_them(
    gated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = policy(gated, 1)
    code = main(["freeze", "history", "--store", str(gated / "freezes.json"),
                 "--config", config, "--now", NOW])  # fmt: skip

    assert code == 0
    assert capsys.readouterr().out == (
        f"waiver: {ROUND_TRIP}: frozen 2 times (1 renewal), 60 h in all, by alice, carol; "
        "freeze accept refuses another (max_renewals 1)\n"
    )


def test_accept_past_max_renewals_is_refused_and_says_to_fix_or_delete_the_test(
    gated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (gated / "freezes.json").read_bytes()

    assert accept(gated, "--config", policy(gated, 1)) == 2

    assert capsys.readouterr().err == (
        f"waiver: error: {gated / 'waiver.json'}: nothing accepted; {ROUND_TRIP}: it was frozen 2 "
        "times already and the policy allows 1 renewal (max_renewals); fix the test or "
        "delete it\n"
    )
    assert (gated / "freezes.json").read_bytes() == before


def test_accept_within_max_renewals_writes_the_renewal(
    gated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert accept(gated, "--config", policy(gated, 2)) == 0

    assert capsys.readouterr().out == (
        f"waiver: replaced record 0 for {ROUND_TRIP}\n"
        f"waiver: accepted the freeze of {ROUND_TRIP} until 2026-12-02T12:00:00Z\n"
    )


def test_the_count_comes_from_the_trusted_commit_not_the_working_tree(
    gated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = git(gated, "rev-list", "--max-parents=0", "HEAD")
    # Emptying the store in the tree, or naming an older commit, changes what is counted.
    (gated / "freezes.json").write_text("[]")
    assert accept(gated, "--config", policy(gated, 1)) == 2
    capsys.readouterr()

    assert accept(gated, "--config", policy(gated, 1), "--trusted-ref", first) == 0


def test_without_max_renewals_accept_needs_no_git_history(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_gate(example)
    assert accept(example) == 0  # the example is no git repository


def test_under_max_renewals_a_store_outside_a_clone_is_an_input_error(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_gate(example)
    assert accept(example, "--config", policy(example, 3)) == 2
    assert capsys.readouterr().err == (
        f"waiver: error: {example / 'freezes.json'}: the freeze store is not inside a git clone\n"
    )


def test_a_version_that_does_not_parse_is_named_and_the_rest_still_counts(
    gated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (gated / "freezes.json").write_text("[NaN]")
    git(gated, "commit", "--quiet", "-am", "a broken store")
    broken = git(gated, "rev-parse", "HEAD")

    assert main(["freeze", "history", "--store", str(gated / "freezes.json"), "--now", NOW]) == 0

    assert capsys.readouterr().out.splitlines() == [
        f"waiver: {ROUND_TRIP}: frozen 2 times (1 renewal), 60 h in all, by alice, carol",
        f"waiver: skipped freezes.json as of commit {broken}: NaN is not a JSON number",
    ]
