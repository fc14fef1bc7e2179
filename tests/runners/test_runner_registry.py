"""Every runner the registry holds (`waiver.runners.RUNNERS`) answers the runner interface
under the name the policy gives it (`waiver.decide.policy.RunnerName`), and every place that
lists the runners takes the list from there: the policy's `runner:` key and its schema, the
report's `policy.runner`, and the tables a lock may hold."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import get_args, get_type_hints

import pytest

from helpers.support import write_tree
from waiver.decide.policy import DEFAULT_RUNNER, RUNNER_NAMES, Policy, policy_key
from waiver.read.lock.lock_file import parse_lock
from waiver.read.trusted.trees import DiskTree
from waiver.runners import LOCK_TABLES, RUNNERS, policy_harness, runner_named
from waiver.write.report.report_types import PolicyJson


def test_the_registry_holds_each_named_runner_under_its_name() -> None:
    assert tuple(RUNNERS) == RUNNER_NAMES
    assert all(runner_named(name).name == name for name in RUNNER_NAMES)
    assert DEFAULT_RUNNER in RUNNER_NAMES


def test_the_policy_and_the_report_take_the_names_from_the_registry() -> None:
    (runner,) = [field for field in fields(Policy) if field.name == "runner"]
    assert policy_key(runner).schema == {"enum": list(RUNNER_NAMES)}
    assert all(name in policy_key(runner).description for name in RUNNER_NAMES)
    assert Policy().runner == DEFAULT_RUNNER
    assert get_args(get_type_hints(PolicyJson)["runner"]) == RUNNER_NAMES


@pytest.mark.parametrize("name", RUNNER_NAMES)
def test_a_lock_read_under_any_runner_holds_every_runner_s_tables(name: str) -> None:
    harness = policy_harness(Policy(runner=name), frozenset())
    assert harness.lock_tables == LOCK_TABLES
    for runner in RUNNERS.values():
        declared = runner.lock_tables
        for table in sorted(declared.toml | declared.package_keys | declared.jsonc):
            line = f"# [{table}] {'0' * 64}  a/file\n"
            assert parse_lock(line.encode(), "fixture.lock", harness.lock_tables)[0].table == table


def test_every_runner_locks_pytest_s_tables_and_a_javascript_runner_its_package_keys() -> None:
    pytest_tables = runner_named("pytest").lock_tables
    assert "tool.pytest" in pytest_tables.toml
    assert all(pytest_tables.toml <= runner.lock_tables.toml for runner in RUNNERS.values())
    assert {"jest", "jest-junit", "babel"} <= runner_named("jest").lock_tables.package_keys
    assert "mocha" in runner_named("mocha").lock_tables.package_keys


@pytest.mark.parametrize("name", RUNNER_NAMES)
def test_a_runner_names_the_title_of_an_id_and_no_file_where_the_id_names_none(
    name: str,
) -> None:
    runner = runner_named(name)
    assert runner.title("tests/calc_test.py::adds") == "adds"
    assert runner.test_file("adds") is None
    assert runner.load_failure("tests/calc_test.py") != ("", "")


@pytest.mark.parametrize("name", RUNNER_NAMES)
def test_a_runner_s_red_green_command_writes_the_report_the_gate_reads(name: str) -> None:
    assert '"$WAIVER_JUNIT"' in runner_named(name).red_green_command()


@pytest.mark.parametrize("name", RUNNER_NAMES)
def test_a_runner_s_harness_holds_the_policy_s_globs_and_the_property_modules(
    name: str,
) -> None:
    harness = runner_named(name).harness(("ci/*.sh",), frozenset({"props/test_p.py"}))
    assert harness.covers("ci/run.sh")
    assert harness.covers("props/test_p.py")
    assert not harness.covers("src/calc.py")


@pytest.mark.parametrize("name", RUNNER_NAMES)
def test_a_runner_s_test_tree_holds_no_code_of_the_library(tmp_path: Path, name: str) -> None:
    tree = DiskTree(str(write_tree(tmp_path, {"src/calc.py": "", "src/calc.js": ""})))
    runner = runner_named(name)
    assert not runner.test_tree(tree).holds("src/calc.py")
    assert not runner.test_tree(tree).holds("src/calc.js")
    assert runner.files(tree) == {}
