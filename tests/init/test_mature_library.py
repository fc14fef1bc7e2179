"""A mature library's first day: a test module that checks `from pkg import *`, a test that
calls `locals()`, a test that skips itself while it runs, a Hypothesis property folder, and
a pytest plugin the suite needs that only `requirements-dev.txt` names.

`waiver init` with only the waiver pin sets it up in one run, proving its commands in a
fresh venv; the first gate on an honest change is clean.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.init_support import commit_as_base, copy_to_change, gate_written, installed_from_github
from helpers.support import git, write_tree
from waiver.cli import main

FILES = {
    "pyproject.toml": '[project]\nname = "cal"\nversion = "0"\n\n'
    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\nfilterwarnings = ["error"]\n',
    "requirements-dev.txt": "pytest-xdist\n",
    ".gitignore": "__pycache__/\n.hypothesis/\n*.egg-info/\nreports/\nwaiver.json\nsummary.md\n",
    "cal/__init__.py": "import sys\n\nfrom cal.core import *\n\nVERSION = sys.version_info\n",
    "cal/core.py": "__all__ = ['days']\n\n\ndef days(n):\n    return n * 86400\n",
    "tests/test_star.py": "from cal import *\n\n\ndef test_days():\n    assert days(1) == 86400\n",
    "tests/test_locals.py": "def test_locals():\n    x = 1\n    assert locals() == {'x': 1}\n",
    "tests/test_service.py": "import pytest\n\n\ndef test_needs_redis():\n"
    "    pytest.skip('no redis here')\n",
    "tests/test_plugin.py": "import xdist\n\n\ndef test_runs_with_the_plugin():\n"
    "    assert xdist\n",
    "tests/properties/test_props.py": "from hypothesis import given, strategies as st\n\n"
    "from cal import days\n\n\n@given(st.integers(0, 1000))\ndef test_days_grow(n):\n"
    "    assert days(n + 1) > days(n)\n",
}


@pytest.mark.slow
def test_init_sets_a_mature_library_up_in_one_run_and_an_honest_change_is_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_tree(tmp_path / "cal", FILES)
    installed_from_github(tmp_path / "site", monkeypatch)
    monkeypatch.chdir(root)
    assert main(["init"]) == 0, capsys.readouterr().err
    registry = (root / "known-tests.txt").read_text().splitlines()
    assert registry == [
        "tests/properties/test_props.py::test_days_grow",
        "tests/test_locals.py::test_locals",
        "tests/test_plugin.py::test_runs_with_the_plugin",
        "tests/test_star.py::test_days",
    ]
    # The library's source, star-imported by a test, is not harness.
    assert "cal/" not in (root / "fixture.lock").read_text()
    assert "-r requirements-dev.txt" in (root / ".github/workflows/waiver.yml").read_text()
    monkeypatch.chdir(tmp_path)
    commit_as_base(root)
    change, base = copy_to_change(root, tmp_path / "change")
    core = change / "cal/core.py"
    core.write_text(core.read_text().replace("n * 86400", "86400 * n"))
    git(change, "commit", "--quiet", "-am", "an honest change")
    code, report = gate_written(change, base)
    assert (code, report["verdict"]) == (0, "clean"), report
