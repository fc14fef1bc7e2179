"""Tests edited from around them, tried as an attacker would: the example committed as the
base and locked by `waiver lock`, one change commit, `waiver replay` with the base's harness,
then the gate with `--trusted-ref BASE`.

`test_empty` is red in truth, and no change here touches its function: test code that runs
around it (a helper module's top level, a module it newly imports, an autouse fixture,
`setup_function`, `setup_module`) swaps the code under test for a fixed copy while the tests
run. The replays pass, so only the edited-test check stands between the change and a verdict
that lets it through. No line names the runner, so the reach-in scan sees nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.change_support import Patch, commit_base, commit_change, replay_and_gate
from helpers.support import EMPTY, classes

pytestmark = pytest.mark.slow

TEST = "tests/assertions/test_slug.py"
HELPERS = '"""What the example\'s tests share."""\n\nPLACEHOLDER = "untitled"\n'
# The code under test with the placeholder, run under the code object of the real one.
SWAP = """\
import slugify as _code


def _fixed(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "untitled"


"""
AUTOUSE = """

@pytest.fixture(autouse=True)
def _warm(monkeypatch):
    monkeypatch.setattr(_code.slugify, "__code__", _fixed.__code__)
"""


def helpers_base(work: Path) -> None:
    """A helper module the example's test module imports, of plain definitions."""
    (work / "tests" / "helpers.py").write_text(HELPERS)
    test = work / TEST
    text = test.read_text().replace(
        "from slugify import slugify\n",
        "from slugify import slugify\n\nfrom tests.helpers import PLACEHOLDER\n",
    )
    test.write_text(text.replace('== "untitled"', "== PLACEHOLDER"))


def append(work: Path, path: str, text: str) -> None:
    file = work / path
    file.write_text(file.read_text() + text)


def helper_module_code(work: Path) -> None:
    append(work, "tests/helpers.py", "\n" + SWAP + "_code.slugify.__code__ = _fixed.__code__\n")


def new_import(work: Path) -> None:
    (work / "tests" / "_warm.py").write_text(SWAP + "_code.slugify.__code__ = _fixed.__code__\n")
    test = work / TEST
    test.write_text(
        test.read_text().replace("import json\n", "import json\n\nimport tests._warm\n")
    )


def autouse_fixture(work: Path) -> None:
    append(work, TEST, "\n\nimport pytest\n" + SWAP + AUTOUSE)


def a_setup_function(work: Path) -> None:
    append(work, TEST, "\n\n" + SWAP + "def setup_function(function):\n"
           "    _code.slugify.__code__ = _fixed.__code__\n")  # fmt: skip


def a_setup_module(work: Path) -> None:
    append(work, TEST, "\n\n" + SWAP + "def setup_module(module):\n"
           "    _code.slugify.__code__ = _fixed.__code__\n")  # fmt: skip


@pytest.mark.parametrize(
    ("patch", "what"),
    [
        (helper_module_code, "import-time code of tests/helpers.py (added)"),
        (new_import, "import-time code of tests/_warm.py (added)"),
        (autouse_fixture, "its module's autouse fixture _warm (added)"),
        (a_setup_function, "its module's setup_function (added)"),
        (a_setup_module, "its module's setup_module (added)"),
    ],
    ids=["helper module code", "new import", "autouse fixture", "setup_function", "setup_module"],
)
def test_code_that_runs_around_a_red_test_makes_it_edited(
    tmp_path: Path, patch: Patch, what: str
) -> None:
    work = tmp_path / "demo"
    base = commit_base(work, helpers_base)
    commit_change(work, patch)
    replayed, gated, report = replay_and_gate(work, base, tests_from=True, replays=5)
    row = next(row for row in report["rows"] if row["test_id"] == EMPTY)
    # The swap works: the red test passes every replay.
    assert replayed == 0
    assert (row["replay_pass"], row["replay_total"]) == (5, 5)
    assert (gated, report["verdict"], classes(report)[EMPTY]) == (1, "blocked", "unknown_test")
    edited = {entry["test_id"]: entry["changes"] for entry in report["registry"]["edited"]}
    assert what in edited[EMPTY]
    assert report["fixtures"]["runner_reach"] == []


def test_a_new_test_and_its_plain_import_edit_no_neighbour(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    base = commit_base(work, helpers_base)

    def new_test(work: Path) -> None:
        (work / "tests" / "cases.py").write_text('"""More cases."""\n\nDASHES = "a  b"\n')
        test = work / TEST
        text = test.read_text().replace("import json\n", "import json\n\nimport tests.cases\n")
        test.write_text(
            text + '\n\ndef test_dashes():\n    assert slugify(tests.cases.DASHES) == "a-b"\n'
        )

    commit_change(work, new_test)
    _, gated, report = replay_and_gate(work, base, tests_from=True, replays=5)
    assert report["registry"]["edited"] == []
    assert classes(report)[EMPTY] == "stable_assertion_fail"
    assert gated == 1
