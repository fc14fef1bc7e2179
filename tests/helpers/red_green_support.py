"""A repository built from scratch for red-green evidence: a base with a bug, and a change
that fixes it and adds tests, one that fails without the fix, one that passes anyway, and
one that imports what only the change defines. Its conftest, which the change rewrites to
report every test as passed, is harness: the base's runs there."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from helpers.github_api import commit as api_commit
from helpers.github_api import review
from helpers.support import git, write_tree

PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
BASE = {
    "calc.py": "def add(a, b):\n    return a - b if a > 5 else a + b\n",
    "conftest.py": "",
    "tests/__init__.py": "",
    "tests/test_calc.py": """\
from calc import add


def test_add_small():
    assert add(1, 2) == 3
""",
}
FORGING_CONFTEST = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
"""
CHANGE = {
    "calc.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n",
    "conftest.py": FORGING_CONFTEST,
    "tests/test_calc.py": """\
from calc import add


def test_add_small():
    assert add(1, 2) == 3


def test_add_big():
    assert add(7, 1) == 8


def test_add_zero():
    assert add(0, 0) == 0
""",
    "tests/test_mul.py": """\
from calc import mul


def test_mul():
    assert mul(2, 3) == 6
""",
}
RED = "tests/test_calc.py::test_add_big"
GREEN = "tests/test_calc.py::test_add_zero"
ERRORED = "tests/test_mul.py::test_mul"
KNOWN = "tests/test_calc.py::test_add_small"


def commit(work: Path, files: dict[str, str], message: str) -> str:
    write_tree(work, dict(files))
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", message)
    return git(work, "rev-parse", "HEAD")


def base_and_change(work: Path, change: dict[str, str] | None = None) -> str:
    """The base committed, then the change on top (checked out); the base's commit id."""
    work.mkdir(parents=True, exist_ok=True)
    git(work, "init", "--quiet")
    base = commit(work, BASE, "base")
    commit(work, CHANGE if change is None else change, "change")
    return base


def approvals_file(work: Path, head: str, login: str = "maintainer") -> Path:
    """What `waiver approvals` writes for one counted approval of `head` by `login`."""
    document = {
        "pull_request": {"number": 7, "user": {"login": "agent"}, "head": {"sha": head}},
        "reviews": [review(1, login, "APPROVED", head)],
        "commits": [api_commit("agent", "agent")],
        "permissions": {login: {"permission": "write", "role_name": "write"}},
        "error": None,
    }
    path = work.parent / "approvals.json"
    path.write_text(json.dumps(document))
    return path
