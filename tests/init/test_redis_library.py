"""A Redis-backed job queue library's first day, of rq's shape: test modules that import
`sys` and call `pipeline.execute()`, a module of job functions the worker imports by name,
a test base class in `tests/__init__.py` that opens a connection, and the test dependencies
in a requirements file that tox names.

Its test modules read like namespace writes to a check that goes by words; they are
ordinary test modules, and `waiver init` with only the waiver pin sets the library up in one
run, proving its commands in a fresh venv against a real redis-server; the first gate on an
honest change is clean and a real bug is a stable failure.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.init_support import (
    commit_as_base,
    copy_to_change,
    gate_written,
    installed_from_github,
    package_venv,
    venv_part,
    workflow_inputs,
)
from helpers.support import classes, git, write_tree
from waiver.cli import main

pytestmark = pytest.mark.slow

QUEUE = """\
import json

from redis import Redis


class Queue:
    def __init__(self, name, connection):
        self.name = f"queue:{name}"
        self.connection = connection

    def enqueue(self, function, *args):
        self.connection.rpush(self.name, json.dumps([function, list(args)]))

    def __len__(self):
        return self.connection.llen(self.name)

    def dequeue(self):
        found = self.connection.lpop(self.name)
        return None if found is None else json.loads(found)


def connect(url):
    return Redis.from_url(url)
"""
WORKER = """\
import importlib


class Worker:
    def __init__(self, queue):
        self.queue = queue

    def work(self):
        results = []
        while (job := self.queue.dequeue()) is not None:
            function, args = job
            module, _, name = function.rpartition(".")
            results.append(getattr(importlib.import_module(module), name)(*args))
        return results
"""
TESTS_INIT = """\
import os
import unittest

from qwork.queue import connect

URL = os.environ.get("REDIS_URL", "redis://localhost:6379/0")


class QTestCase(unittest.TestCase):
    def setUp(self):
        self.connection = connect(URL)
        self.connection.flushdb()

    def tearDown(self):
        self.connection.flushdb()
"""
FIXTURES = """\
import sys


def say_hello(name):
    return f"hi {name}"


def count_modules():
    return len(sys.modules)
"""
LIFECYCLE = """\
import sys

from qwork.queue import Queue
from tests import QTestCase


class TestJobLifecycle(QTestCase):
    def test_enqueue_counts(self):
        queue = Queue("default", self.connection)
        queue.enqueue("tests.fixtures.say_hello", "ann")
        self.assertEqual(len(queue), 1)

    def test_a_pipeline_executes(self):
        pipeline = self.connection.pipeline()
        pipeline.set("a", 1)
        pipeline.execute()
        self.assertEqual(self.connection.get("a"), b"1")

    def test_the_interpreter(self):
        self.assertTrue(sys.version_info >= (3, 8))
"""
WORKER_TEST = """\
import sys

from qwork.queue import Queue
from qwork.worker import Worker
from tests import QTestCase


class TestWorker(QTestCase):
    def test_work_executes_jobs(self):
        queue = Queue("default", self.connection)
        queue.enqueue("tests.fixtures.say_hello", "bob")
        self.assertEqual(Worker(queue).work(), ["hi bob"])
        self.assertIn("tests.fixtures", sys.modules)
"""
PROPERTIES = """\
from hypothesis import given, settings, strategies as st

from qwork.queue import Queue
from tests import QTestCase


class TestQueueProperties(QTestCase):
    @settings(max_examples=20, deadline=None)
    @given(st.lists(st.text(max_size=5), max_size=5))
    def test_every_job_is_dequeued_in_order(self, names):
        self.connection.flushdb()
        queue = Queue("p", self.connection)
        for name in names:
            queue.enqueue("tests.fixtures.say_hello", name)
        self.assertEqual([queue.dequeue()[1][0] for _ in names], names)
"""
FILES = {
    "pyproject.toml": '[project]\nname = "qwork"\nversion = "0"\ndependencies = ["redis>=4"]\n\n'
    '[tool.setuptools]\npackages = ["qwork"]\n\n'
    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "tox.ini": "[tox]\nenvlist = py311\n\n[testenv]\ndeps = -rdev-requirements.txt\n"
    "commands = pytest {posargs}\n",
    "dev-requirements.txt": "pytest\nhypothesis\n",
    ".gitignore": "__pycache__/\n.hypothesis/\n*.egg-info/\nreports/\nwaiver.json\nsummary.md\n",
    "qwork/__init__.py": "",
    "qwork/queue.py": QUEUE,
    "qwork/worker.py": WORKER,
    "tests/__init__.py": TESTS_INIT,
    "tests/fixtures.py": FIXTURES,
    "tests/test_job_lifecycle.py": LIFECYCLE,
    "tests/test_worker.py": WORKER_TEST,
    "tests/properties/__init__.py": "",
    "tests/properties/test_queue_props.py": PROPERTIES,
}
WORKS = "tests/test_worker.py::TestWorker::test_work_executes_jobs"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A redis-server of Debian's on a free port, for this module: its URL."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    port = _free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(100):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait()


@pytest.fixture(scope="module")
def first_day(tmp_path_factory: pytest.TempPathFactory, redis_url: str) -> tuple[Path, str]:
    """The library after `waiver init` with the pin alone (the written commands proved in a
    fresh venv, against the server), committed as the base; and what init said."""
    root = write_tree(tmp_path_factory.mktemp("qwork"), FILES)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("REDIS_URL", redis_url)
        installed_from_github(tmp_path_factory.mktemp("site"), patch)
        patch.chdir(root)
        code = main(["init"])
    assert code == 0
    return commit_as_base(root), redis_url


@pytest.fixture(scope="module")
def replay_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The interpreter the gates replay with: one with the library's test dependencies."""
    return package_venv(tmp_path_factory.mktemp("venv"), ["redis>=4", "pytest", "hypothesis"])


def test_init_sets_it_up_in_one_run_and_its_test_modules_stay_tests(
    first_day: tuple[Path, str],
) -> None:
    root, _ = first_day
    locked = [line.rsplit("  ", 1)[1] for line in (root / "fixture.lock").read_text().splitlines()]
    assert "tests/test_job_lifecycle.py" not in locked and "tests/test_worker.py" not in locked
    assert "tests/fixtures.py" not in locked
    assert "-r dev-requirements.txt" in workflow_inputs(root)["setup-command"]
    assert (root / "known-tests.txt").read_text().splitlines() == [
        "tests/properties/test_queue_props.py::TestQueueProperties::"
        "test_every_job_is_dequeued_in_order",
        "tests/test_job_lifecycle.py::TestJobLifecycle::test_a_pipeline_executes",
        "tests/test_job_lifecycle.py::TestJobLifecycle::test_enqueue_counts",
        "tests/test_job_lifecycle.py::TestJobLifecycle::test_the_interpreter",
        WORKS,
    ]


@pytest.mark.parametrize(
    ("before", "after", "verdict"),
    [
        ("            function, args = job\n", "            function, args = job[0], job[1]\n",
         "clean"),
        ("(*args))", "(*args).upper())", "blocked"),
    ],
    ids=["an honest change", "a real bug"],
)  # fmt: skip
def test_the_first_gates(
    first_day: tuple[Path, str],
    replay_python: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    before: str,
    after: str,
    verdict: str,
) -> None:
    root, redis_url = first_day
    change, base = copy_to_change(root, tmp_path)
    worker = change / "qwork/worker.py"
    worker.write_text(worker.read_text().replace(before, after))
    git(change, "commit", "--quiet", "-am", "change")
    monkeypatch.setenv("REDIS_URL", redis_url)
    python = package_venv(
        tmp_path.parent.parent / "qwork-venv", ["redis>=4", "pytest", "hypothesis"]
    )
    code, report = gate_written(change, base, venv_part(python))
    assert (code, report["verdict"]) == ((0, "clean") if verdict == "clean" else (1, "blocked"))
    if verdict == "blocked":
        assert classes(report)[WORKS] == "stable_assertion_fail"
