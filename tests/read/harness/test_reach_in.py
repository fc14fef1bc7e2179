"""Source code that newly reaches into the test runner, read from two commits."""

from __future__ import annotations

from pathlib import Path

import pytest
from dulwich.repo import Repo

from helpers.support import git
from waiver.read.harness.reach_in import (
    SHOWN,
    ReachIn,
    constructs,
    is_test_code,
    new_reach_ins,
    reach_in_blocker,
)
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import CommitTree


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import pytest\n", {"imports pytest": 1}),
        ("x = 1\nfrom _pytest.config import Config\n", {"imports _pytest.config": 2}),
        ("import pluggy as p\n", {"imports pluggy": 1}),
        ("m = __import__('pytest')\n", {"imports pytest": 1}),
        ("importlib.import_module('_pytest.main')\n", {"imports _pytest.main": 1}),
        ("import atexit\n", {"registers exit hooks (atexit)": 1}),
        ("from atexit import register\n", {"registers exit hooks (atexit)": 1}),
        ("os.environ['WAIVER_JUNIT']\n", {"names WAIVER_JUNIT": 1}),
        ("os.environ.get('PYTEST_ADDOPTS')\n", {"names PYTEST_ADDOPTS": 1}),
        ("sys.modules['pytest'] = fake\n", {"writes sys.modules": 1}),
        ("sys.modules.setdefault('x', m)\n", {"writes sys.modules": 1}),
        ("def f():\n    import pytest\n", {"imports pytest": 2}),
    ],
)
def test_each_reach_into_the_runner_is_named_with_its_first_line(
    source: str, found: dict[str, int]
) -> None:
    assert constructs(source.encode()) == found


@pytest.mark.parametrize(
    "source",
    [
        "import os\nimport pytesting\n",
        "'pytest is named in prose'\n",
        "x = sys.modules['pytest']\n",  # a read, no write
        "LABEL = 'Waiver_junit'\n",
        "from .pytest import helper\n",  # a module of the project's own
        "def broken(:\n",  # Python cannot import it
    ],
)
def test_what_only_looks_alike_is_no_reach(source: str) -> None:
    assert constructs(source.encode()) == {}


def test_test_code_is_not_looked_at() -> None:
    for path in ("tests/helpers.py", "src/test/x.py", "conftest.py", "lib/test_x.py", "x_test.py"):
        assert is_test_code(path)
    for path in ("src/lib/core.py", "testsuite.py", "lib/contest.py"):
        assert not is_test_code(path)


def commit(work: Path, files: dict[str, str]) -> str:
    for path, text in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text)
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "commit")
    return git(work, "rev-parse", "HEAD")


def test_only_what_the_change_adds_to_its_source_is_new(tmp_path: Path) -> None:
    git(tmp_path, "init", "--quiet")
    base = commit(
        tmp_path,
        {"lib/plugin.py": "import pytest\n", "lib/core.py": "x = 1\n", "tests/t.py": ""},
    )
    head = commit(
        tmp_path,
        {
            "lib/plugin.py": "import pytest\nimport pytest\n",  # already there: not new
            "lib/core.py": "x = 1\nimport atexit\nimport pytest\n",
            "lib/new.py": "import sys\nsys.modules['pytest'] = None\n",
            "tests/t.py": "import pytest\n",  # test code
        },
    )
    repository = Repo(str(tmp_path))
    trees = [CommitTree(repository, repository[c.encode()].tree, "") for c in (base, head)]
    changed = frozenset({"lib/plugin.py", "lib/core.py", "lib/new.py", "tests/t.py"})
    assert new_reach_ins(Committed(trees[0], trees[1], changed)) == [
        ReachIn("lib/core.py", 2, "registers exit hooks (atexit)"),
        ReachIn("lib/core.py", 3, "imports pytest"),
        ReachIn("lib/new.py", 2, "writes sys.modules"),
    ]


def test_the_blocker_names_a_bounded_number_of_reaches() -> None:
    many = [ReachIn(f"m{n}.py", 1, "imports pytest") for n in range(SHOWN + 5)]
    text = reach_in_blocker(many)
    assert text.count("imports pytest") == SHOWN
    assert text.endswith("; and 5 more)")
