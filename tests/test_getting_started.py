"""docs/getting-started.md run as written: the walkthrough with `waiver init` in a new git
repository with fixtures in two folders, and "Set up your own repository by hand" in one
made from the example, block by block, with `waiver` and `python` taken from this
interpreter's folder."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.support import EMPTY, EXAMPLE, REPO, ROUND_TRIP, classes, load_report

GUIDE = (REPO / "docs" / "getting-started.md").read_text()
SECTION = GUIDE.split("## Set up your own repository", 1)[1].split("\n## ", 1)[0]
BLOCKS = re.findall(r"```sh\n(.*?)\n```", SECTION, flags=re.DOTALL)
WALKTHROUGH = GUIDE.split("## Walkthrough: an existing repository", 1)[1].split("\n## ", 1)[0]
INIT_BLOCKS = re.findall(r"```sh\n(.*?)\n```", WALKTHROUGH, flags=re.DOTALL)

WAIVER_REF = "0123456789abcdef0123456789abcdef01234567"
FLAKY = "tests/test_cache.py::test_warm"

FILES = {
    "pyproject.toml": '[project]\nname = "lib"\nversion = "0"\n\n'
    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "lib.py": "def add(a, b):\n    return a + b\n",
    ".gitignore": "reports/\nwaiver.json\nsummary.md\n.counter\n.hypothesis/\n__pycache__/\n",
    "tests/conftest.py": "",
    "tests/test_lib.py": """\
import json
from pathlib import Path

from lib import add


def test_add():
    assert add(1, 2) == 3


def test_reads_the_data():
    assert json.loads((Path(__file__).parent / "data" / "x.json").read_text()) == {"x": 1}
""",
    # A cache that is cold on every other run of the suite: the test flips between replays.
    "tests/test_cache.py": """\
from pathlib import Path

COUNTER = Path(".counter")
RUN = int(COUNTER.read_text()) + 1 if COUNTER.exists() else 1
COUNTER.write_text(str(RUN))


def test_warm():
    assert RUN % 2 == 0
""",
    "tests/properties/test_add.py": """\
from hypothesis import given, strategies as st

from lib import add


@given(st.integers(), st.integers())
def test_add_commutes(a, b):
    assert add(a, b) == add(b, a)
""",
    "tests/data/x.json": '{"x": 1}\n',
    "tests/fixtures/nested/y.json": "{}\n",
}


def test_the_init_walkthrough_has_its_five_steps_of_commands() -> None:
    assert [block.split()[:2] for block in INIT_BLOCKS] == [
        ["waiver", "init"],
        ["git", "add"],
        ["waiver", "replay"],
        ["waiver", "freeze"],
        ["waiver", "lock"],
    ]
    assert "--config waiver.yml" in INIT_BLOCKS[2] and "--replays 5" in INIT_BLOCKS[2]


@pytest.mark.slow
def test_the_init_walkthrough_runs_as_written(tmp_path: Path) -> None:
    work = tmp_path / "project"
    for name, text in FILES.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    assert _run(work, "git init -q && git add -A && git commit -q -m start").returncode == 0
    init, commit, gate, accept, relock = INIT_BLOCKS

    done = _run(work, init.replace("OWNER/", "acme/").replace("FULL_COMMIT_SHA", WAIVER_REF))
    assert done.returncode == 0, done.stderr
    assert "waiver: wrote fixture.lock: the fixtures (tests/data, tests/fixtures)" in done.stdout
    assert (work / "known-tests.txt").read_text().count("\n") == 4
    # It proved the commands in a copy: their install leaves nothing in the tree to lock.
    assert not (work / "lib.egg-info").exists()
    assert _run(work, commit).returncode == 0

    # An honest change: a file under tests/ outside the fixture folders is no drift.
    (work / "tests" / "NOTES.txt").write_text("what the tests cover\n")
    (work / ".counter").unlink(missing_ok=True)  # init ran the tests in a copy of the tree
    first = _run(work, gate)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "warning" not in first.stdout  # the protected files came from the commit
    report = load_report(work / "waiver.json")
    assert report["verdict"] == "review"
    assert {
        row["test_id"]: row["class"] for row in report["rows"] if row["class"] != "stable_pass"
    } == {FLAKY: "unstable_assertion"}
    assert report["fixtures"]["drift"] == []
    # Without base evidence, init's `introduced_instability: block` fails closed.
    alone = "waiver gate" + gate.split("waiver gate", 1)[1].replace(
        " \\\n  --base-reports reports", ""
    )
    assert "--base-reports" not in alone
    blocked = _run(work, alone.replace("--out waiver.json", "--out alone.json"))
    assert blocked.returncode == 1, blocked.stdout + blocked.stderr
    assert f"unstable_assertion (base unknown)  2/5 ✘✔✘✔✘       {FLAKY}" in blocked.stdout

    done = _run(work, accept)
    assert done.returncode == 0, done.stderr
    [record] = json.loads((work / "freezes.json").read_text())
    assert record["test_id"] == FLAKY

    before = (work / "fixture.lock").read_text()
    (work / "tests" / "data" / "x.json").write_text('{"x": 1, "y": 2}\n')
    done = _run(work, relock)
    assert done.returncode == 0, done.stderr
    assert (work / "fixture.lock").read_text() != before
    assert _run(work, "sha256sum -c --quiet fixture.lock").returncode == 0


def _run(work: Path, script: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GIT_AUTHOR_NAME": "waiver",
        "GIT_AUTHOR_EMAIL": "waiver@localhost",
        "GIT_COMMITTER_NAME": "waiver",
        "GIT_COMMITTER_EMAIL": "waiver@localhost",
    }
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _repository(tmp_path: Path) -> Path:
    work = tmp_path / "project"
    shutil.copytree(
        EXAMPLE,
        work,
        ignore=shutil.ignore_patterns(
            "run.sh", "__pycache__", "fixture.lock", "known-tests.txt", "freezes.json"
        ),
    )
    (work / ".gitignore").write_text("reports/\n.demo-counter\nwaiver.json\nsummary.md\n")
    assert _run(work, "git init -q && git add -A && git commit -q -m start").returncode == 0
    return work


def test_the_walkthrough_by_hand_has_its_six_steps_of_commands() -> None:
    assert [block.split()[:2] for block in BLOCKS] == [
        ["waiver", "lock"],
        ["waiver", "replay"],
        ["waiver", "gate"],
        ["waiver", "freeze"],
        ["waiver", "lock"],
    ]


@pytest.mark.slow
def test_the_walkthrough_by_hand_runs_as_written(tmp_path: Path) -> None:
    work = _repository(tmp_path)
    lock, baseline, gate, accept, relock = BLOCKS

    assert _run(work, lock).returncode == 0
    assert _run(work, "sha256sum -c --quiet fixture.lock").returncode == 0

    done = _run(work, baseline)
    assert done.returncode == 0, done.stderr
    assert (work / "known-tests.txt").read_text().count("\n") == 3

    first = _run(work, gate)
    assert first.returncode == 1, first.stderr
    assert f"  stable_assertion_fail  0/5 ✘✘✘✘✘       {EMPTY}\n" in first.stdout
    assert "warning" not in first.stdout  # the protected files came from the commit
    report = load_report(work / "waiver.json")
    assert classes(report)[ROUND_TRIP] == "unstable_assertion"

    done = _run(work, accept)
    assert done.returncode == 0, done.stderr
    assert [record["test_id"] for record in json.loads((work / "freezes.json").read_text())] == [
        ROUND_TRIP
    ]
    assert _run(work, gate).returncode == 1
    active = load_report(work / "waiver.json")["freezes"]["active"]
    assert [item["record"]["test_id"] for item in active] == [ROUND_TRIP]

    slugs = work / "fixtures" / "slugs.json"
    slugs.write_text(slugs.read_text().replace("]", ', {"text": "A b", "slug": "a-b"}]', 1))
    done = _run(work, relock)
    assert done.returncode == 0, done.stderr
    # The change's own gate run holds it to the lock of its base commit.
    on_base = gate.replace('"$(git rev-parse HEAD)"', '"$(git rev-parse HEAD~1)"')
    assert _run(work, on_base).returncode == 1
    report = load_report(work / "waiver.json")
    assert set(classes(report).values()) == {"fixture_drift"}
    assert report["fixtures"]["working_tree_lock_differs"] is True
