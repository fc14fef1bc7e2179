"""What a test or property command runs by name, read from its words: the package scripts
init names in `package_scripts`, followed into the scripts they run, and the files of a
task runner or a script, which init adds to `harness:` globs; and the policy init writes
with them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from helpers.support import write_tree
from waiver.init.command_scripts import RunByName, run_by_name
from waiver.write.files.setup_files import Setup, render_policy

SCRIPTS = {
    "test": "npm run build && vitest run",
    "pretest": "bash scripts/check.sh",
    "build": "tsc",
    "test:unit": "vitest run unit",
    "lint": "eslint .",
}
FILES = {
    "package.json": json.dumps({"name": "calc", "scripts": SCRIPTS}),
    "scripts/check.sh": "true\n",
    "scripts/test.sh": "pytest\n",
    "tools/run.py": "\n",
    "Makefile": "test:\n\tpytest\n",
    "ci.mk": "test:\n\tpytest\n",
    "noxfile.py": "\n",
    "tox.ini": "[tox]\n",
    "hatch.toml": "\n",
    "node_modules/.bin/vitest": "\n",
}


@pytest.mark.parametrize(
    ("command", "scripts", "files"),
    [
        ("npm test", ["build", "test"], ["scripts/check.sh"]),
        ("npm t --silent", ["build", "test"], ["scripts/check.sh"]),
        ("CI=1 npm run test:unit -- --reporter=junit", ["test:unit"], []),
        ("pnpm run test:unit", ["test:unit"], []),
        ("pnpm test:unit", ["test:unit"], []),
        ("yarn test", ["build", "test"], ["scripts/check.sh"]),
        ("yarn lint", ["lint"], []),
        ("yarn jest --ci", [], []),  # no script of that name: yarn runs the binary
        ("bun run lint", ["lint"], []),
        ("bun test", [], []),  # bun's own runner
        ("env FORCE_COLOR=0 npm run-script lint", ["lint"], []),
        ("make test && nox -s tests", [], ["Makefile", "noxfile.py"]),
        ("make -f ci.mk test", [], ["ci.mk"]),
        ("make --file=ci.mk test", [], ["ci.mk"]),
        ("tox -e py311", [], ["tox.ini"]),
        ("hatch run test:cov", [], ["hatch.toml"]),
        ('./scripts/test.sh --junit "$WAIVER_JUNIT"', [], ["scripts/test.sh"]),
        ("bash scripts/test.sh", [], ["scripts/test.sh"]),
        ("python tools/run.py -q", [], ["tools/run.py"]),
        ("node node_modules/.bin/vitest run", [], []),  # the install's, not the change's
        ('python -m pytest --junitxml="$WAIVER_JUNIT"', [], []),
        ("npx vitest run", [], []),
        ("sh $SCRIPT", [], []),
        ("bash ../outside.sh", [], []),
        ("npm test 'unclosed", [], []),  # no shell line: nothing read
    ],
)
def test_what_a_command_runs_by_name(
    tmp_path: Path, command: str, scripts: list[str], files: list[str]
) -> None:
    write_tree(tmp_path, dict(FILES))
    assert run_by_name([command], str(tmp_path)) == RunByName(tuple(scripts), tuple(files))


def test_both_commands_are_read_and_a_missing_package_json_names_no_script(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, {"Makefile": "x\n"})
    found = run_by_name(["npm test", None, "make"], str(tmp_path))
    assert found == RunByName(("test",), ("Makefile",))


def test_the_policy_names_the_scripts_and_locks_the_files() -> None:
    found = RunByName(("test", "test:unit"), ("Makefile", "scripts/[x].sh"))
    setup = Setup(
        fixtures="fixtures",
        fixture_globs=(),
        reads_fixtures=True,
        property_selection=None,
        property_command="npm run test:unit",
        test_command="npm test && make",
        setup_command=None,
        red_green_command=None,
        waiver_repository="acme/waiver",
        waiver_ref="0" * 40,
        harness_globs=found.globs(["jest.config.js", "/Makefile"]),
        package_scripts=found.scripts,
    )
    policy = yaml.safe_load(render_policy(setup))
    assert policy["package_scripts"] == ["test", "test:unit"]
    assert policy["harness"] == ["jest.config.js", "/Makefile", "/scripts/[[]x].sh"]
