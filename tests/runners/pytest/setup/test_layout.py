"""The layout `waiver init` finds from files alone, and the junitxml address of a node id."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from waiver.init.layout import Layout
from waiver.runners.pytest.setup.pytest_layout import find_layout

PROPERTY = "from hypothesis import given\n"


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize(
    ("config", "text"),
    [
        ("pytest.ini", "[pytest]\ntestpaths = checks more\n"),
        ("setup.cfg", "[metadata]\nname = x\n\n[tool:pytest]\ntestpaths =\n  checks\n  more\n"),
        ("pyproject.toml", '[tool.pytest.ini_options]\ntestpaths = ["checks", "more"]\n'),
        ("tox.ini", "[tox]\n\n[pytest]\ntestpaths = checks more\n"),
    ],
)
def test_testpaths_come_from_the_pytest_configuration(
    tmp_path: Path, config: str, text: str
) -> None:
    root = tree(tmp_path, {config: text, "checks/properties/test_p.py": PROPERTY,
                           "more/test_m.py": "", "tests/test_ignored.py": ""})  # fmt: skip
    layout = find_layout(str(root))
    assert (layout.pytest_config, layout.test_folders) == (config, ("checks", "more"))
    assert layout.property_suites == ("checks/properties",)


def test_a_pyproject_without_a_pytest_table_is_not_the_configuration(tmp_path: Path) -> None:
    root = tree(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n", "tests/test_a.py": ""})
    layout = find_layout(str(root))
    assert (layout.pytest_config, layout.test_folders) == (None, ("tests",))


def test_fixture_folders_in_several_places_share_the_deepest_common_folder(
    tmp_path: Path,
) -> None:
    root = tree(tmp_path, {
        "tests/unit/data/a.json": "{}", "tests/unit/data/fixtures/b.json": "{}",
        "tests/integration/testdata/c.bin": "x", "tests/properties/test_p.py": PROPERTY,
        "tests/properties/data/d.json": "{}", "tests/unit/test_u.py": "",
        "tests/integration/test_i.py": "",
    })  # fmt: skip
    layout = find_layout(str(root))
    assert layout.fixture_folders == ("tests/integration/testdata", "tests/unit/data")
    assert layout.fixtures_root == "tests"
    # A property suite's own data is no fixture folder, but data beside the tests all the same.
    assert layout.data_files == ("tests/properties/data/d.json",)
    assert layout.fixture_globs == (
        "integration/testdata/*", "unit/data/*", "properties/data/d.json"
    )  # fmt: skip


def test_a_folder_of_files_without_a_module_is_a_fixture_folder_whatever_its_name(
    tmp_path: Path,
) -> None:
    root = tree(tmp_path, {
        "tests/test_tags.py": "", "tests/manylinux/hello-x86_64": "\x7fELF",
        "tests/manylinux/build.sh": "", "tests/metadata/nested/METADATA": "",
        "tests/helpers/util.py": "", "tests/helpers/notes.txt": "",
        "tests/.hypothesis/examples/x": "", "tests/property/test_p.py": PROPERTY,
    })  # fmt: skip
    layout = find_layout(str(root))
    assert layout.fixture_folders == ("tests/manylinux", "tests/metadata")
    assert layout.data_files == ("tests/helpers/notes.txt",)
    assert layout.fixture_globs == ("manylinux/*", "metadata/*", "helpers/notes.txt")


def test_one_fixture_folder_is_the_fixtures_root_with_every_file(tmp_path: Path) -> None:
    layout = Layout(None, ("tests",), ("tests/properties",), ("fixtures",))
    assert (layout.fixtures_root, layout.fixture_globs) == ("fixtures", ())
    spread = Layout(None, ("tests",), (), ("fixtures", "tests/data"))
    assert (spread.fixtures_root, spread.fixture_globs) == (".", ("fixtures/*", "tests/data/*"))


def test_a_folder_of_hypothesis_modules_is_the_suite_and_scattered_ones_are_named(
    tmp_path: Path,
) -> None:
    root = tree(tmp_path / "own", {"tests/invariants/test_a.py": PROPERTY,
                                   "tests/invariants/helpers.py": "", "tests/test_b.py": ""})  # fmt: skip
    assert find_layout(str(root)).property_suites == ("tests/invariants",)
    mixed = tree(tmp_path / "mixed", {"tests/test_a.py": PROPERTY, "tests/test_b.py": ""})
    layout = find_layout(str(mixed))
    assert (layout.property_suites, layout.scattered_properties) == ((), ("tests/test_a.py",))
    assert layout.property_selection == ("-m", "hypothesis")


def test_a_test_folder_whose_one_module_uses_hypothesis_is_selected_not_a_suite(
    tmp_path: Path,
) -> None:
    root = tree(tmp_path, {"tests/test_a.py": PROPERTY, "tests/strategies.py": PROPERTY})
    layout = find_layout(str(root))
    assert (layout.property_suites, layout.property_selection) == ((), ("-m", "hypothesis"))


def test_an_empty_property_folder_is_no_suite(tmp_path: Path) -> None:
    root = tree(tmp_path, {"tests/properties/README": "soon", "tests/test_b.py": ""})
    assert find_layout(str(root)).property_suites == ()


def test_virtualenvs_and_symlinked_folders_are_not_searched(tmp_path: Path) -> None:
    root = tree(tmp_path, {"tests/.venv/pyvenv.cfg": "", "tests/.venv/lib/data/x": "",
                           "tests/env/pyvenv.cfg": "", "tests/env/fixtures/y": "",
                           "elsewhere/fixtures/z": "", "tests/test_a.py": ""})  # fmt: skip
    (root / "tests" / "linked").symlink_to(root / "elsewhere")
    assert find_layout(str(root)).fixture_folders == ()


def test_data_beside_the_tests_is_in_the_fixture_set_file_by_file(tmp_path: Path) -> None:
    root = tree(tmp_path, {
        "tests/test_calc.py": "", "tests/cases.json": "{}", "tests/expected [1].txt": "",
        "tests/README.md": "", "tests/helpers.py": "", "tests/__pycache__/x.json": "",
        "tests/.gitignore": "out/\n", "tests/out/result.json": "{}",
        "fixtures/a.json": "{}", "docs/example.json": "{}",
    })  # fmt: skip
    subprocess.run(["git", "init", "--quiet", str(root)], check=True)
    layout = find_layout(str(root))
    assert layout.fixture_folders == ("fixtures",)
    # Git ignores tests/out/; the README, the module and the bytecode are no data.
    assert layout.data_files == ("tests/cases.json", "tests/expected [1].txt")
    assert layout.fixtures_root == "."
    assert layout.fixture_globs == ("fixtures/*", "tests/cases.json", "tests/expected [[]1].txt")
