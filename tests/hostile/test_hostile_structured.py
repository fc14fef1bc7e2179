"""Structured files built to make the gate's own work explode: YAML aliases to aliases, a
value that holds itself, nesting past every parser's comfort. Each is an input error that
names the file, reached in bounded memory (measured in a process of its own), never a
traceback, a hang or a verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.hostile_support import Repo, Run, measured
from helpers.init_support import WAIVER_REF
from helpers.support import git, write_tree

# Far above the interpreter and waiver's imports (about 40 MB), far below what the bombs
# cost before they were counted (1.6 GB and more).
PEAK_MB = 100


def alias_bomb(levels: int = 9, width: int = 10) -> str:
    """Nine levels of ten aliases to the level below: 10**9 strings once expanded."""
    strings = ",".join(['"x"'] * width)
    lines = [f"a0: &a0 [{strings}]"]
    for level in range(1, levels):
        aliases = ",".join([f"*a{level - 1}"] * width)
        lines.append(f"a{level}: &a{level} [{aliases}]")
    return "\n".join(lines) + "\n"


BOMB = alias_bomb()
REFUSED = "the YAML document holds more than 100,000 values once its aliases are expanded"


def test_the_bomb_is_the_one_the_issue_measured() -> None:
    assert len(BOMB.encode()) == 450


@pytest.mark.parametrize(
    ("runner", "name"),
    [("vitest", ".yarnrc.yml"), ("jest", "sub/.yarnrc.yml"), ("mocha", ".mocharc.yml")],
)
def test_an_alias_bomb_in_a_runner_config_is_refused_in_bounded_memory(
    repo: Repo, runner: str, name: str
) -> None:
    (repo.root / "waiver.yml").write_text(f"registry: none\nrunner: {runner}\n")
    write_tree(repo.root, {name: BOMB})
    code, err, peak = measured(repo.root, *repo.args())
    assert code == 2
    assert f"waiver: error: {name}: {REFUSED}" in err
    assert "Traceback" not in err
    assert peak < PEAK_MB


def test_an_alias_bomb_stops_init_dry_run_in_bounded_memory(tmp_path: Path) -> None:
    files = {
        "package.json": '{"name": "calc", "private": true, "scripts": {"test": "vitest run"}}',
        "src/calc.js": "export const add = (a, b) => a + b;\n",
        "test/calc.test.js": "import { add } from '../src/calc';\ntest('adds', () => {});\n",
        "test/properties/add.test.js": "test('commutes', () => {});\n",
        ".yarnrc.yml": BOMB,
    }
    write_tree(tmp_path, files)
    git(tmp_path, "init", "--quiet")
    pin = ["--waiver-repository", "acme/waiver", "--waiver-ref", WAIVER_REF]
    code, err, peak = measured(tmp_path, "init", "--dry-run", "--no-verify", *pin)
    assert code == 2
    assert f".yarnrc.yml: {REFUSED}" in err
    assert "Traceback" not in err
    assert peak < PEAK_MB


def test_an_alias_bomb_as_the_policy_file_is_refused(repo: Repo, checked_gate: Run) -> None:
    (repo.root / "waiver.yml").write_text(BOMB)
    code, _, err = checked_gate()
    assert code == 2
    assert f"waiver.yml: {REFUSED}" in err


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a: &a [1, *a]\n", "the YAML alias *a (line 1) is inside its own anchor"),
        ("a: &a {b: *a}\n", "the YAML alias *a (line 1) is inside its own anchor"),
        ("a: " + "[" * 5000 + "]" * 5000 + "\n", "YAML nested deeper than 100 levels"),
        ("[" + "x, " * 120_000 + "]\n", REFUSED),
    ],
)
def test_a_yaml_config_without_end_is_an_input_error_naming_it(
    repo: Repo, checked_gate: Run, text: str, problem: str
) -> None:
    (repo.root / "waiver.yml").write_text("registry: none\nrunner: mocha\n")
    (repo.root / ".mocharc.yml").write_text(text)
    code, _, err = checked_gate()
    assert code == 2
    assert f"waiver: error: .mocharc.yml: {problem}" in err


DEEP = 150


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("package.json", '{"jest": ' + "[" * DEEP + "]" * DEEP + "}", "JSON nested deeper than 100 levels"),
        ("pyproject.toml", "x = " + "[" * DEEP + "]" * DEEP + "\n", "TOML nested deeper than 100 levels"),
        ("jest.config.js", "module.exports = " + "[" * 400_000 + "]" * 400_000 + ";\n",
         "its syntax tree holds more than 1,000,000 nodes"),
    ],
)  # fmt: skip
def test_a_config_nested_or_grown_past_the_caps_is_an_input_error_naming_it(
    repo: Repo, checked_gate: Run, name: str, text: str, problem: str
) -> None:
    (repo.root / "waiver.yml").write_text("registry: none\nrunner: jest\n")
    (repo.root / name).write_text(text)
    code, _, err = checked_gate()
    assert code == 2
    assert f"waiver: error: {name}: {problem}" in err
