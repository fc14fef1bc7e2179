"""The services example of docs/replays.md ("Suites that need services") end to end under
act: the page's workflow, as a user copies it, on a small Redis-backed project, for an
honest change and for a real bug.

act starts a job's `services:` only for a job in a container, so the property and replay
jobs run in containers of a runner image built here on the local Debian base (git, a
Python with the project's test tools already downloaded, the Docker client for waiver's
image steps), beside a Redis built on the same base (Debian's redis-server). Their image
steps start waiver's container on the same engine and mount the workspace by its path, so
act binds its working folder into each job (`--bind`) and runs one job at a time, which
also leaves port 6379 to one Redis at a time: on GitHub each job has a machine of its own.
The gate job, which has no service, runs on this machine, where its action's mounts are.

What changes in the page's YAML: its placeholders (waiver's repository and commit, the
Redis image), the label of the test jobs, and `max-parallel: 1` on the replays. What
stands in for github.com is tests/helpers/workflow_support.py's; waiver's image is
recorded as a release's is, in a registry on 127.0.0.1; the reviews come from the REST
API stand-in, which has none.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers.docker_support import DOCKER, build_image, push_to
from helpers.github_api import Answers, github_api
from helpers.support import REPO, classes, git, write_tree
from helpers.workflow_support import (
    SERVICES_INPUT_WORKFLOW,
    WAIVER_REPOSITORY,
    WorkflowRun,
    act,
    commit_all,
    edit,
    services_example,
    stand_ins,
    waiver_repository,
)
from waiver.cli import main

pytestmark = [pytest.mark.container, pytest.mark.slow]

PROJECT_REPOSITORY = "demo/tally"
# The label of the jobs with services, which act runs in containers of the runner image.
TEST_JOBS = "ubuntu-latest-containers"
TOKEN = "ghs_services_test_token"

# What the example's steps run: git for the checkouts, the Python of setup-python with the
# project's test tools already downloaded (a warm cache), the Docker client.
RUNNER_DOCKERFILE = """\
ARG BASE
FROM ${BASE}
RUN apt-get update -qq \\
    && apt-get install -y -qq --no-install-recommends git >/dev/null \\
    && rm -rf /var/lib/apt/lists/* \\
    && python3 -m venv /opt/python \\
    && /opt/python/bin/python -m pip install -q pytest hypothesis redis setuptools
ENV PATH=/opt/python/bin:$PATH
COPY docker /usr/bin/docker
"""

REDIS_DOCKERFILE = """\
ARG BASE
FROM ${BASE}
RUN apt-get update -qq \\
    && apt-get install -y -qq --no-install-recommends redis-server >/dev/null \\
    && rm -rf /var/lib/apt/lists/*
EXPOSE 6379
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--save", ""]
"""

TALLY = '''\
"""Hit counters and work queues, kept in Redis."""

import os

import redis


def connect() -> redis.Redis:
    return redis.Redis.from_url(os.environ["REDIS_URL"], decode_responses=True)


def hit(db: redis.Redis, page: str) -> int:
    """One more visit of page: the visits so far."""
    return db.incr(f"hits:{page}")


def push(db: redis.Redis, queue: str, item: str) -> None:
    db.rpush(f"queue:{queue}", item)


def pop(db: redis.Redis, queue: str) -> str | None:
    """The oldest item of queue, taken out of it; None when it is empty."""
    return db.lpop(f"queue:{queue}")
'''

PROJECT: dict[str, str | bytes] = {
    "pyproject.toml": """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "tally"
version = "0.1.0"
dependencies = ["redis"]

[tool.setuptools]
packages = ["tally"]
""",
    "tally/__init__.py": TALLY,
    "fixtures/jobs.json": '["resize", "upload", "notify"]\n',
    # Passes only where each replay has a Redis of its own: a second replay on the first
    # one's Redis counts from 3.
    "tests/test_counters.py": """\
import tally


def test_a_page_counts_its_visits_from_one():
    db = tally.connect()
    assert [tally.hit(db, "home"), tally.hit(db, "home")] == [1, 2]
""",
    "tests/test_queues.py": """\
import json
from pathlib import Path

import tally

JOBS = json.loads(Path("fixtures/jobs.json").read_text())


def test_the_oldest_job_comes_out_first():
    db = tally.connect()
    for job in JOBS:
        tally.push(db, "jobs", job)
    assert [tally.pop(db, "jobs") for _ in JOBS] == JOBS


def test_an_empty_queue_gives_nothing():
    assert tally.pop(tally.connect(), "idle") is None
""",
    "tests/properties/test_queue_properties.py": """\
from hypothesis import given, settings, strategies as st

import tally


@settings(max_examples=25, deadline=None)
@given(st.text())
def test_an_item_comes_out_as_it_went_in(item):
    db = tally.connect()
    tally.push(db, "round-trip", item)
    assert tally.pop(db, "round-trip") == item
""",
    "freezes.json": "[]\n",
}
COUNTS = "tests/test_counters.py::test_a_page_counts_its_visits_from_one"
FIFO = "tests/test_queues.py::test_the_oldest_job_comes_out_first"
EMPTY_QUEUE = "tests/test_queues.py::test_an_empty_queue_gives_nothing"
KNOWN = (COUNTS, FIFO, EMPTY_QUEUE)


def honest_change(project: Path) -> None:
    """A new function, and the key of a queue in one place: no test's outcome moves."""
    edit(project / "tally" / "__init__.py", 'f"queue:{queue}"', "_key(queue)")
    edit(project / "tally" / "__init__.py", 'f"queue:{queue}"', "_key(queue)")
    with (project / "tally" / "__init__.py").open("a") as module:
        module.write(
            "\n\ndef waiting(db: redis.Redis, queue: str) -> int:\n"
            "    return db.llen(_key(queue))\n"
            "\n\ndef _key(queue: str) -> str:\n"
            '    return f"queue:{queue}"\n'
        )


def newest_first(project: Path) -> None:
    """The bug: pop takes the newest item, so the queue is a stack."""
    edit(project / "tally" / "__init__.py", "db.lpop(", "db.rpop(")


@dataclass
class Images:
    runner: str
    redis: str


@pytest.fixture(scope="module")
def images(act_ready: None, tmp_path_factory: pytest.TempPathFactory) -> Images:
    folder = tmp_path_factory.mktemp("images")
    built = []
    for name, dockerfile in (("runner", RUNNER_DOCKERFILE), ("redis", REDIS_DOCKERFILE)):
        (folder / name).mkdir()
        (folder / name / "Dockerfile").write_text(dockerfile)
        if name == "runner":
            shutil.copy(DOCKER, folder / name / "docker")
        built.append(build_image(folder / name, folder / f"{name}.iid"))
    return Images(*built)


@dataclass
class Repositories:
    folder: Path
    waiver_commit: str
    base_commit: str


@pytest.fixture(scope="module")
def repositories(local_registry: str, tmp_path_factory: pytest.TempPathFactory) -> Repositories:
    """waiver, its image recorded as a release's is, and the project at its base commit
    with its lock and registry."""
    folder = tmp_path_factory.mktemp("services")
    waiver = folder / WAIVER_REPOSITORY
    waiver_repository(waiver)
    # Every job pulls the image by digest from the registry on 127.0.0.1, as from a release.
    reference = push_to(local_registry, build_image(REPO, folder / "waiver.iid"))
    (waiver / "action" / "image-digest").write_text(reference + "\n")
    waiver_commit = commit_all(waiver, "the image")
    project = write_tree(folder / "base", {**PROJECT, "known-tests.txt": "\n".join(KNOWN) + "\n"})
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        assert main(["lock", "--fixtures", "fixtures", "--property-suite", "tests/properties"]) == 0
    git(project, "init", "--quiet")
    return Repositories(folder, waiver_commit, commit_all(project, "base"))


def the_example(waiver_commit: str, redis_image: str) -> str:
    """The page's workflow with its placeholders filled, its test jobs on the runner
    image (`TEST_JOBS`) and its replays one at a time: act runs every job on this machine,
    whose port 6379 one Redis at a time can hold."""
    test_jobs, gate = services_example().split("\n  gate:\n")
    assert test_jobs.count("runs-on: ubuntu-latest") == 2  # the property and replay jobs
    test_jobs = test_jobs.replace("runs-on: ubuntu-latest", f"runs-on: {TEST_JOBS}")
    text = f"{test_jobs}\n  gate:\n{gate}"
    for placeholder, value in (
        ("OWNER/waiver", WAIVER_REPOSITORY),
        ("FULL_COMMIT_SHA", waiver_commit),
        ("image: redis:7", f"image: {redis_image}"),
        ("      fail-fast: false\n", "      fail-fast: false\n      max-parallel: 1\n"),
    ):
        assert placeholder in text
        text = text.replace(placeholder, value)
    return text


# What act makes for a job in a container, named after the workflow, and how to remove it.
ACT_OBJECTS = (
    (["ps", "--all"], ["rm", "--force"]),
    (["network", "ls"], ["network", "rm"]),
    (["volume", "ls"], ["volume", "rm", "--force"]),
)


def leftovers() -> list[set[str]]:
    """The ids of the containers, networks and volumes act made for the workflow `waiver`."""
    return [
        set(docker(*listing, "--quiet", "--filter", "name=^act-waiver-").split())
        for listing, _ in ACT_OBJECTS
    ]


@contextmanager
def removing_leftovers(before: list[set[str]]) -> Iterator[None]:
    """act leaves a failed job's containers behind; one Redis left on port 6379 would fail
    every run after it. Removes what the run made (by id, against `before`) and left."""
    try:
        yield
    finally:
        for (_, removal), earlier, now in zip(ACT_OBJECTS, before, leftovers(), strict=True):
            if now - earlier:
                docker(*removal, *sorted(now - earlier))


def docker(*arguments: str) -> str:
    completed = subprocess.run(
        [DOCKER, *arguments], capture_output=True, text=True, timeout=120, check=True
    )
    return completed.stdout


def run_example(
    repositories: Repositories, images: Images, name: str, change: Callable[[Path], None]
) -> WorkflowRun:
    """The change as one commit on the base, a pull request gated by the page's workflow."""
    with socket.socket() as probe:  # each job's Redis is published on this machine's port
        assert probe.connect_ex(("127.0.0.1", 6379)) != 0, "port 6379 is taken here"
    run = repositories.folder / name
    git_folder = run / "git"
    (git_folder / "waiver").mkdir(parents=True)
    (git_folder / WAIVER_REPOSITORY).symlink_to(repositories.folder / WAIVER_REPOSITORY)
    project = git_folder / PROJECT_REPOSITORY
    git(run, "clone", "--quiet", str(repositories.folder / "base"), str(project))
    change(project)
    head = commit_all(project, name)
    # act's working folder, bound into each job: the pull request's commit, whose origin
    # names the repository.
    work = run / "work"
    git(run, "clone", "--quiet", str(project), str(work))
    git(work, "remote", "set-url", "origin", f"https://github.com/{PROJECT_REPOSITORY}.git")
    workflows = work / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "waiver.yml").write_text(the_example(repositories.waiver_commit, images.redis))
    event = run / "event.json"
    event.write_text(json.dumps({"pull_request": {
        "number": 1, "user": {"login": "agent"},
        "base": {"sha": repositories.base_commit}, "head": {"sha": head},
    }}))  # fmt: skip
    artifacts = run / "artifacts"
    artifacts.mkdir()
    # The workflow names waiver's action as a user's does; act takes it from here.
    action = f"{WAIVER_REPOSITORY}@{repositories.waiver_commit}"
    before = leftovers()
    started = time.monotonic()
    with github_api(Answers(head=head)) as api, removing_leftovers(before):
        returncode, log = act(
            ["pull_request", "--eventpath", str(event), "--bind", "--concurrent-jobs", "1",
             "--pull=false", "--no-skip-checkout", *stand_ins(run / "stand-ins"),
             "--local-repository", f"{action}={repositories.folder / WAIVER_REPOSITORY}",
             "--container-options", f"-v {repositories.folder}:{repositories.folder}",
             "--env", f"WAIVER_ARTIFACTS={artifacts}", "--env", f"WAIVER_GIT={git_folder}",
             "--env", f"GITHUB_REPOSITORY={PROJECT_REPOSITORY}",
             "--env", f"GITHUB_API_URL={api}", "-s", f"GITHUB_TOKEN={TOKEN}",
             "-P", f"{TEST_JOBS}={images.runner}"],
            work, run / "home",
        )  # fmt: skip
    return WorkflowRun(returncode, log, time.monotonic() - started, {}, artifacts)


@pytest.fixture(scope="module")
def honest(repositories: Repositories, images: Images) -> WorkflowRun:
    return run_example(repositories, images, "honest", honest_change)


@pytest.fixture(scope="module")
def bug(repositories: Repositories, images: Images) -> WorkflowRun:
    return run_example(repositories, images, "bug", newest_first)


def test_an_honest_change_is_clean(honest: WorkflowRun) -> None:
    assert honest.returncode == 0, honest.log[-6000:]
    report = honest.report()
    assert report["verdict"] == "clean", report
    assert classes(report) == dict.fromkeys(KNOWN, "stable_pass")
    assert report["replays"] == {"count": 5, "read": 5, "errors": []}


def test_each_replay_had_a_redis_of_its_own(honest: WorkflowRun, images: Images) -> None:
    # The property job's Redis and one for each replay; a page counted from one in each.
    assert honest.log.count(f"docker run image={images.redis} ") == 1 + 5
    row = next(r for r in honest.report()["rows"] if r["test_id"] == COUNTS)
    assert (row["replay_pass"], row["replay_total"]) == (5, 5)


def test_a_real_bug_is_blocked_by_its_test_alone(bug: WorkflowRun) -> None:
    assert bug.returncode != 0, bug.log[-6000:]
    report = bug.report()
    assert report["blocked"] is True
    assert classes(report) == {
        COUNTS: "stable_pass", FIFO: "stable_assertion_fail", EMPTY_QUEUE: "stable_pass",
    }  # fmt: skip
    row = next(r for r in report["rows"] if r["test_id"] == FIFO)
    assert (row["replay_pass"], row["replay_total"]) == (0, 5)


def test_act_refuses_a_workflow_whose_services_come_from_an_input(
    act_ready: None, tmp_path: Path
) -> None:
    # Why the reusable workflow takes no `services` input (docs/replays.md): should act
    # come to run it, this fails, and the input can be added and tried under act.
    workflows = tmp_path / "work" / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "services.yml").write_text(SERVICES_INPUT_WORKFLOW)
    returncode, log = act(["--list"], tmp_path / "work", tmp_path / "home")
    assert returncode != 0
    assert "cannot unmarshal !!str `${{ fro...` into map[string]*model.ContainerSpec" in log
