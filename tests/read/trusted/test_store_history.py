"""The freeze store's versions over the git history of a trusted revision, read as blobs
from real repositories built here: renewals, merges, authors, and the versions that cannot
be read (skipped and named), a shallow clone (said), the working tree (never read)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from helpers.support import git
from waiver.decide.renewals import FreezeTally, tally
from waiver.errors import InputError
from waiver.read.trusted.git import GitRevision
from waiver.read.trusted.store_history import Skipped, read_store_history

FLAKY = "tests/test_cache.py::test_warm"
OTHER = "tests/test_net.py::test_retry"
NOW = datetime(2026, 3, 20, tzinfo=UTC)


def record(test_id: str, day: int, hours: int = 24, **more: str) -> dict[str, Any]:
    issued = datetime(2026, 3, day, tzinfo=UTC)
    return {
        "test_id": test_id,
        "class": "unstable_assertion",
        "fixture_hash": "0" * 64,
        "replay_pass": 2,
        "replay_total": 5,
        "counts_as_pass": False,
        "scope": "single_test_id",
        "issued_at": issued.isoformat(),
        "expires_at": (issued + timedelta(hours=hours)).isoformat(),
        **more,
    }


def commit_store(work: Path, author: str, content: list[dict[str, Any]] | str) -> str:
    text = content if isinstance(content, str) else json.dumps(content)
    (work / "freezes.json").write_text(text)
    git(work, "add", "freezes.json")
    git(work, "-c", f"user.name={author}", "commit", "--quiet", "-m", f"store by {author}")
    return git(work, "rev-parse", "HEAD")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    git(tmp_path, "init", "--quiet", "--initial-branch=main")
    (tmp_path / "README").write_text("a project\n")
    git(tmp_path, "add", "README")
    git(tmp_path, "commit", "--quiet", "-m", "start")
    return tmp_path


def history_at(work: Path, ref: str) -> tuple[dict[str, FreezeTally], tuple[Skipped, ...]]:
    history = read_store_history(GitRevision(str(work), ref), str(work / "freezes.json"))
    return tally(history.versions, NOW), history.skipped


def test_each_distinct_record_is_one_freeze_owned_by_its_owner_else_its_author(
    work: Path,
) -> None:
    commit_store(work, "alice", [record(FLAKY, 1)])
    # A pruned store, then the same test frozen again with an owner, overlapping nothing.
    commit_store(work, "bob", [])
    commit_store(work, "bob", [record(FLAKY, 5, owner="carol"), record(OTHER, 5, hours=12)])
    # Another version holding the same records (reordered) is no new freeze.
    commit_store(work, "dave", [record(OTHER, 5, hours=12), record(FLAKY, 5, owner="carol")])
    tip = commit_store(work, "erin", [record(FLAKY, 6, hours=48), record(OTHER, 5, hours=12)])

    tallies, skipped = history_at(work, tip)

    assert skipped == ()
    assert tallies == {
        # 24 h on the 1st, then the 5th and 6th to the 8th: 24 + 24 + 48 hours, one overlap.
        FLAKY: FreezeTally(FLAKY, 3, timedelta(hours=96), ("alice", "carol", "erin")),
        OTHER: FreezeTally(OTHER, 1, timedelta(hours=12), ("bob",)),
    }
    assert tallies[FLAKY].renewals == 2


def test_a_freeze_still_running_counts_until_now(work: Path) -> None:
    tip = commit_store(work, "alice", [record(FLAKY, 19, hours=72)])

    tallies, _ = history_at(work, tip)

    assert tallies[FLAKY].frozen_for == timedelta(hours=24)  # from the 19th to NOW, the 20th


def test_a_record_merged_from_a_side_branch_counts_with_its_own_author(work: Path) -> None:
    commit_store(work, "alice", [record(FLAKY, 1)])
    git(work, "checkout", "--quiet", "-b", "side")
    commit_store(work, "bob", [record(FLAKY, 1), record(OTHER, 2)])
    git(work, "checkout", "--quiet", "main")
    (work / "NOTES").write_text("unrelated\n")
    git(work, "add", "NOTES")
    git(work, "commit", "--quiet", "-m", "notes")
    git(work, "merge", "--quiet", "--no-edit", "side")

    tallies, _ = history_at(work, git(work, "rev-parse", "HEAD"))

    assert tallies[OTHER] == FreezeTally(OTHER, 1, timedelta(hours=24), ("bob",))
    assert tallies[FLAKY].times == 1 and tallies[FLAKY].by == ("alice",)


def test_a_version_that_does_not_parse_or_is_no_file_is_skipped_and_named(work: Path) -> None:
    commit_store(work, "alice", [record(FLAKY, 1)])
    broken = commit_store(work, "mallory", '[{"test_id": "x", "test_id": "y"}]')
    not_a_list = commit_store(work, "mallory", '{"records": []}')
    (work / "freezes.json").unlink()
    (work / "freezes.json").symlink_to("/etc/passwd")
    git(work, "add", "freezes.json")
    git(work, "commit", "--quiet", "-m", "a symlink")
    symlink = git(work, "rev-parse", "HEAD")
    (work / "freezes.json").unlink()
    tip = commit_store(work, "bob", [record(FLAKY, 9)])

    tallies, skipped = history_at(work, tip)

    assert tallies[FLAKY].times == 2
    assert skipped == (
        Skipped(broken, "duplicate key 'test_id'"),
        Skipped(not_a_list, "the freeze store must be a JSON list of records"),
        Skipped(symlink, "freezes.json is a symlink, not a regular file"),
    )


def test_a_store_under_a_folder_that_turned_into_a_symlink_is_skipped(work: Path) -> None:
    (work / "ci").mkdir()
    (work / "ci" / "freezes.json").write_text(json.dumps([record(FLAKY, 1)]))
    git(work, "add", "ci")
    git(work, "commit", "--quiet", "-m", "store in ci/")
    git(work, "rm", "--quiet", "-r", "ci")
    (work / "elsewhere").mkdir()
    (work / "elsewhere" / "freezes.json").write_text(json.dumps([record(OTHER, 1)]))
    (work / "ci").symlink_to("elsewhere")
    git(work, "add", "ci", "elsewhere")
    git(work, "commit", "--quiet", "-m", "ci/ is a symlink now")
    tip = git(work, "rev-parse", "HEAD")

    history = read_store_history(GitRevision(str(work), tip), str(work / "ci" / "freezes.json"))

    assert [version.records[0]["test_id"] for version in history.versions] == [FLAKY]
    assert history.skipped == (Skipped(tip, "ci is a symlink, not a regular file"),)


def test_only_the_trusted_revisions_history_counts(work: Path) -> None:
    base = commit_store(work, "alice", [record(FLAKY, 1)])
    # The change under judgement rewrites the store in a commit of its own and in the tree.
    commit_store(work, "agent", [])
    (work / "freezes.json").write_text(json.dumps([record(FLAKY, 2), record(FLAKY, 3)]))

    assert history_at(work, base)[0] == {
        FLAKY: FreezeTally(FLAKY, 1, timedelta(hours=24), ("alice",))
    }


def test_a_shallow_clone_says_where_its_history_stops(work: Path, tmp_path_factory: Any) -> None:
    for day in (1, 2, 3):
        commit_store(work, "alice", [record(FLAKY, day)])
    clone = tmp_path_factory.mktemp("clone")
    git(clone, "clone", "--quiet", "--depth=2", f"file://{work}", ".")
    tip = git(clone, "rev-parse", "HEAD")

    history = read_store_history(GitRevision(str(clone), tip), str(clone / "freezes.json"))

    assert history.cut == (git(clone, "rev-parse", "HEAD~1"),)
    assert tally(history.versions, NOW)[FLAKY].times == 2


def test_a_revision_that_is_not_a_full_commit_id_is_refused(work: Path) -> None:
    commit_store(work, "alice", [record(FLAKY, 1)])
    with pytest.raises(InputError, match="not a full commit id"):
        read_store_history(GitRevision(str(work), "main"), str(work / "freezes.json"))
