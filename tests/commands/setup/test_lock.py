"""`waiver lock`: the lock written, and the line it prints for each harness file whose name
does not say why it is locked."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.support import write_tree
from waiver.cli import main


def test_the_lock_says_why_each_file_is_locked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_tree(tmp_path, {
        "pytest.ini": "[pytest]\naddopts = -p tests.plugins.forge\n",
        "tests/__init__.py": "",
        "tests/plugins/__init__.py": "",
        "tests/plugins/forge.py": "",
        "tests/conftest.py": "",
        "json.py": "",
        "tools/hooks.py": "pytest_plugins = []\n",
        "fixtures/a.json": "{}\n",
    })  # fmt: skip
    assert main(["lock", "--root", str(root), "--fixtures", str(root / "fixtures"),
                 "--out", str(root / "fixture.lock")]) == 0  # fmt: skip
    assert capsys.readouterr().out.splitlines()[1:] == [
        "  json.py: imported in place of the module json",
        "  tests/__init__.py: the plugin tests.plugins.forge, named by -p in pytest.ini",
        "  tests/plugins/__init__.py: the plugin tests.plugins.forge, named by -p in pytest.ini",
        "  tests/plugins/forge.py: the plugin tests.plugins.forge, named by -p in pytest.ini",
        "  tools/hooks.py: sets pytest_plugins",
    ]
