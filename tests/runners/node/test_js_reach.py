"""JavaScript and TypeScript code under test that newly reaches into the runner is named:
the runner's modules, exit hooks, the report's variables, the module loader and the
runner's globals, code that tells whether it runs under test, and code that replaces what
assertions rely on; test code, and the lines the base already had, are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from waiver.read.harness.reach_in import new_names
from waiver.read.trusted.protected import Committed
from waiver.read.trusted.trees import DiskTree
from waiver.runners.jest import JEST
from waiver.runners.node.js_reach import is_source, reading
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


def named(source: str, before: str | None = None) -> list[tuple[int, str]]:
    """What the lines of `source` that `before` lacks name, each with its line."""
    old = None if before is None else reading(before.encode(), "src/a.ts")
    return new_names(old, reading(source.encode(), "src/a.ts"))


def test_each_way_of_reaching_into_the_runner_is_named_with_its_line() -> None:
    assert named(REACHING) == [
        (2, "imports expect"),
        (3, "imports chai"),
        (4, "names JEST_JUNIT_OUTPUT_FILE"),
        (4, "registers exit hooks (process.on('exit'))"),
        (5, "reaches the runner's globals (globalThis.expect)"),
        (6, "reaches the module loader (require.cache)"),
        (7, "names MOCHA_FILE"),
    ]
    plain = "const fs = require('fs');\nprocess.on('SIGINT', () => {});\nexport const a = 1;\n"
    assert named(plain) == []


@pytest.mark.parametrize(
    ("line", "what"),
    [
        ('export const root = process.env.NODE_ENV === "test" ? "/" : "";', "reads how it is run (NODE_ENV)"),
        ('export const root = import.meta.env.MODE === "test" ? "/" : "";', "reads how it is run (import.meta.env.MODE)"),
        ("const { CI, GITHUB_ACTIONS: gha } = process.env;", "reads how it is run (CI)"),
        ('const env = process.env["BABEL_ENV"];', "reads how it is run (BABEL_ENV)"),
        ('if (process.env.npm_lifecycle_event === "test") {}', "reads how it is run (npm_lifecycle_event)"),
        ("if (process.env.JEST_WORKER_ID) {}", "names JEST_WORKER_ID"),
        ("if (process.env.VITEST_POOL_ID) {}", "names VITEST_POOL_ID"),
        ("const inVitest = import.meta.vitest;", "reads how it is run (import.meta.vitest)"),
        ("if (require.main !== module) {}", "reads how it is run (require.main)"),
        ('if (typeof jest !== "undefined") {}', "tells whether it runs under test (typeof jest)"),
        ("const inTest = typeof describe === 'function';", "tells whether it runs under test (typeof describe)"),
        ("if (globalThis.__vitest_worker__) {}", "reaches the runner's globals (__vitest_worker__)"),
        ("if (window.it) {}", "reaches the runner's globals (window.it)"),
        ("if (process.argv.some((a) => /vitest/.test(a))) {}", "names vitest"),
        ('if (process.argv[1].endsWith("node_modules/.bin/mocha")) {}', "names mocha"),
    ],
)  # fmt: skip
def test_code_that_tells_whether_it_runs_under_test_is_named(line: str, what: str) -> None:
    assert (1, what) in named(line + "\n")


@pytest.mark.parametrize(
    ("line", "what"),
    [
        ("Object.is = (a, b) => a == b;", "Object.is"),
        ("Array.prototype.includes = function () { return true; };", "Array.prototype.includes"),
        ("String.prototype.startsWith = () => true;", "String.prototype.startsWith"),
        ("JSON.stringify = (value) => '{}';", "JSON.stringify"),
        ("Error.captureStackTrace = () => {};", "Error.captureStackTrace"),
        ("globalThis.Object.is = () => true;", "globalThis.Object.is"),
        ('Object["is"] = () => true;', 'Object["is"]'),
        ("delete Array.prototype.find;", "Array.prototype.find"),
        ("Number.isNaN ||= () => false;", "Number.isNaN"),
        ('Object.defineProperty(Object, "is", { value: () => true });', "Object.defineProperty(Object, …)"),
        ('Object.defineProperty(Array.prototype, "includes", { value: f });', "Object.defineProperty(Array.prototype, …)"),
        ('Reflect.defineProperty(globalThis, "expect", { value: f });', "Reflect.defineProperty(globalThis, …)"),
        ("Object.assign(JSON, { stringify: () => '' });", "Object.assign(JSON, …)"),
    ],
)  # fmt: skip
def test_code_that_replaces_what_assertions_rely_on_is_named(line: str, what: str) -> None:
    assert named(line + "\n") == [(1, f"replaces what assertions rely on ({what})")]


@pytest.mark.parametrize(
    "line",
    [
        "export function add(a, b) { return a + b; }",
        "Foo.prototype.bar = function () {};",
        "const is = Object.is(a, b);",
        "const copy = Object.assign({}, defaults, options);",
        "Object.defineProperty(exports, '__esModule', { value: true });",
        "const mode = options.mode;",
        "const label = 'a jest-like matcher';",
        "if (typeof window !== 'undefined') {}",
    ],
)
def test_plain_library_code_is_no_reach(line: str) -> None:
    assert named(line + "\n") == []


def test_a_line_the_base_had_is_no_reach_and_a_new_one_is() -> None:
    base = 'const dev = process.env.NODE_ENV !== "production";\nexport const a = 1;\n'
    refactored = 'export const a = 2;\n\nconst dev = process.env.NODE_ENV !== "production";\n'
    assert named(refactored, base) == []
    added = base + 'export const root = process.env.NODE_ENV === "test" ? "/" : "";\n'
    assert named(added, base) == [(3, "reads how it is run (NODE_ENV)")]


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
