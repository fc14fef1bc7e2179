"""The policy's path globs on a JavaScript project's tree: a leading `/` or `./` anchors a glob
at the root as in .gitignore, and a glob that matches nothing is an error that names it.

Real files, locked by `waiver lock` and checked by `waiver check-lock` and the gate.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.junit_support import PASSING_PROPERTIES, case, junit
from helpers.support import gate_args, write_tree
from waiver.cli import main

PROJECT = {
    "package.json": '{"name": "web"}\n',
    "jest.config.js": "module.exports = {}\n",
    "packages/ui/package.json": '{"name": "ui"}\n',
    "packages/ui/test/button.test.js": "test('x', () => {})\n",
    "fixtures/users.json": "[]\n",
    "fixtures/deep/orders.json": "[]\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "web", PROJECT)


def lock(root: Path, policy: str, *extra: str) -> int:
    (root / "waiver.yml").write_text(policy)
    return main(
        ["lock", "--root", str(root), "--fixtures", str(root / "fixtures"),
         "--config", str(root / "waiver.yml"), "--out", str(root / "fixture.lock"), *extra]
    )  # fmt: skip


def locked(root: Path) -> list[str]:
    return [line.split("  ", 1)[1] for line in (root / "fixture.lock").read_text().splitlines()]


@pytest.mark.parametrize(
    ("glob", "paths"),
    [
        ("package.json", ["package.json", "packages/ui/package.json"]),
        ("/package.json", ["package.json"]),
        ("./package.json", ["package.json"]),
        ("packages/*/package.json", ["packages/ui/package.json"]),
        ("/packages/*/package.json", ["packages/ui/package.json"]),
        ("*.json", ["package.json", "packages/ui/package.json"]),
        ("/jest.config.*", ["jest.config.js"]),
        # `*` crosses `/`, anchored or not, as in every glob of the policy file.
        ("/*.js", ["jest.config.js", "packages/ui/test/button.test.js"]),
    ],
)
def test_an_anchored_harness_glob_names_the_root_path_alone(
    project: Path, glob: str, paths: list[str]
) -> None:
    assert lock(project, f'harness: ["{glob}"]\n') == 0
    fixtures = ["fixtures/deep/orders.json", "fixtures/users.json"]
    assert locked(project) == sorted({*fixtures, *paths})


def test_a_fixture_glob_with_an_anchor_matches_from_the_fixtures_folder(project: Path) -> None:
    for glob in ("users.json", "/users.json", "./users.json"):
        assert lock(project, f'fixtures: ["{glob}"]\n') == 0
        assert locked(project) == ["fixtures/users.json"]
    assert lock(project, 'fixtures: ["/*.json"]\n') == 0
    assert locked(project) == ["fixtures/deep/orders.json", "fixtures/users.json"]


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        ('harness: ["jest.config.js", "karma.conf.js"]\n', "harness[1]: 'karma.conf.js'"),
        ('harness: ["/button.test.js"]\n', "harness[0]: '/button.test.js'"),
        ('fixtures: ["*.json", "*.yaml"]\n', "fixtures[1]: '*.yaml'"),
        ('fixtures: ["/fixtures/users.json"]\n', "fixtures[0]: '/fixtures/users.json'"),
    ],
)
def test_a_glob_that_matches_nothing_is_an_error_that_names_it(
    project: Path, capsys: pytest.CaptureFixture[str], policy: str, message: str
) -> None:
    assert lock(project, policy) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"waiver: error: {project / 'waiver.yml'}: {message} matches no file (")
    assert not (project / "fixture.lock").exists()


def test_a_pattern_flag_that_matches_nothing_is_named_as_the_flag(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert lock(project, "min_replays: 5\n", "--pattern", "*.json", "--pattern", "*.csv") == 2
    assert capsys.readouterr().err.startswith("waiver: error: --pattern: '*.csv' matches no file (")


def check_lock(root: Path) -> int:
    return main(
        ["check-lock", "--root", str(root), "--fixtures", str(root / "fixtures"),
         "--lock", str(root / "fixture.lock"), "--config", str(root / "waiver.yml")]
    )  # fmt: skip


def test_deleting_what_a_glob_names_is_drift_not_an_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert lock(project, 'harness: ["jest.config.js"]\nfixtures: ["deep/*"]\n') == 0
    (project / "jest.config.js").unlink()
    (project / "fixtures" / "deep" / "orders.json").unlink()
    capsys.readouterr()
    assert check_lock(project) == 1
    assert capsys.readouterr().out.splitlines()[1:3] == [
        "  fixtures/deep/orders.json: missing (fixtures)",
        "  jest.config.js: missing (harness)",
    ]


def test_the_gate_refuses_a_glob_that_names_neither_the_lock_nor_the_tree(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert lock(project, 'harness: ["jest.config.js"]\n') == 0
    (project / "waiver.yml").write_text('harness: ["jest.config.js", "/karma.conf.js"]\n')
    capsys.readouterr()
    assert check_lock(project) == 2
    assert "harness[1]: '/karma.conf.js' matches no file" in capsys.readouterr().err


def test_the_summary_names_a_javascript_harness_without_pytest_words(project: Path) -> None:
    write_tree(
        project,
        {
            "scripts/junit.sh": "#!/bin/sh\n",
            ".mocharc.yml": "spec: test\n",
            "properties.xml": PASSING_PROPERTIES,
            **{f"reports/run-{n}.xml": junit(case("button", "renders")) for n in range(1, 6)},
        },
    )
    policy = (
        'registry: none\nharness: ["/package.json", "/scripts/*.sh", "jest.config.js", '
        '"/.mocharc.yml"]\n'
    )
    assert lock(project, policy) == 0
    for name in ("package.json", "scripts/junit.sh", "jest.config.js", ".mocharc.yml"):
        (project / name).write_text("changed\n")
    assert main(gate_args(project, "--config", str(project / "waiver.yml"), known_tests=False,
                          summary=True)) == 1  # fmt: skip
    summary = (project / "summary.md").read_text()
    assert (
        "**The change edits the test harness** (`.mocharc.yml`, `jest.config.js`, "
        "`package.json` and 1 more), so its replays cannot be trusted"
    ) in summary
    assert "pytest" not in summary
    assert "conftest" not in summary
