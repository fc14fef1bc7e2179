"""The test ids pytest collects, by the gate's id rule, without running a test.

`waiver init` is run by a person on their own tree, so here, unlike in the gate, pytest
itself is run: `pytest --collect-only` with a small plugin that writes each collected
node id and whether a skip or xfail mark takes it out of every run. Such a test has no
outcome in any replay; listed in the registry, it would be an `unknown_test` forever.

Each node id becomes the `classname` and `name` pytest's junitxml writes for it, and then
an id by `TestIdRule`, exactly as the gate will read it from a replay.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

from waiver.errors import InputError
from waiver.read.junit.testid import TestIdRule

PLUGIN = "waiver_collect_plugin"
PLUGIN_SOURCE = """\
import json
import os


def pytest_collection_finish(session):
    from _pytest.skipping import evaluate_skip_marks, evaluate_xfail_marks

    with open(os.environ["WAIVER_COLLECT_OUT"], "w", encoding="utf-8") as out:
        for item in session.items:
            try:
                never_runs = bool(evaluate_skip_marks(item) or evaluate_xfail_marks(item))
            except Exception:
                never_runs = False
            out.write(json.dumps([item.nodeid, never_runs]) + "\\n")
"""
# pytest's exit code when it collected nothing.
NO_TESTS_COLLECTED = 5
OUTPUT_TAIL = 2000


@dataclass(frozen=True)
class Collected:
    test_ids: tuple[str, ...]  # by the gate's id rule, sorted
    never_run: tuple[str, ...]  # skipped or xfail by a mark, so left out of the registry


def junit_address(nodeid: str) -> tuple[str, str]:
    """The `classname` and `name` pytest's junitxml writes for a node id."""
    path, bracket, params = nodeid.partition("[")
    names = path.split("::")
    module = names[0].replace("/", ".")
    names[0] = module[: -len(".py")] if module.endswith(".py") else module
    names[-1] += bracket + params
    return ".".join(names[:-1]), names[-1]


def collect(root: str, arguments: Sequence[str]) -> Collected:
    """The ids pytest collects with `arguments` (folders and options) under `root`; an
    error when it collects none."""
    rule = TestIdRule(root)
    with tempfile.TemporaryDirectory(prefix="waiver-init-") as scratch:
        with open(os.path.join(scratch, f"{PLUGIN}.py"), "w", encoding="utf-8") as plugin:
            plugin.write(PLUGIN_SOURCE)
        out = os.path.join(scratch, "collected.jsonl")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [scratch, env.get("PYTHONPATH")]))
        env["WAIVER_COLLECT_OUT"] = out
        command = [
            sys.executable, "-m", "pytest", "--collect-only", "-q",
            "-p", PLUGIN, "-p", "no:cacheprovider", *arguments,
        ]  # fmt: skip
        completed = subprocess.run(
            command, cwd=root, env=env, capture_output=True, text=True, check=False
        )
        source = " ".join(word for word in arguments if word and not word.startswith("-"))
        if completed.returncode == NO_TESTS_COLLECTED:
            raise InputError(source, "pytest collected no tests here")
        if completed.returncode != 0 or not os.path.isfile(out):
            tail = (completed.stdout + completed.stderr)[-OUTPUT_TAIL:]
            raise InputError(
                source,
                f"pytest could not collect the tests (exit {completed.returncode}): {tail}",
            )
        with open(out, encoding="utf-8") as stream:
            entries = [json.loads(line) for line in stream]
    ids: set[str] = set()
    never: set[str] = set()
    for nodeid, never_runs in entries:
        classname, name = junit_address(nodeid)
        (never if never_runs else ids).add(rule("", classname, name))
    return Collected(tuple(sorted(ids - never)), tuple(sorted(never)))
