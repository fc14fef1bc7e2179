"""JavaScript and TypeScript code under test that newly reaches into the runner is named:
the runner's modules, exit hooks, the report's variables, the module loader and the
runner's globals; test code, and what the base already had, are not."""

from __future__ import annotations

from pathlib import Path

from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import DiskTree
from waiver.runners.jest import JEST
from waiver.runners.js_reach import constructs, is_source
from waiver.runners.pytest import PYTEST

REACHING = """\
const fs = require('fs');
const { expect } = require('expect');
import chai from 'chai';
process.on('exit', () => fs.writeFileSync(process.env.JEST_JUNIT_OUTPUT_FILE, ''));
globalThis.expect = () => ({ toBe() {} });
delete require.cache[require.resolve('./calc')];
const name = 'MOCHA_FILE';
"""


def test_each_way_of_reaching_into_the_runner_is_named_with_its_line() -> None:
    assert constructs(REACHING.encode(), "src/hook.js") == {
        "imports expect": 2,
        "imports chai": 3,
        "registers exit hooks (process.on('exit'))": 4,
        "names JEST_JUNIT_OUTPUT_FILE": 4,
        "reaches the runner's globals (globalThis.expect)": 5,
        "reaches the module loader (require.cache)": 6,
        "names MOCHA_FILE": 7,
    }
    plain = "const fs = require('fs');\nprocess.on('SIGINT', () => {});\nexport const a = 1;\n"
    assert constructs(plain.encode(), "src/a.ts") == {}


def test_only_the_code_under_test_is_read() -> None:
    assert is_source("src/calc.js")
    assert is_source("lib/util.mts")
    assert not is_source("test/helpers.js")
    assert not is_source("src/calc.test.ts")
    assert not is_source("src/__tests__/calc.js")
    assert not is_source("node_modules/expect/build/index.js")
    assert not is_source("src/calc.py")


def test_what_the_change_adds_is_listed_and_what_the_base_had_is_not(tmp_path: Path) -> None:
    base = "const { expect } = require('expect');\nmodule.exports = {};\n"
    head = base + "process.once('exit', () => {});\n"
    files = {
        "src/hook.js": (base, head),
        "test/setup.js": ("", "require('expect');\n"),
        "src/other.py": ("", "import pytest\n"),
    }
    for side, index in (("base", 0), ("head", 1)):
        for name, texts in files.items():
            path = tmp_path / side / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(texts[index])
    committed = Committed(
        DiskTree(str(tmp_path / "base")), DiskTree(str(tmp_path / "head")), frozenset(files)
    )
    found = [(r.path, r.line, r.what) for r in JEST.reach_ins(committed)]
    assert found == [
        ("src/hook.js", 3, "registers exit hooks (process.once('exit'))"),
        ("src/other.py", 1, "names pytest"),
    ]
    # pytest's runner reads Python sources alone, as before.
    assert [r.path for r in PYTEST.reach_ins(committed)] == ["src/other.py"]
