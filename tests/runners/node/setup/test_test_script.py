"""The project's own test script, read for how it starts its runner: what the written
commands keep of it (variables, node's options, the runner's options, its test paths) and
what they leave out, each with why; the script is never run."""

from __future__ import annotations

import pytest

from waiver.runners import NODE_RUNNERS
from waiver.runners.node import Invocation
from waiver.runners.node.setup.test_script import read_test_script


@pytest.mark.parametrize(
    ("runner", "scripts", "invocation", "lines"),
    [
        (
            "vitest",
            {"test": "vitest run --typecheck"},
            Invocation(options=("--typecheck",)),
            ["kept from the test script `vitest run --typecheck`: --typecheck"],
        ),
        (
            "vitest",
            {"test": "vitest --coverage --reporter=verbose src/"},
            Invocation(arguments=("src/",)),
            [
                "kept from the test script `vitest --coverage --reporter=verbose src/`: src/",
                "left out of the test script: `--coverage` (coverage decides no test's "
                "outcome, and its thresholds would fail a replay)",
                "left out of the test script: `--reporter=verbose` (the written commands "
                "report with vitest's junit reporter)",
            ],
        ),
        (
            "jest",
            {"test": "jest && npm run check:type:ts", "check:type:ts": "tsc -p tsconfig.ts.json"},
            Invocation(),
            ["left out of the test script: `npm run check:type:ts` (not jest)"],
        ),
        (
            "jest",
            {"test": "node --experimental-vm-modules node_modules/jest/bin/jest.js --ci -i"},
            Invocation((("NODE_OPTIONS", "--experimental-vm-modules"),), ("-i",)),
            [
                "kept from the test script `node --experimental-vm-modules "
                "node_modules/jest/bin/jest.js --ci -i`: NODE_OPTIONS=--experimental-vm-modules -i",
                "left out of the test script: `--ci` (the written commands set CI=true, which "
                "jest reads as --ci)",
            ],
        ),
        (
            "jest",
            {
                "test": "cross-env NODE_ENV=test jest --config jest.config.ts --coverageReporters text"
            },
            Invocation((("NODE_ENV", "test"),), ("--config", "jest.config.ts")),
            [
                "kept from the test script `cross-env NODE_ENV=test jest --config jest.config.ts "
                "--coverageReporters text`: NODE_ENV=test --config jest.config.ts",
                "left out of the test script: `--coverageReporters text` (coverage decides no "
                "test's outcome, and its thresholds would fail a replay)",
            ],
        ),
        (
            "mocha",
            {
                "test": "npm run lint && npm run test:unit",
                "lint": "eslint .",
                "test:unit": "mocha -r ts-node/register 'test/**/*.spec.ts' --reporter spec",
            },
            Invocation(options=("-r", "ts-node/register"), arguments=("test/**/*.spec.ts",)),
            [
                "kept from the test script `mocha -r ts-node/register 'test/**/*.spec.ts' "
                "--reporter spec`: -r ts-node/register 'test/**/*.spec.ts'",
                "left out of the test script: `--reporter spec` (the written commands report "
                "with mocha's xunit reporter)",
                "left out of the test script: `npm run lint` (not mocha)",
            ],
        ),
        (
            "vitest",
            {"test": "pnpm test:unit", "test:unit": "vitest watch"},
            Invocation(),
            ["left out of the test script: `watch` (a replay must end)"],
        ),
        (
            "jest",
            {"test": "echo 'no tests'"},
            Invocation(),
            [
                "left out of the test script: `echo 'no tests'` (not jest)",
                "package.json's test script does not start jest itself: the written commands "
                "start it with no option of the script's",
            ],
        ),
        (
            "jest",
            {"test": "npm test"},
            Invocation(),
            [
                "left out of the test script: `npm test` (not jest)",
                "package.json's test script does not start jest itself: the written commands "
                "start it with no option of the script's",
            ],
        ),
        ("mocha", {}, Invocation(), []),
    ],
    ids=[
        "typecheck",
        "left out",
        "other commands",
        "node options",
        "cross-env",
        "indirect",
        "watch",
        "no runner",
        "a loop",
        "no script",
    ],
)
def test_the_script_s_invocation_and_what_is_said_of_it(
    runner: str, scripts: dict[str, str], invocation: Invocation, lines: list[str]
) -> None:
    found = read_test_script({"scripts": scripts}, NODE_RUNNERS[runner])
    assert found.invocation == invocation
    assert list(found.lines) == lines


def test_the_written_commands_start_the_local_binary_with_the_script_s_words() -> None:
    invocation = read_test_script(
        {"scripts": {"test": "NODE_OPTIONS='--max-old-space-size=4096 --no-warnings' vitest "
                             "--typecheck test/unit"}},
        NODE_RUNNERS["vitest"],
    ).invocation  # fmt: skip
    properties, tests = NODE_RUNNERS["vitest"].suite_commands(("properties",), (), invocation)
    start = "NODE_OPTIONS='--max-old-space-size=4096 --no-warnings' node_modules/.bin/vitest run"
    reporters = '--reporter=default --reporter=junit --outputFile.junit="$WAIVER_JUNIT"'
    assert properties == f"{start} --typecheck properties/ {reporters}"
    assert tests == f"{start} --typecheck test/unit --exclude 'properties/**' {reporters}"
