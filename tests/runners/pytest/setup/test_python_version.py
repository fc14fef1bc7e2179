"""Which Python the written workflow runs the commands with, from what the project declares,
and the interpreter init proves them with: that one when it is on PATH, else its own, said."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from helpers.init_support import init
from helpers.support import write_tree
from waiver.runners.pytest.setup.pytest_run import fresh_venv
from waiver.runners.pytest.setup.python_version import WorkflowPython, proof_python, workflow_python

RUNNING = sys.version_info[:2]
PYPROJECT = '[project]\nname = "lib"\nversion = "0"\nrequires-python = "{}"\n'


@pytest.mark.parametrize(
    ("files", "version", "source"),
    [
        ({".python-version": "3.11.4\n", "pyproject.toml": PYPROJECT.format(">=3.8")},
         (3, 11), ".python-version"),
        ({"pyproject.toml": PYPROJECT.format(">=3.9")}, (3, 12), "the gate workflow's default"),
        ({"pyproject.toml": PYPROJECT.format(">=3.9, <3.12")}, (3, 11),
         "requires-python >=3.9, <3.12"),
        ({"pyproject.toml": PYPROJECT.format(">=3.13")}, (3, 13), "requires-python >=3.13"),
        ({"pyproject.toml": PYPROJECT.format("==3.10.*")}, (3, 10), "requires-python ==3.10.*"),
        ({"pyproject.toml": PYPROJECT.format("~=3.10.2")}, (3, 10), "requires-python ~=3.10.2"),
        ({"pyproject.toml": PYPROJECT.format(">=3.9,!=3.12.*")}, (3, 11),
         "requires-python >=3.9,!=3.12.*"),
        ({"pyproject.toml": PYPROJECT.format("3 or so")}, (3, 12), "the gate workflow's default"),
        ({}, (3, 12), "the gate workflow's default"),
    ],
)  # fmt: skip
def test_the_workflows_python_is_what_the_project_declares(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    files: dict[str, str],
    version: tuple[int, int],
    source: str,
) -> None:
    monkeypatch.chdir(write_tree(tmp_path, dict(files)))
    found = workflow_python()
    assert (found.version, found.source) == (version, source)
    assert found.written is (version != (3, 12))


def fake_python(folder: Path, name: str, says: str) -> None:
    """An executable `name` on PATH that answers the version question with `says`."""
    script = folder / name
    script.write_text(f"#!/bin/sh\necho {says}\n")
    script.chmod(0o755)


def test_the_proof_takes_the_workflows_python_from_path_when_it_is_that_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_python(tmp_path, "python3.9", "3 9")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert proof_python(WorkflowPython((3, 9), "requires-python <3.10")) == (
        str(tmp_path / "python3.9"), None,
    )  # fmt: skip


@pytest.mark.parametrize("shim", [None, "3 12", "pyenv: python3.9: command not found"])
def test_without_that_python_the_proof_takes_waivers_own_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shim: str | None
) -> None:
    if shim is not None:  # a shim that answers for another version, or not at all
        fake_python(tmp_path, "python3.9", repr(shim))
    monkeypatch.setenv("PATH", str(tmp_path))
    own = f"{RUNNING[0]}.{RUNNING[1]}"
    assert proof_python(WorkflowPython((3, 9), "requires-python <3.10")) == (
        sys.executable,
        f"the commands were proved with Python {own} (the one running waiver), not 3.9, which "
        "the workflow installs (requires-python <3.10): no python3.9 on PATH; a test that "
        "depends on the version may run otherwise in the workflow",
    )


@pytest.mark.slow  # runs `waiver init` on a repository, its suite for real
def test_the_proofs_venv_is_made_by_the_interpreter_it_is_given(tmp_path: Path) -> None:
    """An interpreter that notes each run, then runs as this one."""
    interpreter = tmp_path / "python-noting"
    interpreter.write_text(
        f'#!/bin/sh\necho "$@" >> {tmp_path / "ran"}\nexec {sys.executable} "$@"\n'
    )
    interpreter.chmod(0o755)
    (tmp_path / "tree" / "a.txt").parent.mkdir()
    (tmp_path / "tree" / "a.txt").write_text("")
    with fresh_venv(str(tmp_path / "tree"), python=str(interpreter)) as (_, env):
        version = subprocess.run(
            ["python", "-c", "import sys; print(*sys.version_info[:2])"],
            env=env, capture_output=True, text=True, check=True,
        ).stdout.split()  # fmt: skip
        assert (tmp_path / "ran").read_text() == f"-m venv {env['VIRTUAL_ENV']}\n"
    assert tuple(map(int, version)) == RUNNING


@pytest.mark.slow  # runs `waiver init` on a repository, its suite for real
def test_init_writes_the_declared_python_into_the_workflow(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_tree(tmp_path, {
        ".python-version": "3.11\n",
        "pyproject.toml": PYPROJECT.format(">=3.9") + '\n[tool.pytest.ini_options]\n'
                          'testpaths = ["tests"]\n',
        "lib.py": "def add(a, b):\n    return a + b\n",
        "tests/test_lib.py": "from lib import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
        "tests/properties/test_props.py": "from lib import add\n\n\ndef test_zero():\n"
                                          "    assert add(0, 0) == 0\n",
    })  # fmt: skip
    assert init(root, "--dry-run") == 0
    printed = capsys.readouterr().out
    assert (
        "      # The Python both commands run with, as the project declares it.\n"
        '      python-version: "3.11"\n'
    ) in printed
