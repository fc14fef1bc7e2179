"""docs/getting-started.md's "Set up your own repository", run block by block in a new git repository
made from the example, with `waiver` and `python` taken from this interpreter's folder."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from support import EMPTY, EXAMPLE, REPO, ROUND_TRIP, classes, load_report

GUIDE = (REPO / "docs" / "getting-started.md").read_text()
SECTION = GUIDE.split("## Set up your own repository", 1)[1].split("\n## ", 1)[0]
BLOCKS = re.findall(r"```sh\n(.*?)\n```", SECTION, flags=re.DOTALL)


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


def test_the_walkthrough_has_its_six_steps_of_commands() -> None:
    assert [block.split()[:2] for block in BLOCKS] == [
        ["waiver", "lock"],
        ["waiver", "replay"],
        ["waiver", "gate"],
        ["waiver", "freeze"],
        ["waiver", "lock"],
    ]


def test_the_walkthrough_runs_as_written(tmp_path: Path) -> None:
    work = _repository(tmp_path)
    lock, baseline, gate, accept, relock = BLOCKS

    assert _run(work, lock).returncode == 0
    assert _run(work, "sha256sum -c --quiet fixture.lock").returncode == 0

    done = _run(work, baseline)
    assert done.returncode == 0, done.stderr
    assert (work / "known-tests.txt").read_text().count("\n") == 3

    first = _run(work, gate)
    assert first.returncode == 1, first.stderr
    assert f"  stable_assertion_fail  0/5  {EMPTY}\n" in first.stdout
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
