"""What the test process imports from the change's files beyond what pytest's configuration
names: package metadata, modules that shadow others, plugin lists bound without their name,
and the entry-point tables of every build backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.support import resolved, write_tree
from waiver.errors import InputError, InputErrors
from waiver.read.harness.named import Harness
from waiver.runners.pytest.harness.finder import PYTEST_FINDER
from waiver.runners.pytest.harness.plugin_names import module_plugins
from waiver.runners.pytest.harness.shadows import (
    declared_modules,
    import_name,
    own_modules,
    shadowed_names,
)

# --- package metadata ------------------------------------------------------------------


def test_package_metadata_at_an_import_root_is_harness_whole(tmp_path: Path) -> None:
    metadata = [
        "forge-0.1.dist-info/entry_points.txt",
        "forge-0.1.dist-info/METADATA",
        "forge-0.1.dist-info/licenses/LICENSE",
        "src/other.egg-info/entry_points.txt",
        "link.egg-link",
    ]
    root = write_tree(
        tmp_path,
        {
            **{path: "" for path in metadata},
            "docs/far-0.1.dist-info/entry_points.txt": "",  # docs/ is no import root
            "docs/x.egg-link": "",
            "README.md": "",
        },
    )
    assert resolved(root) == sorted(metadata)


# --- modules imported in another's place -----------------------------------------------


def test_a_module_named_like_one_the_test_process_imports_is_harness(tmp_path: Path) -> None:
    shadows = [
        "iniconfig.py",  # pytest imports it at start-up
        "shlex.py",  # the standard library
        "packaging/__init__.py",
        "packaging/version.py",
        "tomllib.cpython-312-x86_64-linux-gnu.so",
        "json/__init__.pyc",
        "src/colorama.py",
        "tests/string.py",  # the folder a conftest puts on sys.path
        "tests/conftest.py",
    ]
    root = write_tree(
        tmp_path,
        {
            **{path: "" for path in shadows},
            "packaging/py.typed": "",  # not a module
            "email/notes.py": "",  # a folder without `__init__` is a namespace: no shadow
            "docs/shlex.py": "",  # not an import root
            "slugify.py": "",
            "tests/test_string.py": "",
        },
    )
    assert resolved(root) == sorted(shadows)


def test_the_distributions_a_project_declares_are_shadowed_by_their_import_name(
    tmp_path: Path,
) -> None:
    pyproject = """\
[project]
name = "demo-lib"
dependencies = ["Typing-Extensions>=4", "attrs ; python_version > '3'"]
[project.optional-dependencies]
yaml = ["ruamel.yaml"]
[dependency-groups]
test = ["hypothesis", {include-group = "other"}]
[tool.poetry.group.dev.dependencies]
python = "^3.11"
rich = "*"
"""
    root = write_tree(
        tmp_path,
        {
            "pyproject.toml": pyproject,
            "typing_extensions.py": "",
            "attrs/__init__.py": "",
            "ruamel_yaml.py": "",
            "hypothesis/__init__.py": "",
            "rich.py": "",
            "demo_lib/__init__.py": "",  # the project's own package: code under test
            "python.py": "",  # poetry's `python` key is the interpreter, no distribution
        },
    )
    assert resolved(root) == [
        "attrs/__init__.py",
        "hypothesis/__init__.py",
        "pyproject.toml",
        "rich.py",
        "ruamel_yaml.py",
        "typing_extensions.py",
    ]


def test_declared_modules_read_every_shape_and_skip_what_is_malformed() -> None:
    document: dict[str, object] = {
        "project": {
            "name": "Own.Name",
            "dependencies": "not a list",
            "optional-dependencies": {"a": ["one==1"], "b": "two", "c": [3]},
        },
        "dependency-groups": ["not", "a", "table"],
        "tool": {"poetry": {"dependencies": ["x"], "group": {"g": {"dependencies": 4}}}},
    }
    assert declared_modules(document) == {"one"}
    assert own_modules(document) == {"own_name"}
    assert import_name("zope.interface") == "zope_interface"
    # The project's own name leaves pytest's closure, never pytest itself.
    names = shadowed_names({"one"}, {"packaging", "pytest"})
    assert {"one", "pytest", "iniconfig", "shlex"} <= names
    assert "packaging" not in names


def test_a_project_named_like_a_module_pytest_imports_is_code_under_test(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "packaging"\n',
            "src/packaging/__init__.py": "",
            "src/packaging/version.py": "",
        },
    )
    assert resolved(root) == ["pyproject.toml"]


# --- entry points of every build backend -----------------------------------------------


def test_poetry_and_flit_entry_points_resolve_to_their_modules(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "pyproject.toml": (
                '[tool.poetry.plugins."pytest11"]\nforge = "poetry_forge:hooks"\n'
                '[tool.flit.entrypoints.pytest11]\nother = "flit_forge"\n'
            ),
            "poetry_forge.py": "",
            "flit_forge/__init__.py": "",
        },
    )
    assert resolved(root) == ["flit_forge/__init__.py", "poetry_forge.py", "pyproject.toml"]


# --- plugin lists bound without their name ----------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        b"@list\ndef pytest_plugins():\n    pass\n",
        b"@decorate\nasync def pytest_plugins():\n    pass\n",
        b"class pytest_plugins(list):\n    pass\n",
        b"try:\n    pass\nexcept E as pytest_plugins:\n    pass\n",
        # PEP 263: Python decodes the module before it reads a name.
        b"# coding: unicode_escape\npytest\\x5fplugins = ['forge']\n",
        # PEP 3131: a name is NFKC-normalised, so a fullwidth letter is its plain letter.
        "\uff50ytest_plugins = ['forge']\n".encode(),
    ],
)
def test_a_binding_the_bytes_do_not_spell_is_still_read(source: bytes) -> None:
    plugins = module_plugins(source, "m.py")
    assert plugins is not None
    assert plugins.sets
    if b"forge" in source:
        assert plugins.names == ("forge",) and plugins.literal
    else:
        assert not plugins.literal


@pytest.mark.parametrize(
    "source",
    [
        'globals()["pytest_" + "plugins"] = ["forge"]\n',
        'name = "pytest_" + "plugins"\nvars()[name] = ["forge"]\n',
        "exec(\"pytest_plugins = ['forge']\")\n",
        'eval("1")\n',
        'import sys\nsetattr(sys.modules[__name__], "pytest_" + "plugins", ["forge"])\n',
        "from sys import modules as loaded\nloaded[__name__] = fake\n",
        "import sys\nsys.modules['conftest'] = fake\n",
        "import sys\nsys.modules.update({name: fake})\n",
        "import sys\nthis = sys.modules[__name__].__dict__\n",
        "locals()['pytest_' + 'plugins'] = ['forge']\n",
        "g = globals()\ng[key] = ['forge']\n",
        "globals().update(table)\n",
        "configure(vars())\n",
        "import inspect\ninspect.currentframe().f_globals[key] = 1\n",
        "class C:\n    vars(me)['pytest_' + 'plugins'] = ['forge']\n",
        "@setattr\ndef f():\n    pass\n",
        "def f(x=globals()):\n    pass\n",
        "m.__dict__['pytest_' + 'plugins'] = []\n",
    ],
)
def test_import_time_code_that_writes_the_namespace_is_dynamic_where_pytest_reads_it(
    source: str,
) -> None:
    plugins = module_plugins(source.encode(), "conftest.py", strict=True)
    assert plugins is not None
    assert plugins.dynamic and plugins.sets
    # Outside the modules whose list is the harness's, such code sets nothing.
    assert module_plugins(source.encode(), "helper.py") is None
    assert module_plugins(source.encode(), "test_m.py", stars=True) is None


@pytest.mark.parametrize(
    "source",
    [
        "def test_x():\n    globals()['y'] = 1\n    assert vars(obj)\n",
        "async def test_x():\n    exec('1')\n",
        "x = lambda: globals()\n",
        "import os\nsys = 3\nvalue = obj.modules_count\n",
        "'''Mentions globals and exec only in text.'''\n",
        "import modules\n",
        # A bare locals() or vars() in a class body reaches the class's namespace only.
        "class C:\n    locals()['x'] = 1\n    vars()['y'] = 2\n",
        "def test_x():\n    x = 1\n    assert locals() == {'x': 1}\n",
        "class TestK:\n    def test_m(self):\n        assert 'self' in locals()\n",
        # Words in the text, and imports, are no write.
        "from sys import modules\n",
        "import builtins\nimport importlib\n",
        "import sys\n\ndef test_x(pipeline):\n    pipeline.execute()\n",
        # Reading a namespace writes nothing.
        "before = list(locals())\nfrom pkg import *\n"
        "new = {k: v for k, v in locals().items() if k not in before}\n",
        "import sys\nLOADED = 'json' in sys.modules\nmod = sys.modules.get('json')\n",
        "import sys\nfor name in sys.modules:\n    print(name)\nsize = len(globals())\n",
        "names = sorted(vars())\nhas = 'x' in globals()\nvalue = globals()['x']\n",
        # Writing another module's entry, or deleting one, binds nothing here.
        "import sys\nsys.modules['fluidsynth'] = stub\ndel sys.modules['json']\n",
        "import sys\nsys.modules.setdefault('magika', stub)\nsys.modules.pop('json', None)\n",
        # A literal name other than pytest_plugins is no binding of it.
        "import sys\nsetattr(sys.modules[__name__], 'VERSION', 1)\n",
    ],
)
def test_what_runs_later_or_only_looks_alike_is_not_dynamic(source: str) -> None:
    plugins = module_plugins(source.encode(), "conftest.py", strict=True)
    assert plugins is None or not (plugins.dynamic or plugins.sets)


def test_a_star_import_is_followed_and_is_no_binding_of_its_own() -> None:
    plugins = module_plugins(b"from .helpers import *\nfrom a.b import *\n", "t.py", strict=True)
    assert plugins is not None
    assert not plugins.sets
    assert sorted(plugins.stars) == [(0, "a.b"), (1, "helpers")]
    assert module_plugins(b"from a import *\n", "t.py") is None


def test_a_conftest_that_writes_its_namespace_is_an_input_error_naming_it_and_the_line(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path,
        {
            "tests/conftest.py": 'import os\n\nglobals()["pytest_" + "plugins"] = ["forge"]\n',
            "tests/sub/conftest.py": "exec('pytest_plugins = []')\n",
            "forge.py": "",
            # Source modules are no test modules: pytest reads no plugin list of theirs.
            "src/lib/compat.py": "globals().update(x=1)\n",
        },
    )
    with pytest.raises(InputErrors) as raised:
        resolved(root)
    # Both are named in one error, each with its line.
    assert [str(error) for error in raised.value.errors] == [
        "tests/conftest.py: runs code at import time that writes its own namespace without "
        "naming the key (line 3: globals(), vars(), exec, eval, setattr with a computed name, "
        "sys.modules, __dict__), so it can set pytest_plugins without naming it and the gate "
        "cannot tell which files it loads: name this module and those files with `harness:` "
        "globs in the policy file",
        "tests/sub/conftest.py: runs code at import time that writes its own namespace "
        "without naming the key (line 1: globals(), vars(), exec, eval, setattr with a "
        "computed name, sys.modules, __dict__), so it can set pytest_plugins without naming "
        "it and the gate cannot tell which files it loads: name this module and those files "
        "with `harness:` globs in the policy file",
    ]
    # A glob naming a module lifts its error, as for any list the gate cannot read.
    (root / "tests/sub/conftest.py").write_text("")
    assert resolved(root, Harness(PYTEST_FINDER, ("tests/conftest.py", "forge.py"))) == [
        "forge.py",
        "tests/conftest.py",
        "tests/sub/conftest.py",
    ]


def test_a_test_module_is_never_harness_whatever_its_import_time_code_does(
    tmp_path: Path,
) -> None:
    """What a test module binds decides nothing in the verdict replays, which run the
    base's test tree: its literal list names plugins, and nothing it does is refused."""
    root = write_tree(
        tmp_path,
        {
            "tests/test_setup.py": 'globals()["pytest_" + "plugins"] = ["forge"]\n',
            "tests/test_loader.py": "import importlib.util\nimport sys\n\n"
            "SPEC = importlib.util.spec_from_file_location('tool', 'bin/tool.py')\n"
            "TOOL = importlib.util.module_from_spec(SPEC)\nsys.modules[SPEC.name] = TOOL\n",
            "tests/test_lists.py": 'pytest_plugins = ["pytester", "helpers.plugin"]\n',
            "tests/test_computed.py": "pytest_plugins = [n for n in ('a',)]\n",
            "helpers/__init__.py": "",
            "helpers/plugin.py": "",
            "forge.py": "",
        },
    )
    assert resolved(root) == ["helpers/__init__.py", "helpers/plugin.py"]


def test_configured_python_files_are_the_test_modules(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "pytest.ini": "[pytest]\npython_files = check_*.py\n",
            "tests/check_setup.py": "pytest_plugins = ['forge']\n",
            # Not collected under this configuration: a module that sets the list.
            "tests/test_other.py": "pytest_plugins = ['other']\n",
            "forge.py": "",
            "other.py": "",
        },
    )
    assert resolved(root) == ["forge.py", "other.py", "pytest.ini", "tests/test_other.py"]


def test_a_star_import_of_a_module_that_writes_its_namespace_is_an_input_error(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path,
        {
            "tests/__init__.py": "",
            "tests/conftest.py": "from .helpers import *\n",
            "tests/helpers.py": 'globals()["pytest_" + "plugins"] = ["forge"]\n',
        },
    )
    with pytest.raises(InputError, match=r"^tests/helpers\.py: runs code at import time"):
        resolved(root)
    # A test module's star import is read for a literal list alone.
    (root / "tests/conftest.py").write_text("")
    (root / "tests/test_a.py").write_text("from .helpers import *\n")
    assert resolved(root) == ["tests/conftest.py"]
    # A star import of a plain helper, or of one that names its plugins, reads as such.
    (root / "tests/conftest.py").write_text("from .helpers import *\n")
    (root / "tests/helpers.py").write_text('pytest_plugins = ["forge"]\n')
    (root / "forge.py").write_text("")
    assert resolved(root) == ["forge.py", "tests/conftest.py", "tests/helpers.py"]
    (root / "tests/helpers.py").write_text("VALUE = 1\n")
    assert resolved(root) == ["tests/conftest.py"]


def test_a_star_import_binds_only_what_the_module_exports(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "tests/conftest.py": "from pkg import *\n",
            # The library's own source: import-time code of its own binds nothing the
            # conftest gets by name, so it is neither refused nor harness.
            "pkg/__init__.py": "import sys\nfrom pkg.core import *\nsys.modules['x'] = 1\n",
            "pkg/core.py": "__all__ = ['parse']\nparse = globals()\n",
            "forge.py": "",
        },
    )
    assert resolved(root) == ["tests/conftest.py"]
    # A library module that names the list gives it to the conftest that star-imports it.
    (root / "pkg/core.py").write_text("pytest_plugins = ['forge']\n")
    assert resolved(root) == ["forge.py", "pkg/core.py", "tests/conftest.py"]
    # Beside the tests a star-imported module is read as pytest reads a list, and what it
    # star-imports in turn; a static __all__ that leaves the name out ends the chain.
    (root / "pkg/core.py").write_text("parse = 1\n")
    (root / "tests/__init__.py").write_text("")
    (root / "tests/conftest.py").write_text("from .helpers import *\n")
    (root / "tests/helpers.py").write_text("from .dyn import *\nA = 1\n")
    (root / "tests/dyn.py").write_text("globals()['x'] = 1\n")
    with pytest.raises(InputError, match=r"^tests/dyn\.py: runs code at import time"):
        resolved(root)
    (root / "tests/helpers.py").write_text("__all__ = ['A']\nfrom .dyn import *\nA = 1\n")
    assert resolved(root) == ["tests/conftest.py"]
    (root / "tests/helpers.py").write_text(
        "__all__ = ['A', 'pytest_plugins']\nfrom .dyn import *\n"
    )
    with pytest.raises(InputError, match=r"^tests/dyn\.py: runs code at import time"):
        resolved(root)


def test_a_star_import_cycle_ends(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {"test_a.py": "from test_b import *\n", "test_b.py": "from test_a import *\n"},
    )
    assert resolved(root) == []


def test_a_module_python_cannot_decode_sets_nothing_unless_it_names_the_list() -> None:
    assert module_plugins(b"# coding: no-such-codec\nexec('x')\n", "test_m.py", True) is None
    with pytest.raises(InputError, match="cannot be parsed"):
        module_plugins(b"# coding: no-such-codec\npytest_plugins = []\n", "m.py")
