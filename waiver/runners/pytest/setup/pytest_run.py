"""One real run of a Python suite by pytest, for `waiver init`: the registry's ids.

`waiver init` is run by a person on their own tree, so here, unlike in the gate, pytest
itself is run: the property suite and the tests once each, with a JUnit report read as the
gate reads a replay (`waiver.init.collection`); and the written commands are proved once in
a fresh virtual environment.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence

from waiver.errors import InputError
from waiver.init.collection import OUTPUT_TAIL, PROVE_SECONDS, Ran, read_ran
from waiver.read.junit.testid import TestIdRule

# pytest's exit code when it collected nothing.
NO_TESTS_COLLECTED = 5


# pytest's exit codes for a run that ran: every test passed, or some failed.
RAN_CODES = (0, 1)


def run_suite(root: str, arguments: Sequence[str]) -> Ran:
    """The ids one real run of pytest with `arguments` gives under `root`, read from its
    JUnit report as the gate reads a replay: a test that skips itself while it runs has no
    outcome there, so it is not registered to vanish from every gate after. An error when
    pytest could not run the tests (no report, a collection or internal error)."""
    rule = TestIdRule(root)
    with tempfile.TemporaryDirectory(prefix="waiver-init-") as scratch:
        junit = os.path.join(scratch, "run.xml")
        env = {**os.environ, "PYTHONPYCACHEPREFIX": os.path.join(scratch, "pycache")}
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments,
                   f"--junitxml={junit}"]  # fmt: skip
        completed = subprocess.run(
            command, cwd=root, env=env, capture_output=True, text=True, check=False
        )
        source = " ".join(word for word in arguments if word and not word.startswith("-"))
        if completed.returncode == NO_TESTS_COLLECTED:
            raise InputError(source, "pytest collected no tests here")
        if completed.returncode not in RAN_CODES or not os.path.isfile(junit):
            tail = (completed.stdout + completed.stderr)[-OUTPUT_TAIL:]
            raise InputError(
                source,
                f"pytest could not run the tests (exit {completed.returncode}): {tail}",
            )
        return read_ran(junit, rule)


def prove(flag: str, command: str, scratch: str, env: dict[str, str]) -> Ran:
    """Runs a written command once, in the copy of the repository and the fresh venv of
    `fresh_venv`: one that leaves no report, or stops at collection or with an internal
    error, is an input error naming it with its output. Tests that run and fail are the
    tree's own state, and are returned with the others."""
    junit = os.path.join(scratch, f"{flag.strip('-')}.xml")
    try:
        completed = subprocess.run(
            ["bash", "-c", command], env={**env, "WAIVER_JUNIT": junit}, capture_output=True,
            text=True, check=False, timeout=PROVE_SECONDS, cwd=os.path.join(scratch, "tree"),
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        raise InputError(flag, f"did not end within {PROVE_SECONDS} s in a fresh venv") from None
    tail = (completed.stdout + completed.stderr)[-OUTPUT_TAIL:]
    if not os.path.isfile(junit) or completed.returncode not in RAN_CODES:
        raise InputError(
            flag,
            f"the written command cannot run in a fresh venv (exit {completed.returncode}, "
            f"{'a' if os.path.isfile(junit) else 'no'} report): {command}\n{tail}",
        )
    ran = read_ran(junit, TestIdRule("."))
    if not ran.test_ids:
        raise InputError(flag, f"the written command ran no test in a fresh venv: {command}")
    return ran


def _copy_tree(root: str, into: str) -> None:
    """The repository's files that git does not ignore, copied to `into`: the written
    commands run there, so that what they leave (an install's `*.egg-info`, caches) never
    lands in the tree the lock is written from."""
    listed = subprocess.run(
        ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True, check=False,
    )  # fmt: skip
    if listed.returncode != 0:
        shutil.copytree(root, into, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        return
    os.makedirs(into, exist_ok=True)
    for name in filter(None, listed.stdout.decode("utf-8", "surrogateescape").split("\0")):
        source, target = os.path.join(root, name), os.path.join(into, name)
        if os.path.isfile(source) and not os.path.islink(source):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(source, target)


@contextlib.contextmanager
def fresh_venv(
    root: str = ".", python: str = sys.executable
) -> Iterator[tuple[str, dict[str, str]]]:
    """A scratch folder with a copy of the repository at `root` (its `tree`) and a fresh
    virtual environment of the interpreter `python` (the workflow's, when init found it),
    and the environment a command runs with in it, as the workflow's steps run on a
    runner: its `bin` first on PATH, no PYTHONPATH."""
    with tempfile.TemporaryDirectory(prefix="waiver-init-venv-") as scratch:
        _copy_tree(root, os.path.join(scratch, "tree"))
        venv = os.path.join(scratch, "venv")
        made = subprocess.run([python, "-m", "venv", venv], capture_output=True,
                              text=True, check=False)  # fmt: skip
        if made.returncode != 0:
            raise InputError("--no-verify", f"no fresh venv could be made: {made.stderr.strip()}")
        env = {key: value for key, value in os.environ.items()
               if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}  # fmt: skip
        env["PATH"] = os.pathsep.join([os.path.join(venv, "bin"), env.get("PATH", "")])
        env["VIRTUAL_ENV"] = venv
        env["PYTHONPYCACHEPREFIX"] = os.path.join(scratch, "pycache")
        yield scratch, env
