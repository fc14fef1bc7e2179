"""Hostile harness files: a change plants what the resolver reads; the answer is 1 or 2."""

from __future__ import annotations

import os

import pytest

from helpers.hostile_support import Repo, Run
from helpers.support import git
from waiver.cli import main

NESTED = "x = " + "[" * 500 + "\n"


@pytest.mark.parametrize("where", ["pyproject.toml", "sub/pyproject.toml", "pytest.toml"])
def test_deeply_nested_toml_is_an_input_error_naming_the_file(
    repo: Repo, checked_gate: Run, where: str
) -> None:
    (repo.root / where).parent.mkdir(exist_ok=True)
    (repo.root / where).write_text(NESTED)
    code, _, err = checked_gate()
    assert code == 2
    assert f"waiver: error: {where}: not valid TOML: nested too deep" in err


def committed(repo: Repo) -> str:
    git(repo.root, "init", "--quiet")
    git(repo.root, "add", "-A", "--", ".", ":!reports", ":!properties.xml")
    git(repo.root, "commit", "--quiet", "-m", "base")
    return git(repo.root, "rev-parse", "HEAD")


def test_every_command_that_resolves_the_harness_refuses_nested_toml(
    repo: Repo, capfd: pytest.CaptureFixture[str]
) -> None:
    base = committed(repo)
    (repo.root / "pyproject.toml").write_text(NESTED)
    root = ["--root", str(repo.root), "--lock", str(repo.root / "fixture.lock")]
    commands = [
        ["lock", "--root", str(repo.root), "--fixtures", str(repo.root / "fixtures"),
         "--out", str(repo.root / "new.lock")],
        ["restore-tests", "--from", base, *root],
        ["replay", "-n", "1", "--out", str(repo.root / "out"), "--tests-from", base, *root,
         "--", "true"],
        repo.args("--trusted-ref", base),
    ]  # fmt: skip
    for command in commands:
        assert main(command) == 2, command
        err = capfd.readouterr().err
        assert "pyproject.toml: not valid TOML: nested too deep" in err, command
        assert "Traceback" not in err
    assert not (repo.root / "new.lock").exists()


def test_a_fixture_name_that_is_not_utf8_is_an_input_error_naming_it_escaped(
    repo: Repo, checked_gate: Run
) -> None:
    (repo.root / "fixtures").joinpath(os.fsdecode(b"b\xff.json")).write_text("{}")
    code, _, err = checked_gate()
    assert code == 2
    assert "waiver: error: fixtures/b\\xff.json: a file name that is not UTF-8" in err


def test_a_conftest_in_a_folder_whose_name_is_not_utf8_is_an_input_error(
    repo: Repo, checked_gate: Run
) -> None:
    folder = repo.root / os.fsdecode(b"t\xe9sts")
    folder.mkdir()
    (folder / "conftest.py").write_text("")
    code, _, err = checked_gate()
    assert code == 2
    assert "waiver: error: t\\xe9sts/conftest.py: a file name that is not UTF-8" in err


def test_a_path_longer_than_the_system_allows_is_an_input_error(
    repo: Repo, checked_gate: Run
) -> None:
    folder = os.open(repo.root / "reports", os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(25):  # 25 names of 200 bytes: past PATH_MAX
            os.mkdir("d" * 200, dir_fd=folder)
            inner = os.open("d" * 200, os.O_RDONLY | os.O_DIRECTORY, dir_fd=folder)
            os.close(folder)
            folder = inner
    finally:
        os.close(folder)
    code, _, err = checked_gate()
    assert code == 2
    assert "the path is longer than the system allows" in err


PLUGINS = {
    "comprehension": "pytest_plugins = [name for name in ('a', 'b')]\n",
    "call": "import os\npytest_plugins = os.environ['PLUGINS'].split(',')\n",
    "setattr": "import sys\nsetattr(sys.modules[__name__], 'pytest_plugins', ['a'])\n",
    "globals": "globals()['pytest_plugins'] = ['a']\n",
    "import": "from helpers import pytest_plugins\n",
    "loop": "for pytest_plugins in (['a'],):\n    pass\n",
    "function": "def load():\n    global pytest_plugins\n    pytest_plugins = ['a']\n",
    "tuple target": "pytest_plugins, other = ['a'], 1\n",
}


@pytest.mark.parametrize("name", PLUGINS)
def test_a_plugin_list_that_is_not_a_literal_is_an_input_error_unless_globs_name_its_files(
    repo: Repo, checked_gate: Run, name: str
) -> None:
    (repo.root / "plugins").mkdir()
    (repo.root / "pytest.ini").write_text("[pytest]\naddopts = -p plugins.x\n")
    (repo.root / "plugins" / "x.py").write_text(PLUGINS[name])
    code, _, err = checked_gate()
    assert code == 2
    assert "waiver: error: plugins/x.py: sets pytest_plugins to something that is not" in err
    assert "`harness:` globs in the policy file" in err
    # A glob for other files says nothing of what this list loads.
    (repo.root / "waiver.yml").write_text('registry: none\nharness: ["fixtures/*.json"]\n')
    assert checked_gate()[0] == 2
    (repo.root / "waiver.yml").write_text(
        'registry: none\nharness: ["fixtures/*.json", "plugins/x.py"]\n'
    )
    code, out, _ = checked_gate()
    assert code == 1  # now read: the plugin and pytest.ini are harness the lock does not list
    assert "  plugins/x.py: not_in_lock" in out


@pytest.mark.parametrize("name", PLUGINS)
def test_a_test_module_s_plugin_list_that_is_not_a_literal_is_no_error_and_no_harness(
    repo: Repo, checked_gate: Run, name: str
) -> None:
    """A test module stays a test: the verdict replays run the base's test tree, so what
    it binds decides nothing there, and an edit of it is an edited test."""
    (repo.root / "tests").mkdir()
    (repo.root / "tests" / "test_x.py").write_text(PLUGINS[name])
    _, out, err = checked_gate(codes=(0,))
    assert "tests/test_x.py" not in out + err


def test_a_module_that_mentions_pytest_plugins_but_does_not_parse_is_an_input_error(
    repo: Repo, checked_gate: Run
) -> None:
    (repo.root / "helper.py").write_text("pytest_plugins = [\n")
    code, _, err = checked_gate()
    assert code == 2
    assert "helper.py: mentions pytest_plugins but cannot be parsed as Python" in err


def test_a_symlinked_plugin_module_is_an_input_error(repo: Repo, checked_gate: Run) -> None:
    (repo.root / "conftest.py").write_text('pytest_plugins = "helpers.plugin"\n')
    (repo.root / "helpers").mkdir()
    (repo.root / "helpers" / "plugin.py").symlink_to(repo.secret)
    code, _, err = checked_gate()
    assert code == 2
    assert "waiver: error: helpers/plugin.py: a symlink in the test harness" in err


def test_a_planted_virtualenv_marker_hides_no_conftest(repo: Repo, checked_gate: Run) -> None:
    venv = repo.root / "tests"
    (venv / "lib" / "python3.12" / "site-packages").mkdir(parents=True)
    (venv / "bin").mkdir()
    (venv / "bin" / "python").write_text("")
    (venv / "pyvenv.cfg").write_text("home = /usr\n")
    (venv / "conftest.py").write_text("")
    code, out, _ = checked_gate()
    assert code == 1
    assert "  tests/conftest.py: not_in_lock" in out
