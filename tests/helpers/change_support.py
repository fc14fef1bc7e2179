"""A base commit and one change on the bundled example, replayed and gated as a user runs
them: the example committed and locked by plain `waiver lock`, one change commit, `waiver
replay` with real pytest runs (with the change's own test tree; or with `--tests-from
BASE`, the base's test tree, after `waiver change-tests` ran the change's new and edited
tests apart), then the gate with `--trusted-ref BASE` (and `--change-tests`)."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers.github_api import commit, review
from helpers.support import EXAMPLE, git, run_gate
from waiver.cli import main

# The cheapest edit an agent can make: report every failure as a pass.
PASSING_HOOK = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
"""
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
LOCK = ["lock", "--fixtures", "fixtures", "--property-suite", "tests/properties"]
# Where the change's new and edited tests replay apart, on its own tree.
CHANGE_TESTS = "change-reports"
Patch = Callable[[Path], None]


def commit_base(work: Path, prepare: Patch | None = None) -> str:
    """The example, locked by plain `waiver lock`, committed: the base commit's id."""
    shutil.copytree(EXAMPLE, work, ignore=shutil.ignore_patterns("run.sh", "__pycache__"))
    if prepare is not None:
        prepare(work)
    return commit_locked(work)


def commit_locked(work: Path) -> str:
    """The tree at `work`, locked by plain `waiver lock`, committed as the first commit."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(work)
        assert main(LOCK) == 0
    git(work, "init", "--quiet")
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "base")
    return git(work, "rev-parse", "HEAD")


def replay_and_gate(
    work: Path, base: str, tests_from: bool, replays: int = 2
) -> tuple[int, int, dict[str, Any]]:
    """`waiver replay` (of the base's test tree, the change's new and edited tests run apart
    first, or of the change's own tree), then the gate: (replay exit, gate exit, report)."""
    properties = shlex.join([*PYTEST, "tests/properties", "--junitxml={junit}"])
    restore = ["--tests-from", base] if tests_from else []
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(work)
        patch.setenv("DEMO_COUNTER", str(work / ".demo-counter"))
        if tests_from:
            change = ["change-tests", "--base", base, "-n", str(replays), "--out", CHANGE_TESTS]
            change += ["--known-tests", "known-tests.txt", "--", *PYTEST, "--junitxml={junit}"]
            assert main(change) == 0
        replayed = main(
            ["replay", "-n", str(replays), "--out", "reports", *restore,
             "--properties-first", properties, "--", *PYTEST, "tests/assertions",
             "--junitxml={junit}"]
        )  # fmt: skip
    gated, report = gate_change(work, base)
    return replayed, gated, report


def gate_change(work: Path, base: str, *extra: str) -> tuple[int, dict[str, Any]]:
    """The gate on the change's replays in `work/reports`, against the trusted `base`, with
    the change's own tests where they ran apart."""
    return run_gate(
        work, "--trusted-ref", base, *change_tests(work), *extra,
        properties="reports/properties.xml",
    )  # fmt: skip


def change_tests(work: Path) -> list[str]:
    """`--change-tests` of the folder `replay_and_gate` ran the change's tests into, if it did."""
    folder = work / CHANGE_TESTS
    return ["--change-tests", str(folder)] if folder.exists() else []


def commit_change(work: Path, patch: Patch) -> None:
    patch(work)
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "change")


def plugin(work: Path, name: str = "forge_plugin.py") -> None:
    (work / name).write_text(PASSING_HOOK)


def fix_slugify(work: Path) -> None:
    code = work / "slugify.py"
    code.write_text(code.read_text().replace('.strip("-")', '.strip("-") or "untitled"'))


NEW = "tests/assertions/test_slug.py::test_dashes"
NEW_TEST = '\n\ndef test_dashes() -> None:\n    assert slugify("a  b") == "a-b"\n'


def add_a_test(work: Path) -> None:
    """The fix, a new registered test, and an edit of the loop that checks the known cases."""
    fix_slugify(work)
    test = work / "tests/assertions/test_slug.py"
    test.write_text(
        test.read_text().replace("for case in CASES:", "for case in CASES[:]:") + NEW_TEST
    )
    registry = work / "known-tests.txt"
    registry.write_text(registry.read_text() + NEW + "\n")


def approvals_file(work: Path, head: str, login: str = "maintainer") -> Path:
    """What `waiver approvals` writes for one counted approval of `head` by `login`, who
    wrote none of it, beside `work`."""
    document = {
        "pull_request": {"number": 7, "user": {"login": "agent"}, "head": {"sha": head}},
        "reviews": [review(1, login, "APPROVED", head)],
        "commits": [commit("agent", "agent")],
        "permissions": {login: {"permission": "write", "role_name": "write"}},
        "error": None,
    }
    path = work.parent / "approvals.json"
    path.write_text(json.dumps(document))
    return path


def approved(work: Path, base: str, head: str, *extra: str) -> tuple[int, dict[str, Any]]:
    """The gate again, with a maintainer's approval of `head` who wrote none of it."""
    return gate_change(work, base, "--approvals", str(approvals_file(work, head)), *extra)
