"""A mature tox-based library's first day, of python-dateutil's shape: a `src` layout, pytest's
configuration in `setup.cfg`, tox's `deps = -rrequirements-dev.txt` (the requirements glued
to their option), a test module that reads `locals()` around a star import, one that writes
`sys.modules` at import time to load a script under test, and one that clears the
library's modules in a fixture.

`waiver init` with only the waiver pin sets it up in one run: nothing of it is refused, the
install step brings what tox installs (a test needs freezegun, which only the requirements
file names), and the commands are proved in a fresh venv; the first gate on an honest change
is clean and a real bug is a stable failure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.init_support import (
    commit_as_base,
    copy_to_change,
    gate_written,
    installed_from_github,
    package_venv,
    venv_part,
    workflow_inputs,
)
from helpers.support import classes, git, write_tree
from waiver.cli import main

pytestmark = pytest.mark.slow

EASTER = """\
import datetime


def easter(year):
    \"\"\"Western Easter, by the anonymous Gregorian algorithm.\"\"\"
    a = year % 19
    b, c = divmod(year, 100)
    d, e = divmod(b, 4)
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    l = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l) // 451
    month, day = divmod(h + l - 7 * m + 114, 31)
    return datetime.date(year, month, day + 1)
"""
IMPORT_STAR = """\
\"\"\"Test for the "import *" functionality.\"\"\"
import pytest

prev_locals = list(locals())
from datelib import *

new_locals = {name: value for name, value in locals().items() if name not in prev_locals}
new_locals.pop("prev_locals")


def test_imported_modules():
    import datelib.easter

    assert datelib.easter == new_locals.pop("easter")
    assert not new_locals
"""
IMPORTS = """\
import sys

import pytest

MODULE_TYPE = type(sys)


@pytest.fixture
def clean_import():
    saved = {name: module for name, module in sys.modules.items() if name.startswith("datelib")}
    for name in saved:
        del sys.modules[name]
    yield
    for name in list(sys.modules):
        if name.startswith("datelib"):
            del sys.modules[name]
    sys.modules.update(saved)


def test_lazy_import(clean_import):
    import importlib

    assert isinstance(importlib.import_module("datelib.easter"), MODULE_TYPE)
"""
SCRIPT_TEST = """\
import importlib.util
import pathlib
import sys

SPEC = importlib.util.spec_from_file_location(
    "release_tool", pathlib.Path(__file__).parent.parent / "tools" / "release_tool.py"
)
TOOL = importlib.util.module_from_spec(SPEC)
sys.modules[SPEC.name] = TOOL
SPEC.loader.exec_module(TOOL)


def test_the_tool_names_the_release():
    assert TOOL.name(2024) == "datelib-2024"
"""
EASTER_TEST = """\
import datetime

from freezegun import freeze_time

from datelib.easter import easter


def test_easter_2024():
    assert easter(2024) == datetime.date(2024, 3, 31)


def test_easter_2025():
    assert easter(2025) == datetime.date(2025, 4, 20)


@freeze_time("2024-01-01")
def test_this_year():
    assert easter(datetime.date.today().year).month == 3
"""
PROPERTIES = """\
from hypothesis import given, strategies as st

from datelib.easter import easter


@given(st.integers(min_value=1583, max_value=4099))
def test_easter_is_a_sunday_in_spring(year):
    day = easter(year)
    assert day.weekday() == 6 and day.month in (3, 4)
"""
FILES = {
    "setup.cfg": "[metadata]\nname = datelib\nversion = 0\n\n[options]\npackage_dir =\n    =src\n"
    "packages = find:\n\n[options.packages.find]\nwhere = src\n\n"
    "[tool:pytest]\npython_files =\n    test_*.py\n    *_test.py\nxfail_strict = true\n"
    "filterwarnings =\n    error\nmarkers =\n    import_star\n",
    "pyproject.toml": '[build-system]\nrequires = ["setuptools"]\n'
    'build-backend = "setuptools.build_meta"\n',
    "tox.ini": "[tox]\nenvlist = py311,\n          docs\n\n[testenv]\n"
    "description = run the unit tests with pytest under {basepython}\n"
    'commands = python -m pytest {posargs: "{toxinidir}/tests"}\n'
    "deps = -rrequirements-dev.txt\n\n[testenv:docs]\n"
    "deps = -r docs/requirements-docs.txt\n       {[testenv]deps}\n",
    "requirements-dev.txt": "pytest >= 3.0\nfreezegun ; python_version != '3.3'\nhypothesis >= 3.30\n",
    "docs/requirements-docs.txt": "sphinx\n",
    ".gitignore": "__pycache__/\n.hypothesis/\n*.egg-info/\nreports/\nwaiver.json\nsummary.md\n",
    "src/datelib/__init__.py": '__all__ = ["easter"]\n\nfrom datelib import easter\n',
    "src/datelib/easter.py": EASTER,
    "tools/release_tool.py": "def name(year):\n    return f'datelib-{year}'\n",
    "tests/conftest.py": "import os\n\n\ndef pytest_collection_modifyitems(items):\n"
    "    for item in items:\n        item.user_properties.append(('tz', os.environ.get('TZ')))\n",
    "tests/test_import_star.py": IMPORT_STAR,
    "tests/test_imports.py": IMPORTS,
    "tests/test_release_tool.py": SCRIPT_TEST,
    "tests/test_easter.py": EASTER_TEST,
    "tests/property/test_easter_prop.py": PROPERTIES,
}
EASTER_2025 = "tests/test_easter.py::test_easter_2025"


@pytest.fixture(scope="module")
def first_day(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_tree(tmp_path_factory.mktemp("datelib"), FILES)
    with pytest.MonkeyPatch.context() as patch:
        installed_from_github(tmp_path_factory.mktemp("site"), patch)
        patch.chdir(root)
        assert main(["init"]) == 0
    return commit_as_base(root)


def test_init_sets_it_up_in_one_run_with_what_tox_installs(first_day: Path) -> None:
    inputs = workflow_inputs(first_day)
    assert inputs["setup-command"] == (
        "python -m pip install -e . -r requirements-dev.txt pytest hypothesis"
    )
    locked = [
        line.rsplit("  ", 1)[1] for line in (first_day / "fixture.lock").read_text().splitlines()
    ]
    # The harness: the configuration, the conftest and the property suite; no test module.
    assert locked == [
        "setup.cfg",
        "tests/conftest.py",
        "tests/property/test_easter_prop.py",
        "tox.ini",
    ]
    assert (first_day / "known-tests.txt").read_text().splitlines() == [
        "tests/property/test_easter_prop.py::test_easter_is_a_sunday_in_spring",
        "tests/test_easter.py::test_easter_2024",
        EASTER_2025,
        "tests/test_easter.py::test_this_year",
        "tests/test_import_star.py::test_imported_modules",
        "tests/test_imports.py::test_lazy_import",
        "tests/test_release_tool.py::test_the_tool_names_the_release",
    ]


def test_an_honest_change_is_clean_and_a_real_bug_fails(first_day: Path, tmp_path: Path) -> None:
    python = package_venv(tmp_path / "venv", ["pytest", "freezegun", "hypothesis"])
    replayed = venv_part(python, "PYTHONPATH=src")
    honest, base = copy_to_change(first_day, tmp_path / "honest")
    easter = honest / "src/datelib/easter.py"
    easter.write_text(
        easter.read_text().replace("    a = year % 19\n", "    a = year % 19  # golden\n")
    )
    git(honest, "commit", "--quiet", "-am", "a comment")
    code, report = gate_written(honest, base, replayed)
    assert (code, report["verdict"]) == (0, "clean"), report
    bug, base = copy_to_change(first_day, tmp_path / "bug")
    easter = bug / "src/datelib/easter.py"
    # A week early in years ending in 25: still a Sunday in spring, so the property holds.
    easter.write_text(easter.read_text().replace(
        "    return datetime.date(year, month, day + 1)\n",
        "    shift = datetime.timedelta(days=7 if year % 100 == 25 else 0)\n"
        "    return datetime.date(year, month, day + 1) - shift\n",
    ))  # fmt: skip
    git(bug, "commit", "--quiet", "-am", "a bug")
    code, report = gate_written(bug, base, replayed)
    assert code == 1
    assert classes(report)[EASTER_2025] == "stable_assertion_fail"
