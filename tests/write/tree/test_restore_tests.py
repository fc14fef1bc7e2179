"""`waiver restore-tests` puts a runner's executable script back executable, and still
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
    return main(["restore-tests", "--from", commit, "--config", "waiver.yml"])


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
        f"waiver: tests from trusted revision {commit}: 1 files restored, "
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


PYTHON_BASE: dict[str, str | bytes] = {
    "pytest.ini": "[pytest]\ntestpaths = tests\n",
    "fixture.lock": f"{hashlib.sha256(b'{}').hexdigest()}  fixtures/settings.json\n",
    "fixtures/settings.json": "{}",
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    "tests/test_gone.py": "def test_gone():\n    assert True\n",
    "tests/helpers.py": "def check(value):\n    assert value\n",
    "tests/data/expected.json": "[3]\n",
}


def test_the_base_s_test_tree_is_laid_out_over_the_change_s_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_tree(tmp_path / "calc", PYTHON_BASE)
    git(root, "init", "--quiet")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "base")
    base = git(root, "rev-parse", "HEAD")
    changed = "def add(a, b):\n    return a - b\n"
    write_tree(
        root,
        {
            "calc.py": changed,
            "tests/test_calc.py": "def test_add():\n    pass\n",
            "tests/helpers.py": "def check(value):\n    pass\n",
            "tests/data/expected.json": "[-1]\n",
            "tests/test_patch.py": "import calc\ncalc.add = lambda a, b: 3\n",
            "tests/__snapshots__/calc.ambr": "-1\n",
            "tools/test_release.py": "def test_release():\n    pass\n",
        },
    )
    (root / "tests" / "test_gone.py").unlink()
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "change")
    capsys.readouterr()
    lay_out = ["restore-tests", "--from", base, "--root", str(root)]
    lay_out += ["--lock", str(root / "fixture.lock")]
    assert main(lay_out) == 0
    assert capsys.readouterr().out == (
        f"waiver: tests from trusted revision {base}: 4 files restored, "
        "tests/data/expected.json, tests/helpers.py, tests/test_calc.py, tests/test_gone.py; "
        "2 removed, tests/__snapshots__/calc.ambr, tests/test_patch.py; "
        "1 named as tests where the base's runner collects none, so not run, "
        "tools/test_release.py\n"
    )
    for path, text in PYTHON_BASE.items():
        if path not in ("calc.py", "fixture.lock"):
            assert (root / path).read_text() == text, path
    assert (root / "calc.py").read_text() == changed  # the change's code stays
    assert (root / "tools" / "test_release.py").exists()  # code to the base: it stays
    assert not (root / "tests" / "test_patch.py").exists()
    # Laid out once, the tree is the base's: a second layout changes nothing.
    assert main(lay_out) == 0
    assert ": 0 files restored; 0 removed;" in capsys.readouterr().out
