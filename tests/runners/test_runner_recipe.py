"""The recipe "A test runner" (docs/development.md), followed once: a copy of the package
with a stub runner added by the recipe's steps, and the tests that take the runners from the
registry run on it. The policy schema, the report's types, the docs' table and the runner
interface's tests take the stub with no other file edited, and the files the recipe touches
outside the runner's package, counted in the copy, are the ones it names: four at most."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.support import REPO

# Step 1: the runner's package, `waiver/runners/stub/__init__.py`.
STUB_PACKAGE = '''"""stub: the smallest runner, for the recipe's test: ids by the gate's own rule, no
harness but pytest's, which every runner's lock holds, and the policy's globs, no test
tree, and no edited tests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from waiver.read.definitions.edit_kinds import EditFinding
from waiver.read.harness.named import Harness, Pair, Why
from waiver.read.harness.reach_in import ReachIn
from waiver.read.harness.test_tree import TestTree
from waiver.read.junit.testid import TestIdRule
from waiver.read.lock.lock_file import LockTables
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import FileTree
from waiver.runners.pytest.harness.finder import PYTEST_FINDER
from waiver.runners.pytest.harness.plugin_options import PYTEST_LOCK_TABLES


def _none(path: str) -> bool:
    return False


class Stub:
    @property
    def name(self) -> str:
        return "stub"

    @property
    def lock_tables(self) -> LockTables:
        return PYTEST_LOCK_TABLES

    def harness(self, patterns: Sequence[str], modules: frozenset[str]) -> Harness:
        return Harness(PYTEST_FINDER, tuple(patterns), modules)

    def files(self, tree: FileTree) -> Mapping[Pair, Why]:
        return {}

    def test_tree(self, tree: FileTree) -> TestTree:
        return TestTree(_none, _none, frozenset(), _none)

    def test_ids(self, root: str | None) -> TestIdRule:
        return TestIdRule(root)

    def test_file(self, test_id: str) -> str | None:
        path, separator, _ = test_id.partition("::")
        return path if separator else None

    def edited(self, committed: Committed, test_ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
        return {}

    def findings(
        self, committed: Committed, edited: Mapping[str, Sequence[str]]
    ) -> dict[str, tuple[EditFinding, ...]]:
        return {}

    def diffs(
        self, committed: Committed, edited: Mapping[str, Sequence[str]]
    ) -> dict[str, tuple[str, ...]]:
        return {}

    def reach_ins(self, committed: Committed) -> list[ReachIn]:
        return []

    def title(self, test_id: str) -> str:
        return test_id.partition("::")[2]

    def load_failure(self, test_file: str) -> None:
        return None

    def red_green_command(self) -> str:
        return 'stub --junit "$WAIVER_JUNIT" "$WAIVER_TEST_FILE"'


STUB = Stub()
'''
# Step 2: its name beside the others (`waiver/decide/policy.py`); step 3: its runner in the
# registry (`waiver/runners/__init__.py`).
NAMES = ('"vitest", "mocha"]', '"vitest", "mocha", "stub"]')
IMPORT = ("from waiver.runners.vitest import VITEST\n", "from waiver.runners.stub import STUB\nfrom waiver.runners.vitest import VITEST\n")  # fmt: skip
REGISTERED = ("(PYTEST, JEST, VITEST, MOCHA)", "(PYTEST, JEST, VITEST, MOCHA, STUB)")
# Step 5: its row in the documentation's table of red-green commands.
ROW = (
    "| mocha | `node_modules/.bin/mocha --reporter xunit --reporter-option "
    'output="$WAIVER_JUNIT" --grep "$WAIVER_TEST_PATTERN" "$WAIVER_TEST_FILE"` |\n'
)
STUB_ROW = '| stub | `stub --junit "$WAIVER_JUNIT" "$WAIVER_TEST_FILE"` |\n'
# What the recipe touches outside the runner's package, by hand or by the command of step 4.
TOUCHED = {
    "waiver/decide/policy.py",
    "waiver/runners/__init__.py",
    "docs/runners.md",
    "waiver/schemas/waiver-config.schema.json",
}
MOST_TOUCHED = 4
TESTS = (
    "tests/runners/test_runner_registry.py",
    "tests/runners/test_runner_docs.py",
    "tests/test_policy_keys.py",
)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def changed_files(copy: Path) -> set[str]:
    """Each file of the copy's package and documentation that the checkout lacks or holds
    with other bytes, by its path from the root."""
    changed = set()
    for folder in ("waiver", "docs"):
        for path in (copy / folder).rglob("*"):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            relative = path.relative_to(copy).as_posix()
            original = REPO / relative
            if not original.is_file() or original.read_bytes() != path.read_bytes():
                changed.add(relative)
    return changed


def recipe() -> str:
    text = (REPO / "docs" / "development.md").read_text(encoding="utf-8")
    return text[text.index("### A test runner\n") :].split("\n### ", 1)[0]


def test_the_recipe_names_every_file_it_touches_and_touches_four_at_most() -> None:
    assert len(TOUCHED) <= MOST_TOUCHED
    assert all(f"`{path}`" in recipe() for path in TOUCHED)
    assert "Four files change outside the runner's package" in recipe().replace("\n", " ")


def run_tests(root: Path, regenerate: bool) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(root / "tests")])}
    environment.pop("WAIVER_REGENERATE", None)
    if regenerate:
        environment["WAIVER_REGENERATE"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-v",
         "--rootdir", str(root), *TESTS],
        cwd=root, env=environment, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


@pytest.mark.slow
def test_a_runner_added_by_the_recipe_is_taken_by_every_place_that_lists_the_runners(
    tmp_path: Path,
) -> None:
    ignored = shutil.ignore_patterns("__pycache__")
    for folder in ("waiver", "docs", "tests/helpers"):
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=ignored)
    for test in TESTS:
        (tmp_path / test).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / test, tmp_path / test)
    runners = tmp_path / "waiver" / "runners"
    (runners / "stub").mkdir()
    (runners / "stub" / "__init__.py").write_text(STUB_PACKAGE)
    edit(tmp_path / "waiver" / "decide" / "policy.py", *NAMES)
    edit(runners / "__init__.py", *IMPORT)
    edit(runners / "__init__.py", *REGISTERED)
    edit(tmp_path / "docs" / "runners.md", ROW, ROW + STUB_ROW)

    written = run_tests(tmp_path, regenerate=True)  # step 4: the schema written anew
    checked = run_tests(tmp_path, regenerate=False)

    assert written.returncode == 0, written.stdout[-3000:]
    assert checked.returncode == 0, checked.stdout[-3000:]
    assert f"rootdir: {tmp_path}" in checked.stdout
    assert "[stub]" in checked.stdout  # the interface's tests ran on the stub
    config = json.loads((runners.parent / "schemas" / "waiver-config.schema.json").read_text())
    assert config["properties"]["runner"]["enum"][-1] == "stub"
    report = json.loads((runners.parent / "schemas" / "waiver-report.schema.json").read_text())
    assert report["properties"]["policy"]["properties"]["runner"] == {"type": "string"}
    changed = changed_files(tmp_path)
    assert {path for path in changed if not path.startswith("waiver/runners/stub/")} == TOUCHED
