"""Hostile path globs in the policy file and on the command line: each an input error that
names the key and the glob, never a traceback and never a green verdict."""

from __future__ import annotations

import json

import pytest

from helpers.hostile_support import Repo, Run
from waiver.cli import main

ESCAPING = [
    ("/", "names no file"),
    ("./", "names no file"),
    ("./..", "is not a glob of files inside the repository"),
    ("../secret.txt", "is not a glob of files inside the repository"),
    ("fixtures/../../secret.txt", "is not a glob of files inside the repository"),
    ("//etc/passwd", "is not a glob of files inside the repository"),
    ("fixtures//a.json", "is not a glob of files inside the repository"),
    ("/etc/passwd", "matches no file"),
    ("/fixtures/../fixtures/a.json", "is not a glob of files inside the repository"),
]
KEYS = {
    "harness": ("harness: [{glob}]\n", "harness[0]"),
    "fixtures": ("fixtures: [{glob}]\n", "fixtures[0]"),
    "binding": ('bindings:\n  - tests: ["*"]\n    fixtures: [{glob}]\n', "bindings[0].fixtures[0]"),
}


@pytest.mark.parametrize(("glob", "problem"), ESCAPING)
@pytest.mark.parametrize("key", KEYS)
def test_a_glob_that_escapes_or_names_nothing_is_an_input_error(
    repo: Repo, checked_gate: Run, key: str, glob: str, problem: str
) -> None:
    text, where = KEYS[key]
    (repo.root / "waiver.yml").write_text("registry: none\n" + text.format(glob=json.dumps(glob)))
    code, _, err = checked_gate()
    assert code == 2
    assert f"waiver.yml: {where}: {glob!r} " in err
    if key == "binding" and problem == "matches no file":
        problem = "matches no file in the lock"  # a binding's globs are held against the lock
    assert problem in err
    report = json.loads((repo.root / "waiver.json").read_text())
    assert report["blocked"] is True


@pytest.mark.parametrize(("glob", "problem"), ESCAPING)
def test_a_pattern_flag_that_escapes_or_names_nothing_is_an_input_error(
    repo: Repo, checked_gate: Run, glob: str, problem: str
) -> None:
    code, _, err = checked_gate("--pattern", glob)
    assert code == 2
    assert f"waiver: error: --pattern: {glob!r} " in err
    assert problem in err


def test_policy_check_names_an_escaping_glob(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo.root / "waiver.yml").write_text('harness: ["jest.config.js", "./.."]\n')
    assert main(["policy", "--check", str(repo.root / "waiver.yml")]) == 2
    assert capsys.readouterr().err == (
        f"waiver: error: {repo.root / 'waiver.yml'}: harness[1]: './..' is not a glob of files "
        "inside the repository (path '..' has an empty, '.' or '..' component)\n"
    )
