"""The lock never walks a folder git ignores, and the change cannot choose what is ignored:
only the trusted revision's `.gitignore` files count, and a folder the change tracks
anything in is walked whatever they say. Real git repositories throughout."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.support import git, write_tree
from waiver.cli import main
from waiver.read.harness.listing import walk
from waiver.read.trusted.ignored import ignored_folders
from waiver.read.trusted.trees import DiskTree

PROJECT = {
    ".gitignore": "node_modules/\n.venv\n/out/\nbuild/*\n*.log\n",
    "package.json": '{"name": "web"}\n',
    "fixtures/users.json": "[]\n",
    "packages/ui/package.json": '{"name": "ui"}\n',
    "packages/ui/.gitignore": "gen/\n",
}
INSTALLED = {
    "node_modules/left-pad/package.json": "{}\n",
    "node_modules/left-pad/conftest.py": "",
    "packages/ui/node_modules/react/package.json": "{}\n",
    "packages/ui/gen/package.json": "{}\n",
    ".venv/lib/python3.12/site-packages/pkg/package.json": "{}\n",
    "out/package.json": "{}\n",
    "packages/ui/out/package.json": "{}\n",  # `/out/` is the root's alone
    "build/package.json": "{}\n",
    "logs.log/package.json": "{}\n",  # `*.log` names this folder too
}


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, str]:
    """A JavaScript project committed as the base, then installed: (work tree, base)."""
    root = write_tree(tmp_path / "web", PROJECT)
    git(root, "init", "--quiet")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "base")
    write_tree(root, INSTALLED)
    return root, git(root, "rev-parse", "HEAD")


def git_ignored_folders(root: Path) -> set[str]:
    """The folders git itself reports as ignored, as `git status --ignored` lists them."""
    lines = git(root, "status", "--porcelain", "--ignored").splitlines()
    return {line[3:].rstrip("/") for line in lines if line.startswith("!! ") and line.endswith("/")}


def walked_folders(root: Path, trusted: str | None) -> set[str]:
    return walk(DiskTree(str(root), ignored_folders(str(root), trusted))).folders


def test_the_walk_skips_the_folders_git_ignores_and_no_other(project: tuple[Path, str]) -> None:
    root, base = project
    ignored = git_ignored_folders(root)
    assert ignored == {
        "node_modules", "packages/ui/node_modules", "packages/ui/gen", ".venv", "out",
        "build", "logs.log",
    }  # fmt: skip
    every = walk(DiskTree(str(root))).folders
    for trusted in (None, base):
        walked = walked_folders(root, trusted)
        assert every - walked == {
            folder
            for folder in every
            if any(folder == i or folder.startswith(i + "/") for i in ignored)
        }


def lock(root: Path, policy: str) -> list[str]:
    (root / "waiver.yml").write_text(policy)
    assert main(
        ["lock", "--root", str(root), "--fixtures", str(root / "fixtures"),
         "--config", str(root / "waiver.yml"), "--out", str(root / "fixture.lock")]
    ) == 0  # fmt: skip
    return [line.split("  ", 1)[1] for line in (root / "fixture.lock").read_text().splitlines()]


def test_a_name_glob_locks_the_projects_files_not_the_installed_copies(
    project: tuple[Path, str],
) -> None:
    root, _ = project
    assert lock(root, 'harness: ["package.json"]\n') == [
        "fixtures/users.json", "package.json", "packages/ui/out/package.json",
        "packages/ui/package.json",
    ]  # fmt: skip
    assert lock(root, 'harness: ["/package.json"]\n') == ["fixtures/users.json", "package.json"]


def commit_change(root: Path, gitignore: str) -> None:
    (root / ".gitignore").write_text(gitignore)
    git(root, "add", ".gitignore")
    git(root, "commit", "--quiet", "-m", "change")


def check_lock(root: Path, base: str) -> int:
    return main(
        ["check-lock", "--root", str(root), "--fixtures", str(root / "fixtures"),
         "--lock", "fixture.lock", "--config", "waiver.yml", "--trusted-ref", base]
    )  # fmt: skip


def commit_lock(root: Path, policy: str) -> str:
    lock(root, policy)
    git(root, "add", "fixture.lock", "waiver.yml")
    git(root, "commit", "--quiet", "-m", "lock")
    return git(root, "rev-parse", "HEAD")


@pytest.fixture
def locked(project: tuple[Path, str], monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """The project with its lock of `package.json` harness committed: (work tree, that commit)."""
    root, _ = project
    monkeypatch.chdir(root)
    return root, commit_lock(root, 'harness: ["package.json"]\n')


def drift_lines(root: Path, base: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The drifted files `waiver check-lock` names against `base`, which must drift."""
    capsys.readouterr()
    assert check_lock(root, base) == 1
    return capsys.readouterr().out.splitlines()[1:]


def test_the_changes_own_gitignore_hides_no_harness_file(
    locked: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, base = locked
    assert check_lock(root, base) == 0  # what the install left is no drift
    # The change ignores two folders and plants a conftest.py in one, untracked.
    commit_change(root, PROJECT[".gitignore"] + "tests/\nfixtures/\n")
    write_tree(root, {"tests/conftest.py": "", "fixtures/orders.json": "[]\n"})
    assert "tests" in git_ignored_folders(root)  # git, by the change's rules, ignores them
    assert drift_lines(root, base, capsys) == [
        "  fixtures/orders.json: not_in_lock (fixtures)",
        "  tests/conftest.py: not_in_lock (harness)",
    ]


def test_a_folder_the_change_tracks_anything_in_is_walked(
    locked: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, base = locked
    git(root, "add", "--force", "node_modules/left-pad/package.json")
    git(root, "commit", "--quiet", "-m", "vendor left-pad")
    assert drift_lines(root, base, capsys) == [
        "  node_modules/left-pad/conftest.py: not_in_lock (harness)",
        "  node_modules/left-pad/package.json: not_in_lock (harness)",
    ]


def test_a_symlinked_node_modules_is_never_followed(
    project: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = project
    elsewhere = write_tree(tmp_path / "elsewhere", {"package.json": "{}\n", "conftest.py": ""})
    (root / "packages" / "ui" / "node_modules").rename(tmp_path / "moved")
    (root / "packages" / "ui" / "node_modules").symlink_to(elsewhere, target_is_directory=True)
    assert "packages/ui/node_modules/package.json" not in lock(root, 'harness: ["package.json"]\n')
    # In the fixture set it is no fixture folder to skip but a symlink: an error, named.
    (root / "fixtures" / "node_modules").symlink_to(elsewhere, target_is_directory=True)
    capsys.readouterr()
    assert main(
        ["lock", "--root", str(root), "--fixtures", str(root / "fixtures"),
         "--out", str(root / "fixture.lock")]
    ) == 2  # fmt: skip
    assert capsys.readouterr().err.startswith(
        "waiver: error: fixtures/node_modules: a symlink in the fixture set, which the lock "
        "cannot hold (it holds bytes, not what a link points to): replace it by a copy of "
        "its target, or leave it out of the policy's `fixtures:` globs\n"
    )
