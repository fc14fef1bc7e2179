"""`waiver restore-harness` puts a runner's executable script back executable, and still
refuses a symlink or submodule where the trusted lock names a file. Real git repositories."""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path

import pytest

from helpers.support import git, write_tree
from waiver.cli import main

SCRIPT = "#!/bin/sh\nexec npx jest --ci --reporters=jest-junit\n"


@pytest.fixture
def base(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """A JavaScript project whose harness is an executable script, locked and committed."""
    root = write_tree(
        tmp_path / "web",
        {
            "scripts/junit.sh": SCRIPT,
            "package.json": "{}\n",
            "fixtures/users.json": "[]\n",
            "waiver.yml": 'harness: ["/scripts/junit.sh", "/package.json"]\n',
        },
    )
    (root / "scripts" / "junit.sh").chmod(0o755)
    monkeypatch.chdir(root)
    assert main(["lock", "--fixtures", "fixtures", "--config", "waiver.yml"]) == 0
    git(root, "init", "--quiet")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "base")
    assert git(root, "ls-files", "--stage", "scripts/junit.sh").startswith("100755 ")
    return root, git(root, "rev-parse", "HEAD")


def restore(commit: str) -> int:
    return main(["restore-harness", "--from", commit, "--config", "waiver.yml"])


def is_executable(path: Path) -> bool:
    return bool(path.stat().st_mode & stat.S_IXUSR)


def test_an_edited_executable_script_is_restored_executable(
    base: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, commit = base
    script = root / "scripts" / "junit.sh"
    script.write_text("#!/bin/sh\necho '<testsuite tests=\"1\"/>'\n")
    script.chmod(0o644)
    git(root, "commit", "--quiet", "-am", "change")
    assert restore(commit) == 0
    assert capsys.readouterr().out == (
        f"waiver: harness from trusted revision {commit}: 1 locked files restored, "
        "scripts/junit.sh; 0 removed\n"
    )
    assert script.read_text() == SCRIPT
    assert is_executable(script)


def test_a_deleted_executable_script_comes_back_executable(base: tuple[Path, str]) -> None:
    root, commit = base
    (root / "scripts" / "junit.sh").unlink()
    assert restore(commit) == 0
    assert is_executable(root / "scripts" / "junit.sh")
    assert not is_executable(root / "package.json")


def test_a_locked_path_that_is_a_symlink_at_the_trusted_revision_is_refused(
    base: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = base
    (root / "scripts" / "run.sh").symlink_to("junit.sh")
    digest = hashlib.sha256(b"elsewhere").hexdigest()
    with (root / "fixture.lock").open("a") as lock:
        lock.write(f"{digest}  scripts/run.sh\n")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "a symlinked script, locked by hand")
    commit = git(root, "rev-parse", "HEAD")
    (root / "scripts" / "run.sh").unlink()
    (root / "scripts" / "run.sh").write_text("#!/bin/sh\n")
    capsys.readouterr()
    assert restore(commit) == 2
    assert capsys.readouterr().err == (
        f"waiver: error: ./scripts/run.sh: scripts/run.sh is a symlink at trusted revision "
        f"{commit}, not a regular file\n"
    )
    assert (root / "scripts" / "run.sh").read_text() == "#!/bin/sh\n"  # nothing written
