"""Red-green evidence end to end under act: the reusable workflow's change's-tests job beside
the replays, and an approval judged with it (tests/helpers/workflow_support.py says what
stands in for github.com; the reviews come from tests/helpers/github_api.py).

One scenario repository, the example, whose base commit adds the policy
`review_requires: [red_green]`, and two changes that fix its bug and add one registered
test each: one that fails without the fix, one that passes anyway. A maintainer approves
each head. The first is admitted; the second stays blocked and says why. The same reports
gated without the policy show that the evidence changes no class and no verdict.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers.change_support import approvals_file
from helpers.github_api import Answers, github_api, review
from helpers.red_green_support import (
    BYSTANDER_TEST,
    FIX_TEST,
    RED_GREEN_POLICY,
    fix_with_a_green_green_test,
    fix_with_a_red_green_test,
)
from helpers.support import EMPTY, KNOWN, ROUND_TRIP, classes, gate_args, git, load_report
from helpers.workflow_support import (
    Repositories,
    WorkflowRun,
    commit_all,
    demo_inputs,
    run_workflow,
)
from waiver.cli import main
from waiver.runners.pytest import PYTEST

pytestmark = [pytest.mark.container, pytest.mark.slow]

TOKEN = "ghs_red_green_test_token"
PYTHON = sys.executable
# The command `waiver init` writes, with this interpreter for `python`.
RED_GREEN_COMMAND = PYTEST.red_green_command().replace(" python ", f' "{PYTHON}" ')
INPUTS = {
    # Two replays of the whole suite in one shard: the fewest jobs that still replay.
    "test-command": f'"{PYTHON}" -m pytest -q tests/assertions --junitxml="$WAIVER_JUNIT"',
    "replays": 2,
    "shards": 1,
    "base-replays": 0,
    "min-replays": "2",
    "config": "waiver.yml",
    "red-green-command": RED_GREEN_COMMAND,
}


class Gated:
    """One change's run under act, its base commit (the example with the policy), its
    head, and its folder."""

    def __init__(self, repositories: Repositories, name: str, change: Callable[[Path], None]):
        self.demo = repositories.change(name)
        (self.demo / "waiver.yml").write_text(RED_GREEN_POLICY)
        self.base = commit_all(self.demo, "the policy")
        change(self.demo)
        self.head = commit_all(self.demo, name)
        answers = Answers(
            head=self.head,
            base=self.base,
            reviews=[review(1, "maintainer", "APPROVED", self.head)],
            permissions={"maintainer": "write"},
        )
        with github_api(answers) as api:
            self.run: WorkflowRun = run_workflow(
                self.demo, self.base, demo_inputs(repositories.waiver_commit, **INPUTS),
                extra=("--env", f"GITHUB_API_URL={api}", "-s", f"GITHUB_TOKEN={TOKEN}"),
            )  # fmt: skip

    def row(self, test_id: str) -> dict[str, Any]:
        return next(r for r in self.run.report()["rows"] if r["test_id"] == test_id)

    def gate_here(self, tmp_path: Path, red_green: bool) -> dict[str, Any]:
        """The gate run anew, on this machine, on this run's artifacts, with the approval of
        the head but no policy file, with or without the red-green replays."""
        work = tmp_path / "work"
        tmp_path.mkdir()
        git(tmp_path, "clone", "--quiet", str(self.demo), str(work))
        git(work, "checkout", "--quiet", "--detach", self.head)
        artifacts = self.run.artifacts
        shutil.copytree(artifacts / "waiver-properties", work / "waiver-properties")
        for replay in (1, 2):
            shutil.copytree(artifacts / f"waiver-junit-run-{replay}-shard-1", work / "reports",
                            dirs_exist_ok=True)  # fmt: skip
        evidence = ["--red-green", str(artifacts / "waiver-red-green-shard-1")] if red_green else []
        # The change's own tests ran apart: the verdict replays ran the base's test tree.
        evidence += ["--change-tests", str(artifacts / "waiver-change-tests-shard-1")]
        main(gate_args(work, "--trusted-ref", self.base, "--min-replays", "2", "--replays", "2",
                       "--approvals", str(approvals_file(work, self.head)), *evidence,
                       properties="waiver-properties/properties.xml"))  # fmt: skip
        return load_report(work / "waiver.json")


@pytest.fixture(scope="module")
def repositories(act_ready: None, tmp_path_factory: pytest.TempPathFactory) -> Repositories:
    return Repositories(tmp_path_factory.mktemp("red-green"))


@pytest.fixture(scope="module")
def red_green(repositories: Repositories) -> Gated:
    return Gated(repositories, "red-green", fix_with_a_red_green_test)


@pytest.fixture(scope="module")
def green_green(repositories: Repositories) -> Gated:
    return Gated(repositories, "green-green", fix_with_a_green_green_test)


def test_a_test_that_fails_on_the_base_is_red_green_and_an_approval_admits_it(
    red_green: Gated,
) -> None:
    run = red_green.run
    assert run.returncode == 0, run.log[-6000:]
    assert run.outputs == {"verdict": "review", "blocked": "false", "exit-code": "0"}
    assert run.artifact_names("waiver-red-green-") == ["waiver-red-green-shard-1"]
    row = red_green.row(FIX_TEST)
    assert row["class"] == "unknown_test"
    assert row["red_green"]["outcome"] == "red_green"
    assert (row["red_green"]["base_pass"], row["red_green"]["base_total"]) == (0, 2)
    assert row["admitted_by"] == {"login": "maintainer", "review_id": 1, "commit": red_green.head}
    # The change's-tests job ran the new test alone, and waiver from its image.
    assert "1 new or edited tests need red-green replays" in run.log
    assert "pip install" not in run.log


def test_a_test_that_passes_on_the_base_too_is_green_green_and_stays_blocked(
    green_green: Gated,
) -> None:
    run = green_green.run
    assert run.returncode != 0, run.log[-6000:]
    report = run.report()
    assert (report["verdict"], report["blocked"]) == ("blocked", True)
    assert [a["login"] for a in report["approvals"]["counted"]] == ["maintainer"]
    row = green_green.row(BYSTANDER_TEST)
    assert row["class"] == "unknown_test"
    assert row["red_green"]["outcome"] == "green_green"
    assert row["red_green"]["blocks"] is True
    assert (row["red_green"]["base_pass"], row["red_green"]["base_total"]) == (2, 2)
    assert "admitted_by" not in row
    assert "an approval does not admit it (review_requires: red_green)" in run.log


@pytest.mark.parametrize("change", ["red_green", "green_green"])
def test_without_the_policy_the_evidence_changes_no_class_and_no_verdict(
    change: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    gated: Gated = request.getfixturevalue(change)
    new = FIX_TEST if change == "red_green" else BYSTANDER_TEST

    with_evidence = gated.gate_here(tmp_path / "with", red_green=True)
    without = gated.gate_here(tmp_path / "without", red_green=False)

    assert classes(with_evidence) == classes(without) == {
        EMPTY: "stable_pass", KNOWN: "stable_pass", ROUND_TRIP: "unstable_assertion",
        new: "unknown_test",
    }  # fmt: skip
    # The approval admits the new test either way, green-green or not.
    for report in (with_evidence, without):
        assert (report["verdict"], report["blocked"]) == ("review", False)
        row = next(r for r in report["rows"] if r["test_id"] == new)
        assert row["admitted_by"]["login"] == "maintainer"
    row = next(r for r in with_evidence["rows"] if r["test_id"] == new)
    assert (row["red_green"]["outcome"], row["red_green"]["blocks"]) == (change, False)
