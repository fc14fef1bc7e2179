"""Data files beside the tests, outside the lock: what a change adds or edits there is drift."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dulwich.repo import Repo

from helpers.change_support import commit_base, commit_change, fix_slugify, replay_and_gate
from helpers.support import EMPTY, classes, git, write_tree
from waiver.read.harness.listing import walk
from waiver.read.lock.committed import CommittedChange, committed_test_data
from waiver.read.lock.lock_file import LockEntry
from waiver.read.policy.policy_file import parse_policy
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import CommitTree, DiskTree
from waiver.runners.pytest.harness.collected import collection, is_data_file, suite_folders
from waiver.runners.pytest.harness.finder import PYTEST_FINDER


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("tests/cases.json", True),
        ("tests/golden/out.txt", True),
        ("tests/data/image.png", True),
        ("tests/helpers.py", False),
        ("tests/README.md", False),
        ("tests/__pycache__/x.json", False),
        ("tests/.gitignore", False),
    ],
)
def test_a_data_file_is_any_file_but_python_documentation_and_git(path: str, data: bool) -> None:
    assert is_data_file(path) is data


@pytest.mark.parametrize(
    ("files", "held", "not_held"),
    [
        (
            {"tests/unit/test_a.py": "", "lib/core.py": ""},
            ["tests/cases.json", "tests/unit/x.csv"],
            ["lib/data.json", "cases.json", "docs/x.json"],
        ),
        (
            {"pytest.ini": "[pytest]\ntestpaths = checks\n", "tests/test_a.py": ""},
            ["checks/x.json"],
            ["tests/x.json"],
        ),
        (
            # A test module at the root names no folder: the root is not a test folder.
            {"test_root.py": ""},
            [],
            ["data.json", "lib/data.json"],
        ),
    ],
)
def test_test_folders_are_the_trusted_testpaths_or_the_folders_of_the_test_modules(
    tmp_path: Path, files: dict[str, str], held: list[str], not_held: list[str]
) -> None:
    write_tree(tmp_path, dict(files))
    tree = DiskTree(str(tmp_path))
    listing = walk(tree)
    folders = suite_folders(collection(tree, listing.folders), listing)
    assert [path for path in held if not folders.holds(path)] == []
    assert [path for path in not_held if folders.holds(path)] == []


BASE = {
    "tests/test_calc.py": "def test_x():\n    pass\n",
    "tests/cases.json": '{"double 2": 4}\n',
    "tests/locked.json": "{}\n",
    "tests/snapshots/a.txt": "a\n",
    "docs/example.json": "{}\n",
}


def committed(tmp_path: Path, change: dict[str, str]) -> Committed:
    git(tmp_path, "init", "--quiet")
    commits = []
    for files in (BASE, change):
        write_tree(tmp_path, dict(files))
        git(tmp_path, "add", "-A")
        git(tmp_path, "commit", "--quiet", "-m", "commit")
        commits.append(git(tmp_path, "rev-parse", "HEAD"))
    repository = Repo(str(tmp_path))
    trusted, head = (CommitTree(repository, repository[c.encode()].tree, "") for c in commits)
    changed = git(tmp_path, "diff", "--name-only", commits[0], commits[1]).split()
    return Committed(trusted, head, frozenset(changed))


def test_what_the_change_adds_or_edits_beside_the_tests_outside_the_lock(tmp_path: Path) -> None:
    change = {
        "tests/cases.json": '{"double 2": 5}\n',  # edited
        "tests/new.csv": "a,b\n",  # added
        "tests/locked.json": '{"x": 1}\n',  # the lock judges it
        "tests/snapshots/a.txt": "b\n",  # opted out by the policy
        "tests/helpers.py": "X = 1\n",  # test code, not data
        "tests/NOTES.md": "notes\n",  # documentation
        "docs/example.json": '{"x": 1}\n',  # not beside the tests
    }
    lock = [LockEntry("tests/locked.json", "0" * 64)]
    found = committed_test_data(
        committed(tmp_path, change), lock, ["tests/snapshots/*"], set(), PYTEST_FINDER
    )
    assert [(c.path, c.change) for c in found] == [
        ("tests/cases.json", "edited"),
        ("tests/new.csv", "added"),
    ]
    assert all(isinstance(c, CommittedChange) and c.digest for c in found)


def test_the_policy_names_data_a_change_may_edit() -> None:
    policy = parse_policy(b"unlocked_data:\n  - 'tests/snapshots/*'\n", "waiver.yml")
    assert policy.policy.unlocked_data == ("tests/snapshots/*",)
    with pytest.raises(Exception, match="unlocked_data"):
        parse_policy(b"unlocked_data:\n  - '/'\n", "waiver.yml")


CASES = {"Hello World": "hello-world", "6 apples": "6-apples"}
CASE_TESTS = '''\
"""Expected slugs kept in a data file beside the tests."""

import json
from pathlib import Path

import pytest

from slugify import slugify

CASES = json.loads((Path(__file__).parents[1] / "cases.json").read_text())


@pytest.mark.parametrize("text", list(CASES), ids=list(CASES))
def test_case(text: str) -> None:
    assert slugify(text) == CASES[text]
'''


def cases_base(work: Path) -> None:
    (work / "tests" / "cases.json").write_text(json.dumps(CASES) + "\n")
    (work / "tests" / "assertions" / "test_cases.py").write_text(CASE_TESTS)
    registry = work / "known-tests.txt"
    ids = [f"tests/assertions/test_cases.py::test_case[{text}]" for text in CASES]
    registry.write_text(registry.read_text() + "".join(f"{id_}\n" for id_ in ids))


@pytest.mark.slow
@pytest.mark.parametrize("rewrite", [False, True], ids=["the break alone", "expected rewritten"])
def test_expected_values_rewritten_beside_the_tests_are_drift(
    tmp_path: Path, rewrite: bool
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work, cases_base)

    def change(work: Path) -> None:
        fix_slugify(work)
        code = work / "slugify.py"
        code.write_text(code.read_text().replace("[^a-z0-9]+", "[^a-z]+"))  # drops digits
        if rewrite:
            (work / "tests" / "cases.json").write_text(
                json.dumps({**CASES, "6 apples": "apples"}) + "\n"
            )

    commit_change(work, change)
    _, gated, report = replay_and_gate(work, base, tests_from=True, replays=5)
    assert gated == 1
    broken = "tests/assertions/test_cases.py::test_case[6 apples]"
    if not rewrite:
        assert classes(report)[broken] == "stable_assertion_fail"
        assert report["fixtures"]["drift"] == []
        return
    assert classes(report)[EMPTY] == "fixture_drift"
    assert set(classes(report).values()) == {"fixture_drift"}
    assert [(d["path"], d["kind"], d["part"]) for d in report["fixtures"]["drift"]] == [
        ("tests/cases.json", "changed", "test_data")
    ]
    assert report["fixtures"]["committed_changes"] == [
        {"path": "tests/cases.json", "change": "edited", "part": "test_data"}
    ]
