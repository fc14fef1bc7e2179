"""Lines of the change's commit that can set the property suite's Hypothesis settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from dulwich.repo import Repo

from helpers.support import git, write_tree
from waiver.read.harness.reach_in import ReachIn, reach_in_blocker
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import CommitTree
from waiver.runners.pytest.property_settings import python_changes, settings_changes, text_changes

PROFILE = "from hypothesis import settings\n"


@pytest.mark.parametrize(
    ("source", "found"),
    [
        (
            PROFILE + "settings.register_profile('q', max_examples=1)\n",
            [
                (2, "registers a Hypothesis profile (register_profile)"),
                (2, "sets max_examples"),
            ],
        ),
        (
            PROFILE + "settings.load_profile('q')\n",
            [(2, "loads a Hypothesis profile (load_profile)")],
        ),
        (
            "import hypothesis as h\nFAST = h.settings(derandomize=True)\n",
            [(2, "makes Hypothesis settings (settings(...))"), (2, "sets derandomize")],
        ),
        (
            "from hypothesis import settings as s\n@s(deadline=None)\ndef f(): pass\n",
            [(2, "makes Hypothesis settings (settings(...))")],
        ),
        (PROFILE + "settings._current_profile = 'q'\n", [(2, "assigns settings._current_profile")]),
        ("os.environ['HYPOTHESIS_PROFILE'] = 'q'\n", [(1, "names HYPOTHESIS_PROFILE")]),
        ("ARGS = ['--hypothesis-seed=0']\n", [(1, "names --hypothesis-seed")]),
        ("any_object.load_profile('q')\n", [(1, "loads a Hypothesis profile (load_profile)")]),
    ],
)
def test_each_line_that_sets_hypothesis_settings_is_named(
    source: str, found: list[tuple[int, str]]
) -> None:
    assert python_changes(None, source.encode(), collected=False) == found


@pytest.mark.parametrize(
    "source",
    [
        '"""Properties run under HYPOTHESIS_PROFILE=ci, see --hypothesis-profile."""\n',
        "# settings.load_profile('q')\n",
        "from django.conf import settings\nsettings.DEBUG = True\nX = settings(max_age=1)\n",
        "from hypothesis import given, strategies\n",
        "not python (\n",
    ],
    ids=["docstring", "comment", "a project's own settings", "strategies", "not python"],
)
def test_prose_and_other_settings_set_nothing(source: str) -> None:
    assert python_changes(None, source.encode(), collected=False) == []


def test_only_new_lines_count_and_a_test_module_keeps_its_own_settings() -> None:
    before = PROFILE + "settings.load_profile('ci')\n"
    after = before + "\n@settings(max_examples=1)\ndef test_x(): pass\nsettings.load_profile('q')\n"
    assert python_changes(before.encode(), after.encode(), collected=False) == [
        (4, "makes Hypothesis settings (settings(...))"),
        (4, "sets max_examples"),
        (6, "loads a Hypothesis profile (load_profile)"),
    ]
    # A collected test's own `@settings` is part of its definition (an edit), not named here;
    # loading a profile changes every property after it, wherever it is done.
    assert python_changes(before.encode(), after.encode(), collected=True) == [
        (6, "loads a Hypothesis profile (load_profile)")
    ]


def test_text_files_name_new_hypothesis_variables_and_options() -> None:
    before = b"run: pytest tests/properties\nenv:\n  HYPOTHESIS_PROFILE: ci\n"
    after = (
        b"run: pytest tests/properties --hypothesis-profile=quick --hypothesis-seed 0\n"
        b"env:\n  HYPOTHESIS_PROFILE: ci\n  HYPOTHESIS_STORAGE_DIRECTORY: /tmp\n"
    )
    assert text_changes(before, after) == [
        (1, "names --hypothesis-profile"),
        (1, "names --hypothesis-seed"),
        (4, "names HYPOTHESIS_STORAGE_DIRECTORY"),
    ]
    assert text_changes(None, b"\xff\xfe not text HYPOTHESIS_X") == []


def test_the_change_commit_is_read_by_file_kind_and_trusted_collection(tmp_path: Path) -> None:
    git(tmp_path, "init", "--quiet")
    commits = []
    for files in (
        {"pytest.ini": "[pytest]\ntestpaths = tests\n", "tests/test_p.py": PROFILE},
        {
            "pytest.ini": "[pytest]\ntestpaths = tests\naddopts = --hypothesis-profile=quick\n",
            "tests/test_p.py": PROFILE + "@settings(max_examples=1)\ndef test_p(): pass\n",
            "tests/helpers.py": PROFILE + "QUICK = settings(max_examples=1)\n",
            ".github/workflows/waiver.yml": "env:\n  HYPOTHESIS_PROFILE: quick\n",
            "lib/__pycache__/m.cpython-311.pyc": "HYPOTHESIS_PROFILE",
        },
    ):
        write_tree(tmp_path, files)
        git(tmp_path, "add", "-A")
        git(tmp_path, "commit", "--quiet", "-m", "commit")
        commits.append(git(tmp_path, "rev-parse", "HEAD"))
    repository = Repo(str(tmp_path))
    trees = [CommitTree(repository, repository[c.encode()].tree, "") for c in commits]
    changed = frozenset(
        {"pytest.ini", "tests/test_p.py", "tests/helpers.py", ".github/workflows/waiver.yml"}
        | {"lib/__pycache__/m.cpython-311.pyc"}
    )
    assert settings_changes(Committed(trees[0], trees[1], changed)) == [
        ReachIn(".github/workflows/waiver.yml", 2, "names HYPOTHESIS_PROFILE"),
        ReachIn("pytest.ini", 3, "names --hypothesis-profile"),
        ReachIn("tests/helpers.py", 2, "makes Hypothesis settings (settings(...))"),
        ReachIn("tests/helpers.py", 2, "sets max_examples"),
    ]


def test_a_reach_in_that_names_hypothesis_names_the_property_suite() -> None:
    text = reach_in_blocker([ReachIn("calc.py", 1, "names hypothesis")])
    assert text.endswith("; the lines that name Hypothesis can weaken the property suite's run")
    assert "property suite" not in reach_in_blocker([ReachIn("calc.py", 1, "names pytest")])
