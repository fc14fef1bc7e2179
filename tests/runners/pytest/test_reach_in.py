"""Source code that newly reaches into the test runner, read from two commits."""

from __future__ import annotations

from pathlib import Path

import pytest
from dulwich.repo import Repo

from helpers.support import git
from waiver.read.harness.listing import walk
from waiver.read.harness.reach_in import SHOWN, ReachIn, reach_in_blocker
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import CommitTree, DiskTree
from waiver.runners.pytest.harness.collected import collection, folders_above
from waiver.runners.pytest.python_reach import new_reach_ins, reaches


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import pytest\n", [(1, "names pytest")]),
        ("x = 1\nfrom _pytest.config import Config\n", [(2, "names _pytest")]),
        ("import pluggy as p\n", [(1, "names pluggy")]),
        ("from hypothesis import settings\n", [(1, "names hypothesis")]),
        ("def pytest_configure(config):\n    pass\n", [(1, "names pytest_configure")]),
        ("m = __import__('pytest')\n", [(1, "imports by name (__import__)"), (1, "names pytest")]),
        ("import importlib as il\nil.reload(x)\n", [(1, "imports by name (importlib)")]),
        (
            "from importlib import import_module as load\n",
            [(1, "imports by name (import_module)"), (1, "imports by name (importlib)")],
        ),
        ("load('_pytest.reports')\n", [(1, "names _pytest.reports")]),
        ("import atexit\n", [(1, "registers exit hooks (atexit)")]),
        ("os.environ['WAIVER_JUNIT']\n", [(1, "names WAIVER_JUNIT")]),
        ("os.environ.get('PYTEST_ADDOPTS')\n", [(1, "names PYTEST_ADDOPTS")]),
        ("os.environ['HYPOTHESIS_PROFILE'] = 'ci'\n", [(1, "names HYPOTHESIS_PROFILE")]),
        ("path = 'out/junit.xml'\n", [(1, "names junit.xml")]),
        ("open('tests/conftest.py')\n", [(1, "names conftest.py")]),
        ("sys.modules['json'] = fake\n", [(1, "uses sys.modules")]),
        ("r = sys.modules.get('json')\n", [(1, "uses sys.modules")]),  # a read counts
        ("import sys as s\nx = s.modules\n", [(2, "uses sys.modules")]),
        ("from sys import modules\n", [(1, "uses sys.modules")]),
        ("x = '\\x5fpytest'\n", [(1, "names _pytest")]),  # the value, not the spelling
        ("x = ('_py'\n     'test')\n", [(1, "names _pytest")]),  # pieces side by side
        ("x = f'{os.environ[\"WAIVER_JUNIT\"]}'\n", [(1, "names WAIVER_JUNIT")]),
        ("import \uff50ytest\n", [(1, "names pytest")]),  # NFKC, as Python reads names
        ("# coding: unicode_escape\nimport \\u0070ytest\n", [(2, "names pytest")]),
        ("def f():\n    import pytest\n", [(2, "names pytest")]),
    ],
)
def test_each_line_that_names_the_runner_is_a_reach_in(
    source: str, found: list[tuple[int, str]]
) -> None:
    assert reaches(None, source.encode()) == sorted(found)


@pytest.mark.parametrize(
    "source",
    [
        "import os\nimport pytesting\nimport hypothetical\n",
        '"""A module that pytest tests, with a conftest and WAIVER_JUNIT."""\n',
        "def f():\n    '''Reads sys.modules and junit.'''\n    return 1\n",
        "class C:\n    'atexit, importlib'\n",
        "x = 1  # pytest, _pytest.reports, sys.modules, atexit\n",
        "self.modules = []\n",  # not `sys`
        "from .pytests import helper\n",
        "def broken(:\n    import pytest\n",  # Python cannot import it
    ],
)
def test_prose_and_lookalikes_are_no_reach(source: str) -> None:
    assert reaches(None, source.encode()) == []


def test_only_lines_the_change_adds_or_changes_count() -> None:
    before = b"import pytest\nimport atexit\nx = 1\n"
    after = (
        b"import pytest  # a new comment on an old line\n"
        b"x = 2\n"
        b"import   atexit\n"  # the same tokens, laid out anew
        b"import pytest\n"  # a second import is a new one
    )
    assert reaches(before, after) == [(4, "names pytest")]


def test_a_line_changed_beside_a_runner_name_on_it_counts() -> None:
    before = b"import sys\nr = sys.modules.get('a')\n"
    after = b"import sys\nr = sys.modules.get('_pytest.reports')\n"
    assert reaches(before, after) == [(2, "names _pytest.reports"), (2, "uses sys.modules")]


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import os\nDEBUG = os.environ.get('CI') == 'true'\n", [(2, "reads how it is run (CI)")]),
        ("import os\nif 'GITHUB_ACTIONS' in os.environ:\n    x = 1\n", [(2, "reads how it is run (GITHUB_ACTIONS)")]),
        ("import os\nif os.getenv('PYTEST_CURRENT_TEST'):\n    x = 1\n", [(2, "names PYTEST_CURRENT_TEST")]),
        ("import sys\nif 'pytest' in sys.modules:\n    x = 1\n", [(2, "names pytest"), (2, "uses sys.modules")]),
        ("import sys\nif sys.argv[0].endswith('pytest'):\n    x = 1\n", [(2, "names pytest")]),
        ("import builtins\nbuiltins.len = lambda x: 0\n", [(2, "replaces what assertions rely on (builtins.len)")]),
        ("__builtins__['isinstance'] = f\n", [(1, "replaces what assertions rely on (__builtins__['isinstance'])")]),
        ("import builtins as b\nsetattr(b, 'len', f)\n", [(2, "replaces what assertions rely on (setattr(b, 'len', f))")]),
        ("import operator\noperator.eq = lambda a, b: True\n", [(2, "replaces what assertions rely on (operator.eq)")]),
        ("from unittest import case\ndel case.TestCase.assertEqual\n", [(2, "replaces what assertions rely on (case.TestCase.assertEqual)")]),
        ("import unittest.case as uc\nuc.TestCase.assertEqual = f\n", [(2, "replaces what assertions rely on (uc.TestCase.assertEqual)")]),
        ("class Total(int):\n    def __eq__(self, other):\n        return True\n", [(2, "redefines __eq__ of a subclass of int")]),
        ("class Name(str):\n    def __bool__(self):\n        return True\n", [(2, "redefines __bool__ of a subclass of str")]),
    ],
)  # fmt: skip
def test_a_line_that_tells_it_runs_under_test_or_replaces_what_assertions_rely_on_is_a_reach_in(
    source: str, found: list[tuple[int, str]]
) -> None:
    assert reaches(None, source.encode()) == sorted(found)


@pytest.mark.parametrize(
    "source",
    [
        "import builtins\nx = builtins.len(y)\n",
        "from operator import eq\neq = 1\n",  # a name rebound, not the module's
        "import operator\nkey = operator.itemgetter(1)\n",
        "class Point:\n    def __eq__(self, other):\n        return True\n",
        "class Total(int):\n    def __repr__(self):\n        return 'total'\n",
        "CIRCLE = 'CI-circle'\n",
    ],
)
def test_library_code_that_only_uses_them_is_no_reach(source: str) -> None:
    assert reaches(None, source.encode()) == []


def test_a_module_that_already_read_ci_and_keeps_the_line_is_no_reach() -> None:
    before = b"import os\nCI = os.environ.get('CI')\ndef f():\n    return 1\n"
    after = b"import os\n\nCI = os.environ.get('CI')\ndef f():\n    return 2\n"
    assert reaches(before, after) == []
    assert reaches(before, after + b"LOCAL = os.environ.get('CI')\n") == [
        (6, "reads how it is run (CI)")
    ]


def write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


@pytest.mark.parametrize(
    ("files", "collected", "not_collected"),
    [
        (
            {},
            ["test_x.py", "lib/x_test.py", "tests/test_y.py", "a/conftest.py"],
            ["tests/helpers.py", "testing/speedups.py", "tests/__init__.py", "testsuite.py"],
        ),
        (
            {"pytest.ini": "[pytest]\ntestpaths = tests\npython_files = check_*.py\n"},
            ["tests/check_a.py", "tests/deep/check_b.py", "lib/conftest.py"],
            ["tests/test_a.py", "lib/check_a.py", "check_a.py"],
        ),
        (
            {"pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["sub*"]\n'},
            ["sub1/test_a.py", "subway/x/test_b.py"],
            ["tests/test_a.py"],
        ),
        (
            # A pyproject.toml without pytest's table, and a setup.cfg with its section.
            {
                "pyproject.toml": "[project]\nname = 'x'\n",
                "setup.cfg": "[tool:pytest]\npython_files = *_spec.py\n",
            },
            ["a_spec.py"],
            ["test_a.py"],
        ),
        (
            # A project's configuration in its folder, and the root's: either may be run.
            {
                "app/tox.ini": "[pytest]\ntestpaths = checks\n",
                "pytest.ini": "[pytest]\ntestpaths = tests\n",
            },
            ["app/checks/test_a.py", "tests/test_b.py"],
            ["app/lib/test_c.py", "lib/test_d.py"],
        ),
    ],
)
def test_test_code_is_what_the_trusted_configuration_collects(
    tmp_path: Path, files: dict[str, str], collected: list[str], not_collected: list[str]
) -> None:
    write(tmp_path, files)
    tree = DiskTree(str(tmp_path))
    found = collection(tree, walk(tree).folders)
    assert [path for path in collected if not found.is_test_code(path)] == []
    assert [path for path in not_collected if found.is_test_code(path)] == []


def test_the_configurations_that_can_apply_lie_in_the_folders_above() -> None:
    assert folders_above(["a/b/c.py", "d.py"]) == {"", "a", "a/b"}


def commit(work: Path, files: dict[str, str]) -> str:
    write(work, files)
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "commit")
    return git(work, "rev-parse", "HEAD")


def test_only_what_the_change_adds_to_modules_pytest_does_not_collect_is_new(
    tmp_path: Path,
) -> None:
    git(tmp_path, "init", "--quiet")
    base = commit(
        tmp_path,
        {
            "pytest.ini": "[pytest]\ntestpaths = tests\n",
            "app/pytest.ini": "[pytest]\npython_files = *.py\n",  # app/ collects every module
            "lib/plugin.py": "import pytest\n",
            "lib/core.py": "x = 1\n",
            "tests/test_t.py": "",
        },
    )
    head = commit(
        tmp_path,
        {
            "lib/plugin.py": "import pytest\n\nimport os\n",  # already there: not new
            "lib/core.py": "x = 1\nimport atexit\n# pytest\nimport pytest\n",
            "lib/new.py": "import sys\nsys.modules['json'] = None\n",
            "testing/speedups.py": "import _pytest.reports\n",  # by its folder, no test code
            "lib/test_lookalike.py": "import pluggy\n",  # outside testpaths: not collected
            "tests/test_t.py": "import pytest\n",  # collected: test code
            "tests/conftest.py": "import pytest\n",  # loaded: harness, locked
            "app/core.py": "import pytest\n",  # collected by app/pytest.ini
        },
    )
    repository = Repo(str(tmp_path))
    trees = [CommitTree(repository, repository[c.encode()].tree, "") for c in (base, head)]
    changed = frozenset(
        {"lib/plugin.py", "lib/core.py", "lib/new.py", "testing/speedups.py"}
        | {"lib/test_lookalike.py", "tests/test_t.py", "tests/conftest.py", "app/core.py"}
    )
    assert new_reach_ins(Committed(trees[0], trees[1], changed)) == [
        ReachIn("lib/core.py", 2, "registers exit hooks (atexit)"),
        ReachIn("lib/core.py", 4, "names pytest"),
        ReachIn("lib/new.py", 2, "uses sys.modules"),
        ReachIn("lib/test_lookalike.py", 1, "names pluggy"),
        ReachIn("testing/speedups.py", 1, "names _pytest"),
    ]


def test_the_blocker_names_a_bounded_number_of_reaches() -> None:
    many = [ReachIn(f"m{n}.py", 1, "names pytest") for n in range(SHOWN + 5)]
    text = reach_in_blocker(many)
    assert text.count("names pytest") == SHOWN
    assert text.endswith("; and 5 more)")
