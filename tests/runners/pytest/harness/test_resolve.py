"""The harness resolver, on small trees written here: what pytest would load, from files alone."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from helpers.support import git, resolved, write_tree
from waiver.errors import InputError
from waiver.read.harness.listing import is_module_file
from waiver.read.harness.named import Harness, harness_in_tree, harness_pairs
from waiver.read.trusted.git import GitRevision
from waiver.read.trusted.trees import DiskTree, no_folder
from waiver.runners.pytest.harness.finder import PYTEST_FINDER
from waiver.runners.pytest.harness.plugin_names import module_plugins
from waiver.runners.pytest.harness.plugin_options import (
    entry_point_modules,
    ini_values,
    plugin_options,
    split_options,
    toml_values,
)
from waiver.runners.pytest.harness.resolve import resolve_harness

# --- reading configuration -------------------------------------------------------------


def test_plugin_options_are_the_names_after_p() -> None:
    words = ["-q", "-p", "one", "-ptwo", "-p", "no:cacheprovider", "-pno:x", "-p", "a.b_c"]
    assert plugin_options([*words, "-p"]) == ["one", "two", "a.b_c"]
    assert plugin_options(["-p", "not a module", "-p", "1st", "-p", "a..b", "-x", "p"]) == []
    assert plugin_options(["--pdb", "-p", "x.y"]) == ["x.y"]


def test_options_are_split_like_a_shell_and_unbalanced_quotes_still_read() -> None:
    assert split_options(['-p "one" -q', "-ptwo"]) == ["-p", "one", "-q", "-ptwo"]
    assert split_options(['-p one "unbalanced']) == ["-p", "one", '"unbalanced']
    assert split_options([]) == []


def test_ini_values_read_addopts_and_pythonpath_with_continuation_lines() -> None:
    text = (
        "[pytest]\n# a comment\n; another\naddopts = -q\n    -p one\n\tp=x\n"
        "pythonpath: src\n  lib\nother = -p nothing\n  -p still_nothing\n\n[tox]\naddopts=-ptwo\n"
        "python_files = check_*.py\n  *_spec.py\n"
    )
    assert ini_values(text) == {
        "addopts": ["-q", "-p one", "p=x", "-ptwo"],
        "pythonpath": ["src", "lib"],
        "python_files": ["check_*.py", "*_spec.py"],
        "pytest11": [],
    }
    assert ini_values("  addopts = -p x\n") == {
        "addopts": ["-p x"],
        "pythonpath": [],
        "python_files": [],
        "pytest11": [],
    }
    # A comment keeps the value going; another key ends it, whatever letter it starts with.
    text = "addopts = -q\n# note\n;note\n  -p one\nX = 1\n  -p two\nXaddopts = 2\n"
    assert ini_values(text)["addopts"] == ["-q", "-p one"]


def test_toml_values_read_the_table_and_its_ini_options() -> None:
    document = {
        "tool": {
            "pytest": {
                "addopts": ["-p", "one"],
                "pythonpath": "lib",
                "ini_options": {
                    "addopts": "-p two",
                    "pythonpath": ["a", 3, "b"],
                    "python_files": ["check_*.py"],
                },
            }
        }
    }
    assert toml_values(document, ("tool", "pytest")) == {
        "addopts": ["-p", "one", "-p two"],
        "pythonpath": ["lib", "a", "b"],
        "python_files": ["check_*.py"],
    }
    empty: dict[str, list[str]] = {"addopts": [], "pythonpath": [], "python_files": []}
    assert toml_values({"tool": 3}, ("tool", "pytest")) == empty
    assert toml_values({"pytest": {"addopts": 5}}, ("pytest",)) == empty


def test_entry_point_modules_are_the_module_part_of_each_value() -> None:
    table = {"forge": "forge.plugin:hooks", "bare": " bare ", "odd": "not a module", "n": 3}
    assert entry_point_modules({"project": {"entry-points": {"pytest11": table}}}) == [
        "forge.plugin",
        "bare",
    ]
    assert entry_point_modules({"project": {"entry-points": {"pytest11": "x"}}}) == []
    assert entry_point_modules({"project": []}) == []
    # Every build backend's own table: poetry's and flit's as well as PEP 621's.
    poetry = {"tool": {"poetry": {"plugins": {"pytest11": {"p": "poetry_plugin:x"}}}}}
    flit = {"tool": {"flit": {"entrypoints": {"pytest11": {"f": "flit_plugin"}}}}}
    assert entry_point_modules(poetry) == ["poetry_plugin"]
    assert entry_point_modules(flit) == ["flit_plugin"]


# --- pytest_plugins --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "names"),
    [
        ('pytest_plugins = ["a", "b.c"]\n', ("a", "b.c")),
        ('pytest_plugins = ("a",)\n', ("a",)),
        ('pytest_plugins = "a,b"\n', ("a", "b")),
        ('pytest_plugins = ""\n', ()),
        ('pytest_plugins: list[str] = ["a"]\n', ("a",)),
        ('pytest_plugins = ["a"]\npytest_plugins += ["b"]\n', ("a", "b")),
        ('print(pytest_plugins)\npytest_plugins = ["a"]\n', ("a",)),
    ],
)
def test_a_literal_plugin_list_is_read(source: str, names: tuple[str, ...]) -> None:
    plugins = module_plugins(source.encode(), "m.py")
    assert plugins is not None
    assert (plugins.names, plugins.literal) == (names, True)


@pytest.mark.parametrize(
    "source",
    [
        "pytest_plugins = [n for n in 'ab']\n",
        "pytest_plugins = ['a', 1]\n",
        "pytest_plugins = 3\n",
        "pytest_plugins = ['a'] + ['b']\n",
        "import x.pytest_plugins as pytest_plugins\n",
        "from x import pytest_plugins\n",
        "import pytest_plugins\n",
        "m.pytest_plugins = ['a']\n",
        "globals()['pytest_plugins'] = ['a']\n",
        "vars().update(pytest_plugins=['a'])\n",
        "setattr(m, 'pytest_plugins', ['a'])\n",
        "sys.modules[__name__].__setattr__('pytest_plugins', ['a'])\n",
        "globals().setdefault('pytest_plugins', ['a'])\n",
        "del globals()['pytest_plugins']\n",
        "def f():\n    global pytest_plugins\n",
        "def f():\n    def g():\n        nonlocal pytest_plugins\n",
        "match x:\n    case pytest_plugins:\n        pass\n",
        "match x:\n    case [*pytest_plugins]:\n        pass\n",
        "pytest_plugins: list[str]\n",
        "pytest_plugins = a = ['x']\n",
        "if x:\n    pytest_plugins = ['a']\n",
    ],
)
def test_any_other_binding_of_pytest_plugins_is_not_a_literal(source: str) -> None:
    plugins = module_plugins(source.encode(), "m.py")
    assert plugins is not None
    assert plugins.literal is False


@pytest.mark.parametrize(
    "source",
    [
        "x = 1\n",
        "# pytest_plugins = ['a']\n",
        "'''pytest_plugins are named in conftest.py'''\n",
        "print(pytest_plugins)\n",
        "m.pytest_plugins\n",
        "MARK = 'pytest_plugins'\n",
        "x = settings['pytest_plugins']\n",
        "print('pytest_plugins', end='')\n",
        "getattr(m, 'pytest_plugins')\n",
        "m.get('pytest_plugins')\n",
        "handlers[0]('pytest_plugins')\n",
    ],
)
def test_a_module_that_does_not_set_pytest_plugins_names_nothing(source: str) -> None:
    assert module_plugins(source.encode(), "m.py") is None


def test_a_module_that_mentions_pytest_plugins_and_does_not_parse_is_an_input_error() -> None:
    for source in (b"pytest_plugins = [\n", b"pytest_plugins = 1\0", b"pytest_plugins\xff = 1"):
        with pytest.raises(InputError) as raised:
            module_plugins(source, "m.py")
        assert str(raised.value) == (
            "m.py: mentions pytest_plugins but cannot be parsed as Python, so the plugins it "
            "names cannot be resolved"
        )
    deep = b"pytest_plugins = " + b"[" * 5000 + b"]" * 5000
    with pytest.raises(InputError, match="cannot be parsed"):
        module_plugins(deep, "m.py")


# --- modules, import roots and plugin names --------------------------------------------


def test_a_module_file_is_source_bytecode_or_an_extension() -> None:
    for name in ("m.py", "m.pyc", "m.pyw", "m.cpython-312-x86_64-linux-gnu.so", "m.cp312-win.pyd"):
        assert is_module_file(name, "m"), name
    for name in ("m.ini", "mm.py", "m", "m.py.txt", "xm.py", "m.toml", "x.py", "n.so", "q.pyc"):
        assert not is_module_file(name, "m"), name


def test_every_configuration_file_by_every_name_and_anywhere_is_harness(tmp_path: Path) -> None:
    files = {
        name: "" for name in ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "tox.ini")
    }
    files |= {"sub/setup.cfg": "", "a/b/conftest.py": "", "README.md": "", "x.py": ""}
    assert resolved(write_tree(tmp_path, files)) == sorted(
        [
            ".pytest.ini",
            ".pytest.toml",
            "a/b/conftest.py",
            "pytest.ini",
            "pytest.toml",
            "sub/setup.cfg",
            "tox.ini",
        ]
    )


def test_plugins_that_configs_name_resolve_at_every_import_root(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "pytest.toml": '[pytest]\naddopts = ["-p", "one", "-p", "pkg.two"]\n'
            'pythonpath = ["lib", "./more", "../outside", "/abs"]\n',
            "one.py": "",
            "lib/one.py": "",
            "more/pkg/__init__.py": "",
            "more/pkg/two/__init__.py": "",
            "src/one.cpython-312-x86_64-linux-gnu.so": "",
            "pkg/two.py": "",
            "pkg/three.py": "",
            "elsewhere/one.py": "",
        },
    )
    assert resolved(root) == [
        "lib/one.py",
        "more/pkg/__init__.py",
        "more/pkg/two/__init__.py",
        "one.py",
        "pkg/two.py",
        "pytest.toml",
        "src/one.cpython-312-x86_64-linux-gnu.so",
    ]


def test_ini_and_pyproject_configs_name_plugins_too(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "setup.cfg": "[tool:pytest]\naddopts = -p from_cfg\npythonpath = . tools\n"
            "[options.entry_points]\npytest11 =\n    cfg = cfg_entry.hooks:x\n",
            "cfg_entry/hooks.py": "",
            "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "-pfrom_toml"\n',
            "sub/pyproject.toml": '[project]\nname = "x"\n',
            "sub/tox.ini": "[pytest]\naddopts = -p from_tox\n",
            "from_cfg.py": "",
            "tools/from_cfg.py": "",
            "from_toml.py": "",
            "sub/from_tox.py": "",
            "sub/from_toml.py": "",
        },
    )
    assert resolved(root) == [
        "cfg_entry/hooks.py",
        "from_cfg.py",
        "from_toml.py",
        "pyproject.toml",
        "setup.cfg",
        "sub/from_toml.py",  # every name at every import root: sub/ is one
        "sub/from_tox.py",
        "sub/pyproject.toml",
        "sub/tox.ini",
        "tools/from_cfg.py",
    ]


def test_a_pyproject_without_pytest_table_is_no_import_root(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {"sub/pyproject.toml": '[project]\nname = "x"\n', "pytest.ini": "", "sub/pytest.py": ""},
    )
    assert resolved(root) == ["pytest.ini", "sub/pyproject.toml"]
    (root / "sub" / "pyproject.toml").write_text("[tool.pytest]\n")
    assert resolved(root) == ["pytest.ini", "sub/pyproject.toml", "sub/pytest.py"]


def test_entry_points_and_plugin_lists_resolve_transitively(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "pyproject.toml": '[project.entry-points.pytest11]\nforge = "forge:hooks"\n',
            "forge.py": 'pytest_plugins = ["second"]\n',
            "second.py": "pytest_plugins = 'third'\n",
            "third.py": "",
            "fourth.py": "",
            "tests/conftest.py": 'pytest_plugins = ["helpers", "installed_plugin"]\n',
            "tests/helpers.py": "",
            # A test module's literal list names plugins; the module itself stays a test.
            "tests/deep/test_x.py": 'pytest_plugins = ["fourth"]\n',
        },
    )
    assert resolved(root) == [
        "forge.py",
        "fourth.py",
        "pyproject.toml",
        "second.py",
        "tests/conftest.py",
        "tests/helpers.py",
        "third.py",
    ]


def test_a_conftest_in_a_package_puts_the_folder_above_the_package_on_the_path(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path,
        {
            "tests/__init__.py": "",
            "tests/unit/__init__.py": "",
            "tests/unit/conftest.py": 'pytest_plugins = ["tests.support", "near"]\n',
            "tests/support.py": "",
            "tests/unit/near.py": "",
            "tests/near.py": "",
        },
    )
    assert resolved(root) == [
        "tests/__init__.py",
        "tests/support.py",
        "tests/unit/conftest.py",
        "tests/unit/near.py",
    ]


def test_modules_that_shadow_pytest_are_harness_at_import_roots_only(tmp_path: Path) -> None:
    shadows = ["pytest.py", "py.py", "_pytest/__init__.py", "pluggy/__init__.pyc", "site.pth"]
    shadows += ["sitecustomize.py", "usercustomize.py", "pytest.cpython-312-x86_64-linux-gnu.so"]
    root = write_tree(
        tmp_path,
        {
            **{path: "" for path in shadows},
            **{f"src/{path}": "" for path in ("pytest.py", "x.pth")},
            **{f"docs/{path}": "" for path in ("pytest.py", "x.pth")},
            "py.typed": "",
            "_pytest/other.py": "",
            "_pytest/data.txt": "",
        },
    )
    # A shadowing package's `__init__` can import any module of it: each one is harness.
    expected = [*shadows, "_pytest/other.py", "src/pytest.py", "src/x.pth"]
    assert resolved(root) == sorted(expected)


def test_a_folder_that_looks_like_a_module_is_no_module(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path, {"pytest.ini": "[pytest]\naddopts = -p plug.in\n", "plug/in/x.py": ""}
    )
    (root / "pytest.py").mkdir()
    assert resolved(root) == ["pytest.ini"]


# --- virtualenvs -----------------------------------------------------------------------


def venv(root: Path, layout: str = "unix") -> Path:
    if layout == "unix":
        (root / "lib" / "python3.12" / "site-packages").mkdir(parents=True)
        (root / "bin").mkdir()
        (root / "bin" / "python").symlink_to(sys.executable)
    else:
        (root / "Lib" / "site-packages").mkdir(parents=True)
        (root / "Scripts").mkdir()
        (root / "Scripts" / "python.exe").write_text("")
    (root / "pyvenv.cfg").write_text("home = /usr\n")
    return root


@pytest.mark.parametrize("layout", ["unix", "windows"])
def test_a_real_virtualenv_is_skipped(tmp_path: Path, layout: str) -> None:
    root = venv(tmp_path / "env", layout)
    inside = "lib/python3.12/site-packages" if layout == "unix" else "Lib/site-packages"
    write_tree(root, {f"{inside}/pkg/conftest.py": "", "share/x/conftest.py": ""})
    # Every entry a virtualenv may hold, and folders beside it that are walked as usual.
    for name in ("include", "Include", "lib64", "etc", "Lib", "lib", "Scripts", "bin"):
        (root / name).mkdir(exist_ok=True)
    write_tree(root, {".gitignore": "*", "CACHEDIR.TAG": ""})
    write_tree(tmp_path, {"conftest.py": "", "a/conftest.py": "", "z/conftest.py": ""})
    assert resolved(tmp_path) == ["a/conftest.py", "conftest.py", "z/conftest.py"]


@pytest.mark.parametrize(
    "plant",
    [
        "marker only",
        "marker is a folder",
        "marker is a symlink",
        "no interpreter",
        "no site-packages",
        "not python3.x",
        "windows without Lib",
        "something else beside",
    ],
)
def test_a_planted_virtualenv_hides_nothing(tmp_path: Path, plant: str) -> None:
    root = tmp_path / "tests"
    root.mkdir()
    if plant == "marker only":
        (root / "pyvenv.cfg").write_text("")
    elif plant == "marker is a folder":
        (root / "pyvenv.cfg").mkdir()
    else:
        venv(root, "windows" if plant == "windows without Lib" else "unix")
    if plant == "marker is a symlink":
        (root / "pyvenv.cfg").unlink()
        (tmp_path / "real.cfg").write_text("")
        (root / "pyvenv.cfg").symlink_to(tmp_path / "real.cfg")
    elif plant == "no interpreter":
        (root / "bin" / "python").unlink()
    elif plant == "no site-packages":
        (root / "lib" / "python3.12" / "site-packages").rmdir()
    elif plant == "not python3.x":
        (root / "lib" / "python3.12").rename(root / "lib" / "pythonx")
    elif plant == "windows without Lib":
        (root / "Lib" / "site-packages").rename(root / "Lib" / "other")
    elif plant == "something else beside":
        (root / "unit").mkdir()
    write_tree(root, {"include/conftest.py": ""})
    assert resolved(tmp_path) == ["tests/include/conftest.py"]


def test_git_folders_are_skipped(tmp_path: Path) -> None:
    write_tree(tmp_path, {".git/conftest.py": "", "a/.git/pytest.ini": "", "a/.github/tox.ini": ""})
    assert resolved(tmp_path) == ["a/.github/tox.ini"]


# --- errors ----------------------------------------------------------------------------


def test_a_computed_plugin_list_is_an_input_error_until_a_policy_glob_names_its_module(
    tmp_path: Path,
) -> None:
    root = write_tree(tmp_path, {"conftest.py": "pytest_plugins = list(PLUGINS)\n"})
    with pytest.raises(InputError, match=r"^conftest\.py: sets pytest_plugins to something"):
        resolved(root)
    with pytest.raises(InputError, match=r"^conftest\.py: sets pytest_plugins to something"):
        resolved(root, Harness(PYTEST_FINDER, ("plugins/*.py",)))
    assert resolved(root, Harness(PYTEST_FINDER, ("plugins/*.py", "conftest.py"))) == [
        "conftest.py"
    ]


def test_a_symlink_or_a_special_file_where_a_plugin_resolves_is_an_input_error(
    tmp_path: Path,
) -> None:
    root = write_tree(tmp_path, {"pytest.ini": "[pytest]\naddopts = -p plug\n", "target.py": ""})
    (root / "plug.py").symlink_to(root / "target.py")
    with pytest.raises(InputError, match=r"^plug\.py: a symlink in the test harness"):
        resolved(root)
    (root / "plug.py").unlink()
    os.mkfifo(root / "plug.py")
    with pytest.raises(InputError, match=r"^plug\.py: not a regular file in the test harness"):
        resolved(root)


def test_a_symlinked_module_that_is_not_harness_is_not_read(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"elsewhere.py": "x = 1\n", "pytest.ini": ""})
    (root / "test_link.py").symlink_to(root / "elsewhere.py")
    assert resolved(root) == ["pytest.ini"]


def test_a_pyproject_that_is_not_toml_is_an_input_error(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"sub/pyproject.toml": "[tool.pytest\n"})
    with pytest.raises(InputError, match=r"^sub/pyproject\.toml: not valid TOML"):
        resolved(root)


# --- the pairs the lock holds, from the work tree and from a commit ---------------------


def test_the_pairs_lock_pytests_two_tables_and_whole_files(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {"pyproject.toml": "", "sub/pyproject.toml": "", "pytest.ini": "", "t/test_p.py": ""},
    )
    harness = Harness(
        PYTEST_FINDER, ("sub/pyproject.toml",), frozenset({"t/test_p.py", "t/gone.py"})
    )
    tables = [
        "tool.pytest",
        "project.entry-points.pytest11",
        "tool.poetry.plugins.pytest11",
        "tool.flit.entrypoints.pytest11",
    ]
    assert list(harness_in_tree(str(root), harness, no_folder)) == [
        *(("pyproject.toml", table) for table in tables),
        ("pytest.ini", None),
        *(("sub/pyproject.toml", table) for table in tables),
        ("sub/pyproject.toml", None),
        ("t/test_p.py", None),
        ("t/gone.py", None),
    ]


def test_a_commit_resolves_like_the_work_tree(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "repo",
        {
            "pytest.toml": '[pytest]\naddopts = ["-p", "plugins.forge"]\n',
            "plugins/__init__.py": "",
            "plugins/forge.py": 'pytest_plugins = ["helper"]\n',
            "helper.py": "",
            "sub/pytest.py": "",
            "sub/conftest.py": "",
            "docs/x.md": "",
        },
    )
    git(root, "init", "--quiet")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "c")
    commit = git(root, "rev-parse", "HEAD")
    committed = GitRevision(str(root), commit).committed()
    work = harness_pairs(DiskTree(str(root)), Harness(PYTEST_FINDER))
    assert harness_pairs(committed.head, Harness(PYTEST_FINDER)) == work
    assert harness_pairs(committed.trusted, Harness(PYTEST_FINDER)) == work
    assert committed.changed == frozenset()
    sub = GitRevision(str(root / "sub"), commit).committed()
    assert resolve_harness(sub.head, Harness(PYTEST_FINDER)) == ["conftest.py", "pytest.py"]


def test_pythonpath_is_relative_to_its_configuration_files_folder(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "sub/pytest.ini": "[pytest]\naddopts = -p plug\npythonpath = ./lib . ../up /abs gone\n",
            "sub/lib/plug.py": "",
            "sub/plug.py": "",
            "lib/plug.py": "",
            "up/plug.py": "",
            "sub/lib/pytest.py": "",
        },
    )
    assert resolved(root) == [
        "sub/lib/plug.py",
        "sub/lib/pytest.py",
        "sub/plug.py",
        "sub/pytest.ini",
        "up/plug.py",  # sub/../up is the repository's up/
    ]


def test_a_conftest_puts_its_package_root_on_the_path_and_its_folder_too(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "a/tests/__init__.py": "",
            "a/tests/unit/__init__.py": "",
            "a/tests/unit/conftest.py": 'pytest_plugins = ["tests.support"]\n',
            "a/tests/support.py": "",
            "b/conftest.py": "",
            "b/pytest.py": "",
            "c/__init__.py": "",
            "c/pytest.py": "",
        },
    )
    assert resolved(root) == [
        "a/tests/__init__.py",
        "a/tests/support.py",
        "a/tests/unit/conftest.py",
        "b/conftest.py",
        "b/pytest.py",
    ]


def test_plugins_resolve_transitively_without_reading_every_module(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "conftest.py": 'pytest_plugins = ["first"]\n',
            "first.py": 'pytest_plugins = ["second", "first"]\n',
            "second.py": "",
            "pyproject.toml": '[project.entry-points.pytest11]\nforge = "forge:hooks"\n',
            "forge.py": "",
            "loose.py": 'pytest_plugins = ["third"]\n',
            "third.py": "",
        },
    )
    files = DiskTree(str(root))
    assert resolve_harness(files, Harness(PYTEST_FINDER), lambda path: False) == [
        "conftest.py",
        "first.py",
        "forge.py",
        "pyproject.toml",
        "second.py",
    ]
    assert ("loose.py", None) not in harness_pairs(files, Harness(PYTEST_FINDER), "loose.py".__ne__)
    assert ("loose.py", None) in harness_pairs(files, Harness(PYTEST_FINDER))


def test_a_config_that_is_not_utf8_is_still_read(tmp_path: Path) -> None:
    (tmp_path / "tox.ini").write_bytes(b"[pytest]\n# caf\xe9\naddopts = -p plug\n")
    (tmp_path / "plug.py").write_text("")
    assert resolved(tmp_path) == ["plug.py", "tox.ini"]


def test_shadows_at_src_and_at_a_missing_pythonpath_folder(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "pytest.ini": "[pytest]\npythonpath = missing\n",
            "src/_pytest/__init__.py": "",
            "src/pluggy/__init__.py": "",
        },
    )
    assert resolved(root) == ["pytest.ini", "src/_pytest/__init__.py", "src/pluggy/__init__.py"]


def test_a_module_whose_name_is_not_utf8_and_does_not_parse_is_named_escaped(
    tmp_path: Path,
) -> None:
    (tmp_path / os.fsdecode(b"m\xff.py")).write_text("pytest_plugins = [\n")
    with pytest.raises(InputError, match=r"^m\\xff\.py: mentions pytest_plugins"):
        resolved(tmp_path)
