"""The test environment a project declares for tox, nox or hatch, read from its files alone
(a noxfile is never run), in the install step `waiver init` writes; what is not literal is
a problem, numbered with the rest, saying what to write instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.init_support import FILES, init
from helpers.support import write_tree
from waiver.runners.pytest.setup.tool_envs import INSTEAD, read_tool_envs

LAYOUT = {
    "pyproject.toml": '[project]\nname = "lib"\nversion = "0"\n\n'
    "[project.optional-dependencies]\ntest = []\nslow = []\n\n"
    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "lib.py": "def add(a, b):\n    return a + b\n",
    "tests/test_lib.py": "from lib import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    "tests/properties/test_props.py": "from hypothesis import given, strategies as st\n\n"
    "from lib import add\n\n\n@given(st.integers())\ndef test_zero(a):\n    assert add(a, 0) == a\n",
    "requirements/test.txt": "freezegun\n",
}
TOX = """\
[tox]
envlist = py311

[testenv]
extras = slow
deps =
    pytest-timeout
    -r requirements/test.txt
commands = pytest

[testenv:tests]
deps =
    # what the suite needs
    pytest-timeout>=2
    -r requirements/test.txt
    pytest-randomly
"""
NOXFILE = """\
import pathlib

import nox

pathlib.Path("nox-ran").write_text("the noxfile was run")


@nox.session(python=["3.11", "3.12"], name="tests")
def run_the_tests(s):
    s.install("-e", ".[slow]")
    s.install("-r", "requirements/test.txt", "pytest-randomly")
    s.run("pytest")


@nox.session
def lint(session):
    session.install("ruff")
"""


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = write_tree(tmp_path / "lib", dict(LAYOUT))
    monkeypatch.chdir(root)
    return root


def test_tox_ini_gives_the_named_environments_deps_and_the_base_extras(repository: Path) -> None:
    write_tree(repository, {"tox.ini": TOX})
    envs = read_tool_envs()
    assert (envs.words, envs.extras, envs.problems) == (
        ["pytest-timeout>=2", "-r", "requirements/test.txt", "pytest-randomly"], ["slow"], [],
    )  # fmt: skip


def test_the_noxfile_is_read_not_run_and_only_its_test_session_counts(repository: Path) -> None:
    write_tree(repository, {"noxfile.py": NOXFILE})
    envs = read_tool_envs()
    assert (envs.words, envs.extras, envs.problems) == (
        ["-r", "requirements/test.txt", "pytest-randomly"], ["slow"], [],
    )  # fmt: skip
    assert not (repository / "nox-ran").exists()


@pytest.mark.parametrize(
    ("pyproject", "words"),
    [
        (
            '[tool.hatch.envs.default]\ndependencies = ["pytest-randomly"]\n'
            '[tool.hatch.envs.test]\nfeatures = ["slow"]\nextra-dependencies = ["freezegun"]\n',
            ["pytest-randomly", "freezegun"],
        ),
        (
            '[tool.tox.env_run_base]\ndeps = ["pytest-randomly"]\n'
            '[tool.tox.env.test]\nextras = ["slow"]\ndeps = ["-r requirements/test.txt"]\n',
            ["-r", "requirements/test.txt"],
        ),
        (
            '[tool.tox]\nlegacy_tox_ini = """\n[testenv]\ndeps = pytest-randomly\n'
            '[testenv:test]\nextras = slow\n"""\n',
            ["pytest-randomly"],
        ),
    ],
    ids=["hatch", "tox table", "tox legacy"],
)
def test_the_tables_of_pyproject_toml(repository: Path, pyproject: str, words: list[str]) -> None:
    path = repository / "pyproject.toml"
    path.write_text(path.read_text() + pyproject)
    envs = read_tool_envs()
    assert (envs.words, envs.extras, envs.problems) == (words, ["slow"], [])


# A mature library's tox.ini: the requirements file glued to its option, `{toxinidir}`, an
# inline comment, and another section's list named in this one's.
MATURE_TOX = """\
[tox]
envlist = py311, docs

[base]
deps =
    freezegun  # the clock in tests
    -c {toxinidir}/requirements/constraints.txt

[testenv]
deps = -rrequirements-dev.txt
       {[base]deps}
       --requirement={toxinidir}/requirements/test.txt
extras = slow
commands = python -m pytest {posargs}

[testenv:docs]
deps = sphinx
"""


def test_tox_s_own_forms_of_requirements_files_and_references_are_read(repository: Path) -> None:
    write_tree(repository, {
        "tox.ini": MATURE_TOX, "requirements-dev.txt": "pytest\n",
        "requirements/constraints.txt": "freezegun<2\n",
    })  # fmt: skip
    envs = read_tool_envs()
    assert (envs.words, envs.extras, envs.problems) == (
        ["-r", "requirements-dev.txt", "freezegun", "-c", "requirements/constraints.txt",
         "-r", "requirements/test.txt"],
        ["slow"],
        [],
    )  # fmt: skip


def test_a_reference_loop_stops_and_is_named(repository: Path) -> None:
    write_tree(repository, {"tox.ini": "[a]\ndeps = {[b]deps}\n[b]\ndeps = {[a]deps}\n"
                                       "[testenv]\ndeps = {[a]deps}\n"})  # fmt: skip
    [problem] = read_tool_envs().problems
    assert problem.startswith("tox.ini [testenv] deps: `{[a]deps}` is a substitution")


def test_what_is_not_a_literal_is_a_problem_saying_where_and_what_to_write_instead(
    repository: Path,
) -> None:
    write_tree(repository, {
        "tox.ini": "[base]\ndeps = mock\n\n[testenv]\ndeps =\n    {env:EXTRA_DEPS}\n"
                   "    py38: pytest-asyncio\n    -r missing.txt\n",
        "noxfile.py": "import nox\n\nDEPS = ['mock']\n\n\n@nox.session\ndef tests(session):\n"
                      "    session.install(*DEPS, 'pytest-randomly')\n",
        "hatch.toml": "[envs.test]\ndependencies = [1]\n",
    })  # fmt: skip
    envs = read_tool_envs()
    assert envs.problems == [
        f"tox.ini [testenv] deps: `{{env:EXTRA_DEPS}}` is a substitution, not a literal; {INSTEAD}",
        f"tox.ini [testenv] deps: `py38: pytest-asyncio` applies to some environments only; "
        f"{INSTEAD}",
        f"tox.ini [testenv] deps: `-r missing.txt` names no file of the repository; {INSTEAD}",
        f"noxfile.py line 8 (session.install in tests): an argument is not a literal string; "
        f"{INSTEAD}",
        f"hatch.toml [envs.test] dependencies is not an array of literal strings; {INSTEAD}",
    ]
    # What could be read is still taken, for the reader of the problems.
    assert envs.words == ["pytest-randomly"]


@pytest.mark.slow  # runs `waiver init` on a repository, its suite for real
def test_init_writes_the_tox_environment_into_the_setup_command(
    repository: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(repository, {"tox.ini": TOX})
    assert init(repository, "--dry-run") == 0
    printed = capsys.readouterr().out
    install = (
        "      setup-command: \"python -m pip install -e '.[test,slow]' -r requirements/test.txt "
        "'pytest-timeout>=2' pytest-randomly pytest hypothesis\"\n"
    )
    assert printed.count(install) == 1, printed


def test_init_names_what_it_cannot_read_numbered_with_the_rest_and_writes_nothing(
    repository: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(repository, {"tox.ini": "[testenv]\ndeps = {[base]deps}\n"})
    assert init(repository, "--fixtures", "nowhere") == 2
    assert capsys.readouterr().err.splitlines() == [
        "waiver: error: 2 problems, so nothing was written:",
        "  1. --fixtures nowhere: no such folder",
        f"  2. tox.ini [testenv] deps: `{{[base]deps}}` is a substitution, not a literal; "
        f"{INSTEAD}",
        "The written commands were not run: init runs them once these are settled.",
    ]
    assert not any((repository / name).exists() for name in FILES)


@pytest.mark.slow  # runs `waiver init` on a repository, its suite for real
def test_given_commands_still_get_the_install_step_which_setup_command_names(
    repository: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Given commands run after the install step, as the workflow runs them; what of tox
    init cannot read stops it still, and --setup-command, the remedy it names, settles it."""
    write_tree(repository, {"tox.ini": "[testenv]\ndeps = {[base]deps}\n"})
    command = 'python -m pytest --rootdir=. tests --junitxml="$WAIVER_JUNIT"'
    given = ["--test-command", command, "--property-command", command]
    assert init(repository, "--dry-run", *given) == 2
    assert "`{[base]deps}` is a substitution" in capsys.readouterr().err
    setup = "python -m pip install -e . pytest hypothesis freezegun"
    assert init(repository, "--dry-run", *given, "--setup-command", setup) == 0
    assert f'      setup-command: "{setup}"\n' in capsys.readouterr().out


def test_nox_s_glued_requirements_and_hatch_s_test_environment(repository: Path) -> None:
    write_tree(repository, {"noxfile.py": "import nox\n\n\n@nox.session\ndef tests(session):\n"
                                          "    session.install('-rrequirements/test.txt', '.[slow]')\n"})  # fmt: skip
    assert (read_tool_envs().words, read_tool_envs().extras) == (
        ["-r", "requirements/test.txt"], ["slow"]
    )  # fmt: skip
    (repository / "noxfile.py").unlink()
    path = repository / "pyproject.toml"
    path.write_text(
        path.read_text()
        + '[tool.hatch.envs.hatch-test]\nextra-dependencies = ["pytest-randomly"]\n'
        '[tool.hatch.envs.test]\ndependencies = ["never-read"]\n'
    )
    assert read_tool_envs().words == ["pytest-randomly"]
