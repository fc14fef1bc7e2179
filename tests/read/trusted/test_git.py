"""--trusted-ref: the lock, registry and freeze store come from the base commit as blobs.

The repositories are built here with real git: a base commit holding the example, and a
head commit (the change) that edits a fixture, rewrites the lock to match and adds a
freeze record for the flipping test bound to the new fixtures.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from helpers.support import EMPTY, KNOWN, ROUND_TRIP, classes, gate_args, git, load_report, run_gate
from waiver.cli import main
from waiver.errors import InputError
from waiver.read.lock.lock_file import lock_digest, parse_lock
from waiver.read.trusted.git import GitRevision
from waiver.runners import LOCK_TABLES
from waiver.write.summary.summary import render_summary

COMMITTED = ["fixtures", "tests", "fixture.lock", "known-tests.txt", "slugify.py", "pytest.ini"]


def commit_all(work: Path, message: str) -> str:
    git(work, "add", "--", *COMMITTED, "freezes.json")
    git(work, "commit", "--quiet", "-m", message)
    return git(work, "rev-parse", "HEAD")


def freeze_for(test_id: str, fixture_hash: str) -> dict[str, Any]:
    return {
        "test_id": test_id,
        "class": "unstable_assertion",
        "fixture_hash": fixture_hash,
        "replay_pass": 2,
        "replay_total": 5,
        "counts_as_pass": False,
        "scope": "single_test_id",
        "issued_at": "2026-12-01T00:00:00Z",
        "expires_at": "2026-12-02T00:00:00Z",
    }


def make_change(work: Path) -> None:
    """The head commit: a fixture edited, the lock rewritten to match, a freeze added."""
    slugs = work / "fixtures" / "slugs.json"
    slugs.write_text(slugs.read_text().replace("]", ', {"text": "New", "slug": "new"}]', 1))
    assert main(["lock", "--root", str(work), "--fixtures", str(work / "fixtures"),
                 "--property-suite", str(work / "tests" / "properties"),
                 "--out", str(work / "fixture.lock")]) == 0  # fmt: skip
    digest = lock_digest(
        parse_lock((work / "fixture.lock").read_bytes(), "fixture.lock", LOCK_TABLES)
    )
    (work / "freezes.json").write_text(json.dumps([freeze_for(ROUND_TRIP, digest)]))


@pytest.fixture(scope="module")
def committed(
    replayed_example: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str, str]:
    """The example as a git repository: (work tree at head, base commit, head commit).
    Built once and read only: a test changes its own copy (`repository`)."""
    work = Path(shutil.copytree(replayed_example, tmp_path_factory.mktemp("committed") / "demo"))
    git(work, "init", "--quiet")
    base = commit_all(work, "base")
    make_change(work)
    head = commit_all(work, "change")
    return work, base, head


@pytest.fixture
def repository(committed: tuple[Path, str, str], tmp_path: Path) -> tuple[Path, str, str]:
    """A private copy of the committed repository that a test may change."""
    work, base, head = committed
    return Path(shutil.copytree(work, tmp_path / "demo", symlinks=True)), base, head


def gate_with_freezes(work: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    return run_gate(work, "--freezes", str(work / "freezes.json"), *extra)


def test_with_the_base_as_trusted_ref_the_change_is_fixture_drift(
    repository: tuple[Path, str, str],
) -> None:
    work, base, _ = repository

    code, report = gate_with_freezes(work, "--trusted-ref", base)

    assert code == 1
    assert classes(report) == dict.fromkeys((EMPTY, KNOWN, ROUND_TRIP), "fixture_drift")
    assert report["trusted_revision"] == base
    assert report["freezes"] == {"active": [], "void": []}  # the added record was never read
    assert all(row["active_freeze"] is None and row["freeze"] is None for row in report["rows"])
    fixtures = report["fixtures"]
    assert fixtures["lock_source"] == f"trusted revision {base}"
    assert fixtures["drift"] == [
        {"path": "fixtures/slugs.json", "kind": "changed", "part": "fixtures"}
    ]
    assert fixtures["working_tree_lock_differs"] is True
    assert fixtures["protected_changes"] == [
        {"file": "lock", "path": str(work / "fixture.lock"), "change": "modified"},
        {"file": "freezes", "path": str(work / "freezes.json"), "change": "modified"},
    ]
    summary = render_summary(report)
    assert f"from trusted revision `{base}`, not from this change." in summary
    assert "**This change edits the fixture lock.**" in summary
    assert f"| `lock` | `{work / 'fixture.lock'}` | modified |" in summary
    assert f"| `freezes` | `{work / 'freezes.json'}` | modified |" in summary
    assert "read from the working tree" not in summary


def test_without_a_trusted_ref_the_change_vouches_for_itself_and_the_summary_warns(
    repository: tuple[Path, str, str],
) -> None:
    work, _, _ = repository

    code, report = gate_with_freezes(work)

    # The rewritten lock matches the edited fixture, and the added freeze is active: exactly
    # what reading the protected files from the change lets a change do.
    assert code == 1
    assert classes(report)[ROUND_TRIP] == "unstable_assertion"
    assert report["rows"][2]["active_freeze"]["record"]["test_id"] == ROUND_TRIP
    assert report["trusted_revision"] is None
    assert report["fixtures"]["lock_source"] == "working tree"
    assert "working_tree_lock_differs" not in report["fixtures"]
    assert (
        "**The lock, registry and freeze store were read from the working tree, which the "
        "change itself can edit.**"
    ) in render_summary(report)


def test_the_head_as_trusted_ref_sees_no_change(repository: tuple[Path, str, str]) -> None:
    work, _, head = repository

    code, report = gate_with_freezes(work, "--trusted-ref", head)

    assert code == 1
    assert report["trusted_revision"] == head
    assert report["fixtures"]["working_tree_lock_differs"] is False
    assert report["fixtures"]["protected_changes"] == []
    assert report["rows"][2]["active_freeze"] is not None


def shallow_clone(upstream: Path, tmp_path: Path) -> Path:
    """A clone of the change alone, as actions/checkout makes by default."""
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "--quiet", "--depth=1", f"file://{upstream}", str(clone))
    for generated in ("reports", "properties.xml"):
        os.rename(upstream / generated, clone / generated)
    return clone


def test_a_revision_missing_from_a_shallow_clone_fails_closed_with_advice(
    repository: tuple[Path, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    upstream, base, _ = repository
    clone = shallow_clone(upstream, tmp_path)

    code = main(gate_args(clone, "--trusted-ref", base))

    assert code == 2
    error = capsys.readouterr().err
    assert (
        f"--trusted-ref {base}: the revision is not in this clone or cannot be read "
        "(a git object is missing); check out with `fetch-depth: 0`" in error
    )
    report = load_report(clone / "waiver.json")
    assert report["blocked"] is True
    assert report["error"]["source"] == f"--trusted-ref {base}"
    assert report["trusted_revision"] == base  # as it was given, though it could not be read


def test_a_revision_fetched_into_the_shallow_clone_is_read(
    repository: tuple[Path, str, str], tmp_path: Path
) -> None:
    upstream, base, _ = repository
    clone = shallow_clone(upstream, tmp_path)
    git(clone, "fetch", "--quiet", "--depth=1", "origin", base)

    code, report = gate_with_freezes(clone, "--trusted-ref", base)

    assert code == 1
    assert report["trusted_revision"] == base
    assert set(classes(report).values()) == {"fixture_drift"}


NOT_A_COMMIT_ID = [
    "--upload-pack=touch pwned",
    "HEAD:fixture.lock",
    "a b",
    "",
    "HEAD",
    "HEAD~1",
    "main",
    "origin/main",
    "v1.0",
    "0" * 39,
]


@pytest.mark.parametrize("ref", NOT_A_COMMIT_ID)
def test_a_revision_argument_that_is_no_revision_is_refused(
    repository: tuple[Path, str, str], ref: str, capsys: pytest.CaptureFixture[str]
) -> None:
    work, _, _ = repository
    git(work, "tag", "v1.0")
    git(work, "branch", "main")
    assert main([*gate_args(work), f"--trusted-ref={ref}"]) == 2
    assert f"--trusted-ref {ref}: not a full commit id" in capsys.readouterr().err
    assert not (work / "pwned").exists()


def test_a_short_or_uppercase_commit_id_is_a_usage_error(
    repository: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    work, base, _ = repository
    for ref in (base[:7], base[:39], base.upper(), base + "0", f"{base}^"):
        assert main([*gate_args(work), f"--trusted-ref={ref}"]) == 2
        assert "not a full commit id" in capsys.readouterr().err


def test_an_annotated_tag_named_by_its_object_id_is_refused(
    repository: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    work, base, _ = repository
    git(work, "tag", "-a", "-m", "base", "annotated", base)
    tag_object = git(work, "rev-parse", "annotated")
    assert main(gate_args(work, "--trusted-ref", tag_object)) == 2
    assert f"--trusted-ref {tag_object}: names a tag, not a commit" in capsys.readouterr().err


def test_outside_a_git_clone_the_gate_fails_closed(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(gate_args(example, "--trusted-ref", "0" * 40)) == 2
    assert "is not inside a git clone" in capsys.readouterr().err


def test_a_symlink_at_the_trusted_revision_is_refused(
    repository: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    work, _, _ = repository
    (work / "known-tests.txt").unlink()
    (work / "known-tests.txt").symlink_to("fixture.lock")
    git(work, "add", "known-tests.txt")
    git(work, "commit", "--quiet", "-m", "registry becomes a symlink")

    assert main(gate_args(work, "--trusted-ref", git(work, "rev-parse", "HEAD"))) == 2
    assert "known-tests.txt is a symlink at trusted revision" in capsys.readouterr().err


def test_a_submodule_at_the_trusted_revision_is_refused(
    repository: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    work, _, head = repository
    git(work, "rm", "--quiet", "--cached", "known-tests.txt")
    git(work, "update-index", "--add", "--cacheinfo", f"160000,{head},known-tests.txt")
    git(work, "commit", "--quiet", "-m", "registry becomes a submodule")

    assert main(gate_args(work, "--trusted-ref", git(work, "rev-parse", "HEAD"))) == 2
    assert "known-tests.txt is a submodule at trusted revision" in capsys.readouterr().err


def test_a_file_missing_at_the_trusted_revision_fails_closed(
    repository: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    work, base, _ = repository
    (work / "freezes.json").write_text("[]")
    (work / "other.json").write_text("[]")

    code = main([*gate_args(work, "--trusted-ref", base), "--freezes", str(work / "other.json")])

    assert code == 2
    assert f"other.json does not exist at trusted revision {base}" in capsys.readouterr().err


def test_a_path_outside_the_root_is_refused(
    repository: tuple[Path, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work, _, _ = repository
    outside = tmp_path / "registry.txt"
    outside.write_text(f"{KNOWN}\n")
    args = gate_args(work, "--trusted-ref", git(work, "rev-parse", "HEAD"))
    args[args.index("--known-tests") + 1] = str(outside)

    assert main(args) == 2
    assert "a protected file must lie inside the repository root" in capsys.readouterr().err


def test_the_root_may_be_a_folder_inside_the_repository(
    repository: tuple[Path, str, str], tmp_path: Path
) -> None:
    work, base, _ = repository
    outer = tmp_path / "outer"
    outer.mkdir()
    os.rename(work, outer / "demo")
    git(outer, "init", "--quiet")
    (outer / "demo" / ".git").rename(tmp_path / "inner-git")
    git(outer, "add", "--", *(f"demo/{name}" for name in COMMITTED), "demo/freezes.json")
    git(outer, "commit", "--quiet", "-m", "nested")

    code, report = gate_with_freezes(
        outer / "demo", "--trusted-ref", git(outer, "rev-parse", "HEAD")
    )

    assert code == 1
    assert report["fixtures"]["protected_changes"] == []
    assert report["trusted_revision"] == git(outer, "rev-parse", "HEAD") != base


def test_no_hook_or_program_from_the_workspace_config_runs(
    repository: tuple[Path, str, str], tmp_path: Path
) -> None:
    upstream, base, _ = repository
    clone = shallow_clone(upstream, tmp_path)
    git(clone, "fetch", "--quiet", "--depth=1", "origin", base)
    marker = tmp_path / "ran"
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("reference-transaction", "post-checkout", "pre-auto-gc"):
        (hooks / hook).write_text(f"#!/bin/sh\necho {hook} >> {marker}\n")
        (hooks / hook).chmod(0o755)
    git(clone, "config", "core.hooksPath", str(hooks))
    git(clone, "config", "core.fsmonitor", f"echo fsmonitor >> {marker}; false")
    git(clone, "config", "core.alternateRefsCommand", f"echo alternates >> {marker}")

    code, report = gate_with_freezes(clone, "--trusted-ref", base)

    assert code == 1 and report["trusted_revision"] == base
    assert not marker.exists()
    # git itself, under the clone's own config, runs them.
    git(clone, "status", "--short")
    assert "fsmonitor" in marker.read_text().split()


def test_git_environment_variables_cannot_redirect_the_read(
    repository: tuple[Path, str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work, base, _ = repository
    decoy = tmp_path / "decoy"
    decoy.mkdir()
    git(decoy, "init", "--quiet")
    monkeypatch.setenv("GIT_DIR", str(decoy / ".git"))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(decoy / ".git" / "objects"))
    revision = GitRevision(str(work), base)

    assert revision.commit == base
    assert revision.read(str(work / "known-tests.txt"), 1 << 20) == (
        f"{EMPTY}\n{KNOWN}\n{ROUND_TRIP}\n".encode()
    )


def test_a_blob_over_the_cap_is_refused(repository: tuple[Path, str, str]) -> None:
    work, base, _ = repository
    revision = GitRevision(str(work), base)
    with pytest.raises(InputError, match="larger than the cap of 10 bytes"):
        revision.read(str(work / "known-tests.txt"), 10)


def test_changes_name_deleted_and_replaced_files(repository: tuple[Path, str, str]) -> None:
    work, base, _ = repository
    revision = GitRevision(str(work), base)
    for name in ("known-tests.txt", "fixture.lock", "freezes.json"):
        revision.read(str(work / name), 1 << 20)
    (work / "known-tests.txt").unlink()
    (work / "freezes.json").unlink()
    (work / "freezes.json").mkdir()

    assert revision.changes() == {
        str(work / "known-tests.txt"): "deleted",
        str(work / "fixture.lock"): "modified",
        str(work / "freezes.json"): "not a regular file",
    }


def test_the_policy_file_comes_from_the_trusted_revision_too(
    repository: tuple[Path, str, str],
) -> None:
    work, _, _ = repository
    config = work / "waiver.yml"
    config.write_text("min_replays: 5\n")
    git(work, "add", "waiver.yml")
    git(work, "commit", "--quiet", "-m", "policy")
    base = git(work, "rev-parse", "HEAD")
    config.write_text("min_replays: 1\n")  # the change lowers its own bar

    _, trusted = gate_with_freezes(work, "--config", str(config), "--trusted-ref", base)
    _, untrusted = gate_with_freezes(work, "--config", str(config))

    assert trusted["min_replays"] == 5 and untrusted["min_replays"] == 1
    assert trusted["fixtures"]["protected_changes"] == [
        {"file": "config", "path": str(config), "change": "modified"}
    ]


def test_a_full_commit_id_names_that_commit_even_where_a_ref_takes_its_name(
    repository: tuple[Path, str, str],
) -> None:
    work, base, head = repository
    git(work, "tag", base, head)  # a ref spelt like the base's id, pointing at the change
    assert GitRevision(str(work), base).commit == base


def test_a_tree_id_is_no_commit(repository: tuple[Path, str, str]) -> None:
    work, base, _ = repository
    tree = git(work, "rev-parse", f"{base}^{{tree}}")
    with pytest.raises(InputError, match="names a tree, not a commit"):
        _ = GitRevision(str(work), tree).commit
