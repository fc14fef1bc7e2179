"""What the replays install, edited by the change: read from two commits, by value where the
file has a structure, so that only an edit of what is installed is a reach-in."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.commit_support import committed_change
from waiver.read.harness.reach_in import ReachIn
from waiver.runners.installs import INSTALLS, node_install_edits, python_install_edits
from waiver.runners.jest import JEST
from waiver.runners.pytest import PYTEST

PYPROJECT = """\
[project]
name = "demo"
dependencies = ["requests>=2"]

[project.optional-dependencies]
test = ["pytest", "hypothesis"]

[tool.ruff]
line-length = 100
"""
REFORMATTED = """\
[tool.ruff]
line-length = 120

[project]
name = "demo"
version = "2"
dependencies = [
    "requests>=2",  # HTTP
]

[project.optional-dependencies]
test = [ "pytest", "hypothesis" ]
"""
PACKAGE = """\
{
  "name": "demo",
  "version": "1.0.0",
  "scripts": {"test": "jest", "lint": "eslint ."},
  "devDependencies": {"jest": "29.7.0", "jest-junit": "16.0.0"}
}
"""


def python_edits(root: Path, base: dict[str, str], change: dict[str, str]) -> list[ReachIn]:
    root.mkdir(exist_ok=True)
    return python_install_edits(committed_change(root, base, change))


def node_edits(root: Path, base: dict[str, str], change: dict[str, str]) -> list[ReachIn]:
    root.mkdir(exist_ok=True)
    return node_install_edits(committed_change(root, base, change))


def test_a_new_test_dependency_is_named_at_its_table(tmp_path: Path) -> None:
    plugin = PYPROJECT.replace('"hypothesis"]', '"hypothesis", "pytest-green"]')
    found = python_edits(tmp_path, {"pyproject.toml": PYPROJECT}, {"pyproject.toml": plugin})
    assert found == [ReachIn("pyproject.toml", 5, f"{INSTALLS} ([project.optional-dependencies])")]


def test_a_reformatted_pyproject_and_an_edit_of_another_table_install_nothing_new(
    tmp_path: Path,
) -> None:
    found = python_edits(tmp_path, {"pyproject.toml": PYPROJECT}, {"pyproject.toml": REFORMATTED})
    assert found == []


@pytest.mark.parametrize(
    ("table", "text", "line"),
    [
        ("build-system", '[build-system]\nrequires = ["evil-backend"]\n', 1),
        ("dependency-groups", '[dependency-groups]\ntest = ["pytest-green"]\n', 1),
        ("tool.uv", '[tool.uv.sources]\npytest = { path = "vendor/pytest" }\n', 1),
        ("tool.poetry.dependencies", '[tool.poetry.dependencies]\npytest = "*"\n', 1),
        ("tool.hatch.envs", '[tool.hatch.envs.test]\ndependencies = ["x"]\n', 1),
    ],
)
def test_each_table_an_installer_reads_is_watched(
    tmp_path: Path, table: str, text: str, line: int
) -> None:
    found = python_edits(
        tmp_path, {"pyproject.toml": PYPROJECT}, {"pyproject.toml": text + PYPROJECT}
    )
    assert ReachIn("pyproject.toml", line, f"{INSTALLS} ([{table}])") in found


def test_requirement_lines_count_and_comments_do_not(tmp_path: Path) -> None:
    base = {"requirements-dev.txt": "pytest==8.3.0\nhypothesis\n"}
    commented = {"requirements-dev.txt": "# test tools\npytest==8.3.0  # pinned\n\nhypothesis\n"}
    assert python_edits(tmp_path / "a", base, commented) == []
    changed = {"requirements-dev.txt": "pytest @ git+https://example.invalid/pytest\nhypothesis\n"}
    assert python_edits(tmp_path / "b", base, changed) == [
        ReachIn("requirements-dev.txt", 0, f"{INSTALLS} (no longer pytest==8.3.0)"),
        ReachIn(
            "requirements-dev.txt", 1, f"{INSTALLS} (pytest @ git+https://example.invalid/pytest)"
        ),
    ]


def test_a_requirements_folder_and_constraints_are_requirement_files(tmp_path: Path) -> None:
    found = python_edits(
        tmp_path,
        {"README.md": "demo\n"},
        {"requirements/test.txt": "pytest-green\n", "constraints.txt": "pytest<9\n",
         "notes.txt": "not installed\n"},
    )  # fmt: skip
    assert found == [
        ReachIn("constraints.txt", 1, f"{INSTALLS} (pytest<9)"),
        ReachIn("requirements/test.txt", 1, f"{INSTALLS} (pytest-green)"),
    ]


def test_setup_cfg_install_keys_count_and_its_other_sections_do_not(tmp_path: Path) -> None:
    base = "[options]\ninstall_requires =\n    requests\n\n[flake8]\nmax-line-length = 100\n"
    other = base.replace("100", "120")
    assert python_edits(tmp_path / "a", {"setup.cfg": base}, {"setup.cfg": other}) == []
    extra = base + "\n[options.extras_require]\ntest = pytest-green\n"
    assert python_edits(tmp_path / "b", {"setup.cfg": base}, {"setup.cfg": extra}) == [
        ReachIn("setup.cfg", 8, f"{INSTALLS} ([options.extras_require])")
    ]


@pytest.mark.parametrize("name", ["setup.py", "poetry.lock", "uv.lock", "Pipfile.lock"])
def test_files_an_install_reads_whole_count_by_any_byte(tmp_path: Path, name: str) -> None:
    found = python_edits(tmp_path, {name: "one\n"}, {name: "two\n"})
    assert found == [ReachIn(name, 0, f"{INSTALLS} ({name} changed)")]


def test_a_file_that_cannot_be_read_is_named_not_skipped(tmp_path: Path) -> None:
    found = python_edits(tmp_path, {"pyproject.toml": PYPROJECT}, {"pyproject.toml": "[project\n"})
    assert len(found) == 1
    assert found[0].path == "pyproject.toml" and found[0].line == 0
    assert found[0].what.startswith(f"{INSTALLS}, and cannot be read (not valid TOML")


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("package.json", '{"dependencies": ' + "[" * 5000 + "]" * 5000 + "}", "nested too deep"),
        ("pyproject.toml", "[project]\ndependencies = " + "[" * 3000 + "]" * 3000, "too deep"),
        ("setup.cfg", "[options]\n[options]\n", "already exists"),
    ],
    ids=["deep JSON", "deep TOML", "a section twice"],
)
def test_hostile_declarations_are_named_never_a_traceback(
    tmp_path: Path, name: str, text: str, problem: str
) -> None:
    committed = committed_change(tmp_path, {"README": "x\n"}, {name: text})
    found = [*python_install_edits(committed), *node_install_edits(committed)]
    assert [(reach.path, reach.line) for reach in found] == [(name, 0)]
    assert found[0].what.startswith(f"{INSTALLS}, and cannot be read (")
    assert problem in found[0].what


def test_a_reporter_aliased_to_another_package_is_named(tmp_path: Path) -> None:
    forged = PACKAGE.replace('"jest-junit": "16.0.0"', '"jest-junit": "npm:green-junit@1.0.0"')
    found = node_edits(tmp_path, {"package.json": PACKAGE}, {"package.json": forged})
    assert found == [ReachIn("package.json", 5, f"{INSTALLS} (devDependencies)")]


def test_install_scripts_count_and_other_scripts_and_keys_do_not(tmp_path: Path) -> None:
    other = PACKAGE.replace('"1.0.0"', '"1.1.0"').replace("eslint .", "eslint src")
    assert node_edits(tmp_path / "a", {"package.json": PACKAGE}, {"package.json": other}) == []
    hook = PACKAGE.replace('"lint": ', '"postinstall": "node patch.js", "lint": ')
    assert node_edits(tmp_path / "b", {"package.json": PACKAGE}, {"package.json": hook}) == [
        ReachIn("package.json", 4, f"{INSTALLS} (scripts.postinstall)")
    ]


def test_lockfiles_and_registry_settings_count_and_installed_packages_are_harness(
    tmp_path: Path,
) -> None:
    found = node_edits(
        tmp_path,
        {"package.json": PACKAGE, "package-lock.json": "{}\n"},
        {"package.json": PACKAGE, "package-lock.json": '{"v": 3}\n',
         ".npmrc": "registry=https://example.invalid/\n",
         "node_modules/jest-junit/package.json": '{"dependencies": {"x": "1"}}\n'},
    )  # fmt: skip
    assert found == [
        ReachIn(".npmrc", 0, f"{INSTALLS} (.npmrc changed)"),
        ReachIn("package-lock.json", 0, f"{INSTALLS} (package-lock.json changed)"),
    ]


def test_each_runner_watches_its_own_installer(tmp_path: Path) -> None:
    committed = committed_change(
        tmp_path,
        {"package.json": PACKAGE, "requirements.txt": "pytest\n"},
        {"package.json": PACKAGE.replace("29.7.0", "30.0.0"), "requirements.txt": "pytest\nx\n"},
    )
    assert [reach.path for reach in PYTEST.reach_ins(committed)] == ["requirements.txt"]
    assert [reach.path for reach in JEST.reach_ins(committed)] == ["package.json"]
