"""Registered tests the change edited, read from two commits the way Python reads them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from helpers.commit_support import committed_change
from waiver.read.trusted.protected import Committed
from waiver.runners.pytest import edited as edited_module
from waiver.runners.pytest.edited import edited_tests
from waiver.runners.pytest.reach import module_stem, reached_modules
from waiver.runners.pytest.scope import read_scope

BASE = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/helpers.py": "def same(got, want):\n    assert got == want\n\n\nOTHER = 1\n",
    "tests/test_calc.py": '''\
"""Tests of add."""

import pytest

from calc import add
from tests.helpers import same


def check(got, want):
    assert got == want


CASES = [(1, 2, 3), (2, 2, 4)]


def test_add():
    assert add(2, 3) == 5


def test_check():
    check(add(1, 1), 2)


def test_same():
    same(add(0, 0), 0)


@pytest.mark.parametrize(("a", "b", "total"), CASES)
def test_cases(a, b, total):
    assert add(a, b) == total


class TestClass:
    def test_method(self):
        assert add(1, 0) == 1
''',
}
IDS = [
    "tests/test_calc.py::test_add",
    "tests/test_calc.py::test_check",
    "tests/test_calc.py::test_same",
    "tests/test_calc.py::test_cases[1-2-3]",
    "tests/test_calc.py::TestClass::test_method",
]


def committed(
    tmp_path: Path, change: dict[str, str], base: dict[str, str] | None = None
) -> Committed:
    return committed_change(tmp_path, base or BASE, change)


def edit(path: str, old: str, new: str) -> dict[str, str]:
    text = BASE[path]
    assert old in text
    return {path: text.replace(old, new)}


TEST = BASE["tests/test_calc.py"]
EDITS = {
    "a loosened assertion": (
        edit("tests/test_calc.py", "assert add(2, 3) == 5", "assert add(2, 3) is not None"),
        {"tests/test_calc.py::test_add": ("its body",)},
    ),
    "an early return": (
        edit("tests/test_calc.py", "def test_add():\n", "def test_add():\n    return\n"),
        {"tests/test_calc.py::test_add": ("its body",)},
    ),
    "an emptied module helper": (
        edit(
            "tests/test_calc.py",
            "def check(got, want):\n    assert got == want",
            "def check(got, want):\n    pass",
        ),
        {"tests/test_calc.py::test_check": ("`check` in tests/test_calc.py",)},
    ),
    "an emptied helper module": (
        edit("tests/helpers.py", "    assert got == want\n", "    pass\n"),
        {"tests/test_calc.py::test_same": ("`same` in tests/helpers.py",)},
    ),
    "a changed parametrize value": (
        edit("tests/test_calc.py", "(2, 2, 4)]", "(2, 2, 5)]"),
        {"tests/test_calc.py::test_cases[1-2-3]": ("`CASES` in tests/test_calc.py",)},
    ),
    "a new mark": (
        edit("tests/test_calc.py", "def test_add():", "@pytest.mark.skip\ndef test_add():"),
        {"tests/test_calc.py::test_add": ("its decorators",)},
    ),
    "a method of its class": (
        edit("tests/test_calc.py", "class TestClass:\n", "class TestClass:\n    x = 1\n\n"),
        {"tests/test_calc.py::TestClass::test_method": ("its class TestClass",)},
    ),
}


@pytest.mark.parametrize("name", EDITS)
def test_each_edit_names_the_test_and_what_changed_and_no_neighbour(
    tmp_path: Path, name: str
) -> None:
    change, expected = EDITS[name]
    assert edited_tests(committed(tmp_path, change), IDS) == expected


@pytest.mark.parametrize(
    "change",
    [
        # Comments, layout and the docstring are no edit.
        {"tests/test_calc.py": TEST.replace("def test_add():", "# add\ndef test_add( ):")},
        # A new test and the import it needs edit no neighbour: names, not lines.
        {
            "tests/test_calc.py": TEST.replace(
                "import pytest\n", "import os\nimport pytest\n"
            ).replace("from tests.helpers import same", "from tests.helpers import OTHER, same")
            + "\n\ndef test_new():\n    assert os.sep and OTHER\n"
        },
        # The code under test is what a change is for.
        {"calc.py": "def add(a, b):\n    return a - b\n"},
        # A helper no test uses.
        {"tests/helpers.py": BASE["tests/helpers.py"].replace("OTHER = 1", "OTHER = 2")},
    ],
    ids=["layout", "new test", "code under test", "unused helper"],
)
def test_what_is_no_edit_of_a_registered_test(tmp_path: Path, change: dict[str, str]) -> None:
    assert edited_tests(committed(tmp_path, change), IDS) == {}


def test_module_code_that_cannot_be_followed_edits_every_test_of_its_module(
    tmp_path: Path,
) -> None:
    change = {"tests/test_calc.py": TEST + "\nadd.__defaults__ = None\n"}
    edits = edited_tests(committed(tmp_path, change), IDS)
    assert set(edits) == set(IDS)
    assert edits[IDS[0]] == ("module code of tests/test_calc.py that cannot be followed (added)",)


def test_a_helper_module_imported_whole_is_followed_by_attribute(tmp_path: Path) -> None:
    base_test = "import tests.helpers as h\n\n\ndef test_x():\n    h.same(1, 1)\n"
    base = {**BASE, "tests/test_h.py": base_test}
    change = {"tests/helpers.py": "def same(got, want):\n    pass\n\n\nOTHER = 1\n"}
    edits = edited_tests(committed(tmp_path, change, base), ["tests/test_h.py::test_x", *IDS])
    assert edits == {
        "tests/test_h.py::test_x": ("`same` in tests/helpers.py",),
        "tests/test_calc.py::test_same": ("`same` in tests/helpers.py",),
    }


def test_an_id_of_another_producer_is_edited_when_its_file_changed(tmp_path: Path) -> None:
    change = {"web/app.test.js": "test('x', () => {})\n"}
    ids = ["web/app.test.js::x", "com.example.AppTest::x"]
    assert edited_tests(committed(tmp_path, change), ids) == {
        "web/app.test.js::x": ("its file changed",)
    }


def test_a_module_is_parsed_only_where_a_changed_module_is_named_on_the_way(
    tmp_path: Path,
) -> None:
    files = {
        "tests/helpers.py": "def same(got, want):\n    assert got == want\n",
        "tests/base.py": "from tests.helpers import same\n",
        "tests/test_a.py": "from tests.base import same\n\n\ndef test_a():\n    same(1, 1)\n",
        "tests/test_b.py": "def test_b():\n    assert True\n",
    }
    tree = committed(tmp_path, {"tests/helpers.py": "def same(got, want):\n    pass\n"}, files)
    modules = {"tests/test_a.py", "tests/test_b.py"}
    assert reached_modules(tree.head, tree.changed, modules) == {"tests/test_a.py"}
    assert edited_tests(tree, ["tests/test_a.py::test_a", "tests/test_b.py::test_b"]) == {
        "tests/test_a.py::test_a": ("`same` in tests/helpers.py",)
    }
    assert module_stem("tests/helpers/__init__.py") == "helpers"


ALL_EDITED = {
    "code a helper module gains at module level": {
        "tests/helpers.py": BASE["tests/helpers.py"]
        + "\nimport calc\ncalc.add.__defaults__ = None\n"
    },
    "an assignment in a helper module that calls": {
        "tests/helpers.py": BASE["tests/helpers.py"]
        + "\nimport calc\n_ = setattr(calc, 'add', max)\n"
    },
    "a new import of a module that does more than define names": {
        "tests/_speed.py": "import calc\n\ncalc.add.__code__ = max.__code__\n",
        "tests/test_calc.py": TEST.replace(
            "import pytest\n", "import pytest\nimport tests._speed\n"
        ),
    },
    "a new star import of such a module": {
        "tests/_speed.py": "import calc\n\ncalc.add.__code__ = max.__code__\n",
        "tests/test_calc.py": TEST + "\nfrom tests._speed import *\n",
    },
    "code a package of the test module gains": {
        "tests/__init__.py": "import calc\ncalc.add = max\n"
    },
    "a new autouse fixture": {
        "tests/test_calc.py": TEST
        + "\n\n@pytest.fixture(autouse=True)\ndef _patch(monkeypatch):\n    monkeypatch.setattr('calc.add', max)\n"
    },
    "an autouse fixture imported by name": {
        "tests/fixtures.py": "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef fast():\n    pass\n",
        "tests/test_calc.py": TEST.replace(
            "import pytest\n", "import pytest\n\nfrom tests.fixtures import fast\n"
        ),
    },
    "an autouse fixture imported by a star": {
        "tests/fixtures.py": "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef fast():\n    pass\n",
        "tests/test_calc.py": TEST.replace(
            "import pytest\n", "import pytest\n\nfrom tests.fixtures import *\n"
        ),
    },
    "a new setup_module": {"tests/test_calc.py": TEST + "\n\ndef setup_module():\n    pass\n"},
    "a new setup_function": {
        "tests/test_calc.py": TEST + "\n\ndef setup_function(function):\n    pass\n"
    },
    "a new teardown_function": {
        "tests/test_calc.py": TEST + "\n\ndef teardown_function(function):\n    pass\n"
    },
}


@pytest.mark.parametrize("name", ALL_EDITED)
def test_what_runs_around_every_test_of_a_module_edits_every_one(tmp_path: Path, name: str) -> None:
    edits = edited_tests(committed(tmp_path, ALL_EDITED[name]), IDS)
    assert set(edits) == set(IDS)


def test_what_changed_around_the_tests_is_named(tmp_path: Path) -> None:
    change = ALL_EDITED["a new import of a module that does more than define names"]
    edits = edited_tests(committed(tmp_path, change), IDS)
    assert edits[IDS[0]] == (
        "`calc` in tests/_speed.py (added)",
        "import-time code of tests/_speed.py (added)",
    )
    change = ALL_EDITED["a new autouse fixture"]
    (tmp_path / "autouse").mkdir()
    edits = edited_tests(committed(tmp_path / "autouse", change), IDS)
    assert edits[IDS[0]] == ("its module's autouse fixture _patch (added)",)


def test_an_imported_autouse_fixture_edited_in_its_module_edits_every_test(
    tmp_path: Path,
) -> None:
    fixtures = "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef fast():\n    pass\n"
    test = TEST.replace("import pytest\n", "import pytest\n\nfrom tests.fixtures import fast\n")
    base = {**BASE, "tests/fixtures.py": fixtures, "tests/test_calc.py": test}
    change = {"tests/fixtures.py": fixtures.replace("pass", "return 1")}
    edits = edited_tests(committed(tmp_path, change, base), IDS)
    assert set(edits) == set(IDS)
    assert edits[IDS[0]] == ("its module's autouse fixture fast, from tests/fixtures.py",)


def test_a_function_module_code_calls_is_part_of_every_test(tmp_path: Path) -> None:
    base = {**BASE, "tests/test_calc.py": TEST + "\n\ndef _patch():\n    pass\n\n\n_patch()\n"}
    change = {
        "tests/test_calc.py": base["tests/test_calc.py"].replace("    pass\n\n\n_", "    1\n\n\n_")
    }
    edits = edited_tests(committed(tmp_path, change, base), IDS)
    assert set(edits) == set(IDS)
    assert edits[IDS[0]] == ("`_patch` in tests/test_calc.py",)


def test_an_edited_setup_method_edits_the_tests_of_its_class_alone(tmp_path: Path) -> None:
    change = edit(
        "tests/test_calc.py",
        "class TestClass:\n",
        "class TestClass:\n    def setup_method(self, method):\n        pass\n\n",
    )
    assert edited_tests(committed(tmp_path, change), IDS) == {
        "tests/test_calc.py::TestClass::test_method": ("its class TestClass",)
    }


CACHED_HELPERS = BASE["tests/helpers.py"] + "\nCACHE = {}\nCACHE.update(a=1)\n"
PLAIN = "import calc\n\nLIMIT = 3\n\n\ndef double(x):\n    return calc.add(x, x)\n"


@pytest.mark.parametrize(
    "change",
    [
        # A new import of a module of plain definitions, and the test that uses it.
        {
            "tests/plain.py": PLAIN,
            "tests/test_calc.py": TEST.replace(
                "import pytest\n", "import pytest\nimport tests.plain\n"
            )
            + "\n\ndef test_double():\n    assert tests.plain.double(2) == 4\n",
        },
        # An empty package file, and a fixture that is not autouse.
        {
            "tests/__init__.py": "",
            "tests/test_calc.py": TEST
            + "\n\n@pytest.fixture(autouse=False)\ndef fresh():\n    return 1\n",
        },
        # A new function in a helper module that does more than define names.
        {
            "tests/helpers.py": CACHED_HELPERS + "\n\ndef unused():\n    pass\n",
        },
        # A name a helper module binds by calling a function of its own, that no test uses.
        {
            "tests/helpers.py": CACHED_HELPERS + "\nLIMIT = max(1, 2)\n",
        },
    ],
    ids=["plain import", "no autouse", "new helper beside import-time code", "assigned call"],
)
def test_what_does_not_run_around_every_test_edits_none(
    tmp_path: Path, change: dict[str, str]
) -> None:
    base = {**BASE, "tests/helpers.py": CACHED_HELPERS}
    assert edited_tests(committed(tmp_path, change, base), IDS) == {}


@pytest.mark.parametrize(
    ("source", "import_time"),
    [
        ("import calc\ncalc.add = max\n", True),
        ("_ = setattr(calc, 'add', max)\n", True),
        ("_ = builtins.exec('calc.add = max')\n", True),
        ("X = (y := 1)\n", True),
        ("counts = st.integers(min_value=0)\n", False),
        ("X = 1\n\n\ndef f():\n    setattr(calc, 'add', max)\n", False),
        ("@pytest.fixture\ndef fresh():\n    return 1\n", False),
    ],
)
def test_import_time_code_is_what_does_more_than_define_names(
    source: str, import_time: bool
) -> None:
    scope = read_scope(ast.parse(source), "tests/helpers.py")
    assert bool(scope.import_time()) is import_time


def test_code_a_package_gains_edits_its_modules_that_never_name_it(tmp_path: Path) -> None:
    files = {
        "calc.py": "def add(a, b):\n    return a + b\n",
        "tests/__init__.py": "",
        "tests/unit/__init__.py": "",
        "tests/unit/test_x.py": "from calc import add\n\n\ndef test_x():\n    assert add(1, 1) == 2\n",
        "tests/test_y.py": "def test_y():\n    assert True\n",
    }
    change = {"tests/unit/__init__.py": "import calc\n\ncalc.add = max\n"}
    tree = committed(tmp_path, change, files)
    modules = {"tests/unit/test_x.py", "tests/test_y.py"}
    assert reached_modules(tree.head, tree.changed, modules) == {"tests/unit/test_x.py"}
    assert edited_tests(tree, ["tests/unit/test_x.py::test_x", "tests/test_y.py::test_y"]) == {
        "tests/unit/test_x.py::test_x": (
            "`calc` in tests/unit/__init__.py (added)",
            "import-time code of tests/unit/__init__.py (added)",
        )
    }


ALIKE_BASE = {
    "tests/helpers.py": "def a(x):\n    assert x\n\n\ndef b(x):\n    assert x\n\n\nC = 1\n",
    "tests/test_alike.py": """\
import pytest

from tests import helpers
from tests.helpers import C, a, b

LOCAL = 2


def test_a():
    a(1)


def test_a_with_locals():
    value = 3
    a(value)


def test_b():
    b(len([1]))


def test_helpers_a():
    helpers.a(1)


def test_c():
    assert C == 1


def test_local():
    assert LOCAL == 2


@pytest.mark.parametrize("x", [C])
def test_marked(x):
    a(x)


class TestGroup:
    factor = C

    def test_in_class(self):
        b(self.factor)
""",
}
ALIKE_IDS = [
    f"tests/test_alike.py::{name}"
    for name in (
        "test_a", "test_a_with_locals", "test_b", "test_helpers_a", "test_c", "test_local",
        "test_marked[1]", "TestGroup::test_in_class",
    )
]  # fmt: skip
ALIKE_CHANGES = {
    "a": ("def a(x):\n    assert x", "def a(x):\n    pass"),
    "b": ("def b(x):\n    assert x", "def b(x):\n    pass"),
    "C": ("C = 1", "C = 2"),
    "none": ("C = 1", "C = 1  # a comment"),
}


@pytest.mark.parametrize("edit", ALIKE_CHANGES)
def test_tests_that_use_the_same_names_compare_as_each_compares_alone(
    tmp_path: Path, edit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = ALIKE_CHANGES[edit]
    helpers = ALIKE_BASE["tests/helpers.py"].replace(old, new)
    change = committed_change(tmp_path, ALIKE_BASE, {**ALIKE_BASE, "tests/helpers.py": helpers})
    found = edited_tests(change, ALIKE_IDS)
    monkeypatch.setattr(edited_module, "names_key", lambda *args: None)
    assert found == edited_tests(change, ALIKE_IDS)
    expected = {
        "a": {"test_a", "test_a_with_locals", "test_helpers_a", "test_marked[1]"},
        "b": {"test_b", "TestGroup::test_in_class"},
        "C": {"test_c", "test_marked[1]", "TestGroup::test_in_class"},
        "none": set(),
    }[edit]
    assert {test_id.partition("::")[2] for test_id in found} == expected
