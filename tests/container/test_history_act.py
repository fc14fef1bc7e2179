"""The history writer (.github/workflows/waiver-history.yml) end to end under act, on
`workflow_run` events of the default branch's gate runs, with the REST stand-in
(tests/helpers/github_api.py) answering the writer's own earlier runs and their
`waiver-history` artifacts, and the download stand-in serving each run's artifacts
(tests/helpers/workflow_support.py).

Ten full gate workflow runs under act would take minutes, so the gate workflow runs under
act once for real, on a push, and the writer records that run's waiver.json. The ten
default-branch runs the history is built from are real `waiver gate` runs of a suite with
one flaky test and one that turns stable (tests/helpers/history_support.py), each uploaded
as its run's `waiver` artifact and folded by the real writer workflow, one run after the
other, each continuing the history the one before uploaded. Then a storm, a pull request's
run that records nothing, the composite action on a pull request with the history beside
the unstable row, and `freeze accept` past `max_renewals`. act sets no
GITHUB_WORKFLOW_REF, by which the writer knows its own file, so the test sets it as GitHub
would.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers.act_support import install_action, pull_request_event, run_act
from helpers.docker_support import BASE
from helpers.github_api import Answers, github_api
from helpers.history_support import FIXED, FLAKY, TESTS, build_suite, gate_run
from helpers.support import ROUND_TRIP, git
from helpers.workflow_support import (
    CACHE_PREFIX,
    WAIVER_REPOSITORY,
    Repositories,
    act,
    commit_all,
    demo_inputs,
    run_workflow,
    stand_ins,
)
from waiver.cli import main

pytestmark = [pytest.mark.container, pytest.mark.slow]

HISTORY_WORKFLOW = Path(__file__).resolve().parents[2] / ".github/workflows/waiver-history.yml"
GATE_CALLER = ".github/workflows/waiver.yml"
WRITER_CALLER = ".github/workflows/history.yml"
TOKEN = "ghs_history_test_token"
# What GitHub sets in the writer's job, and act does not: the caller's file, on main.
WRITER_REF = f"demo/demo/{WRITER_CALLER}@refs/heads/main"
# Flagged from a failure rate of 0.3 over at least 4 runs, cleared below 0.1, over a window
# of the last 4 runs.
POLICY = (
    "registry: known-tests.txt\nmin_history_sample: 4\nflag_failure_rate: 0.3\n"
    "clear_failure_rate: 0.1\nhistory_runs: 4\n"
)
# The flaky test flips in runs 4, 5 and 10; the fixed one fails every replay of runs 1 and 2.
FLIPS = {4, 5, 10}
# Whether the flaky test is flagged after each run, with its failure rate over the window:
# not at 1/4 (below the threshold), flagged at 2/4, kept at 1/4 (in the gap), cleared at
# 0/4, and not flagged again at 1/4 (in the gap again).
FLAGGED = {4: False, 5: True, 8: True, 9: False, 10: False}


def failing(run: int) -> dict[str, str]:
    return {
        **({FLAKY: "x.x.."} if run in FLIPS else {}),
        **({FIXED: "xxxxx"} if run <= 2 else {}),
    }


def writer_caller(waiver_commit: str) -> str:
    document = {
        "name": "waiver history",
        "on": "workflow_run",
        "permissions": {},
        "jobs": {
            "history": {
                "uses": "./.github/workflows/waiver-history.yml",
                "permissions": {"actions": "read", "contents": "read"},
                "with": {
                    "waiver-repository": WAIVER_REPOSITORY,
                    "waiver-ref": waiver_commit,
                    "base-image": "waiver-base:bookworm",
                    "config": "waiver.yml",
                },
            }
        },
    }
    return yaml.safe_dump(document, sort_keys=False)


@dataclass
class Recorded:
    log: str
    history: Path | None  # the history the run uploaded, if it did


class DefaultBranch:
    """The example's repository with the gate's caller and the policy committed on main,
    the runs of the gate (their artifacts) and of the writer (theirs, and what the REST
    stand-in says of them)."""

    def __init__(self, folder: Path) -> None:
        repositories = Repositories(folder)
        self.waiver_commit = repositories.waiver_commit
        self.demo = repositories.change("main")
        self.run = self.demo.parents[2]
        caller = self.demo / GATE_CALLER
        caller.parent.mkdir(parents=True)
        caller.write_text(
            "name: waiver\non: [push, schedule]\npermissions: {}\njobs:\n  waiver:\n"
            f"    uses: {WAIVER_REPOSITORY}/.github/workflows/waiver-gate.yml@"
            f"{self.waiver_commit}\n"
        )
        (self.demo / "waiver.yml").write_text(POLICY)
        self.commit = commit_all(self.demo, "the gate's caller and the policy")
        self.artifacts = self.run / "artifacts"
        self.answers = Answers(per_page=100)
        self.writer_runs = 0

    def gate_run(self, run_id: int, report: Path, event: str = "push") -> dict[str, Any]:
        """A gate run of the caller on main, as GitHub tells of it, whose `waiver` artifact
        is `report`."""
        folder = self.artifacts / f"run-{run_id}" / "waiver"
        folder.mkdir(parents=True)
        shutil.copyfile(report, folder / "waiver.json")
        pinned = f"{WAIVER_REPOSITORY}/.github/workflows/waiver-gate.yml@{self.waiver_commit}"
        return {
            "id": run_id, "event": event, "head_sha": self.commit, "head_branch": "main",
            "path": GATE_CALLER, "pull_requests": [],
            "referenced_workflows": [
                {"path": pinned, "sha": self.waiver_commit, "ref": self.waiver_commit}
            ],
        }  # fmt: skip

    def record(self, triggering: dict[str, Any]) -> Recorded:
        """The writer under act on the completion of `triggering`; what it uploaded becomes
        its run's `waiver-history` artifact, which the stand-in lists for the next."""
        self.writer_runs += 1
        writer_id = 9000 + self.writer_runs
        workflows = self.demo / ".github" / "workflows"
        shutil.copy(HISTORY_WORKFLOW, workflows / "waiver-history.yml")
        (workflows / "history.yml").write_text(writer_caller(self.waiver_commit))
        event = self.run / f"writer-{writer_id}.json"
        repository = {"full_name": "demo/demo", "default_branch": "main"}
        event.write_text(json.dumps({"workflow_run": triggering, "repository": repository}))
        with github_api(self.answers) as api:
            _, log = act(
                ["workflow_run", "--eventpath", str(event), "-W", WRITER_CALLER,
                 "--no-skip-checkout", *stand_ins(self.run / "stand-ins"),
                 "--env", f"WAIVER_ARTIFACTS={self.artifacts}",
                 "--env", f"WAIVER_GIT={self.run / 'git'}",
                 "--env", f"GITHUB_API_URL={api}", "--env", f"GITHUB_WORKFLOW_REF={WRITER_REF}",
                 "-s", f"GITHUB_TOKEN={TOKEN}"],
                self.demo, self.run / f"home-{writer_id}",
            )  # fmt: skip
        uploaded = self.artifacts / "waiver-history"
        if not uploaded.exists():
            return Recorded(log, None)
        kept = self.artifacts / f"run-{writer_id}" / "waiver-history"
        kept.parent.mkdir(parents=True)
        uploaded.rename(kept)
        self.answers.runs.append(
            {"id": writer_id, "event": "workflow_run", "head_branch": "main",
             "path": WRITER_CALLER}
        )  # fmt: skip
        self.answers.artifacts.insert(
            0,
            {"name": "waiver-history", "expired": False,
             "workflow_run": {"id": writer_id, "head_branch": "main"}},
        )  # fmt: skip
        return Recorded(log, kept / "history.gz")


def show(history: Path, folder: Path) -> dict[str, Any]:
    """`waiver history show` of `history` under the policy: its JSON."""
    (folder / "waiver.yml").write_text(POLICY)
    out = folder / f"{history.parent.parent.name}.json"
    code = main(["history", "show", "--history", str(history), "--json", str(out),
                 "--config", str(folder / "waiver.yml")])  # fmt: skip
    assert code == 0
    document: dict[str, Any] = json.loads(out.read_text())
    return document


@dataclass
class Scenario:
    main: DefaultBranch
    suite: Path
    reports: dict[int, Path]  # each run's waiver.json, by run
    recorded: dict[int, Recorded]  # by run: 1..10, 11 the storm
    pull_request: Recorded


@pytest.fixture(scope="module")
def scenario(act_ready: None, tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    folder = tmp_path_factory.mktemp("history")
    default_branch = DefaultBranch(folder / "repositories")
    suite = build_suite(folder / "suite")
    # The runs of the last hours: the history keeps no run older than its days.
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=12)
    reports, recorded = {}, {}
    for run in range(1, 12):
        now = (start + timedelta(minutes=30 * run)).isoformat()
        # Run 11 is a storm: every test but the flaky one fails every replay.
        failures = dict.fromkeys((*TESTS[2:], FIXED), "xxxxx") if run == 11 else failing(run)
        reports[run] = gate_run(suite, now, failures)
        recorded[run] = default_branch.record(default_branch.gate_run(100 + run, reports[run]))
    # A pull request's run of the same caller, on its branch: the job does not run.
    pull_request = default_branch.record(
        default_branch.gate_run(200, reports[10], event="pull_request")
        | {"head_branch": "feature", "pull_requests": [{"number": 3}]}
    )
    return Scenario(default_branch, suite, reports, recorded, pull_request)


def history_of(scenario: Scenario, run: int) -> dict[str, Any]:
    recorded = scenario.recorded[run]
    assert recorded.history is not None, recorded.log[-6000:]
    return show(recorded.history, scenario.suite)


def by_id(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {test["test_id"]: test for test in document["tests"]}


def test_each_default_branch_run_continues_the_history_the_run_before_uploaded(
    scenario: Scenario,
) -> None:
    for run in scenario.recorded:
        document = history_of(scenario, run)
        # The window is the last four runs; each run's history holds the one before's.
        times = [recorded["time"] for recorded in document["runs"]]
        assert len(times) == min(run, 4), scenario.recorded[run].log[-6000:]
    first, second = scenario.recorded[1].log, scenario.recorded[2].log
    assert "no earlier history of this writer to continue: the history starts afresh" in first
    assert "afresh" not in second and "download stand-in: from run 9001" in second
    # The writer's job summary is the history shown under the run's policy.
    assert (
        "Flagged at a failure rate of 30% or more over at least 4 runs, cleared below 10%" in second
    )


def test_the_flaky_test_is_flagged_only_past_the_threshold_and_cleared_only_below_the_lower_one(
    scenario: Scenario,
) -> None:
    states = {run: by_id(history_of(scenario, run))[FLAKY] for run in FLAGGED}
    said = {run: (state["failure_rate"], state["flagged"]) for run, state in states.items()}
    assert said == {
        4: (0.25, False),  # 1 of 4: below 0.3, not flagged
        5: (0.5, True),  # 2 of 4: flagged
        8: (0.25, True),  # 1 of 4: in the gap, still flagged
        9: (0.0, False),  # none: below 0.1, cleared
        10: (0.25, False),  # 1 of 4: in the gap, still clear
    }


def test_the_flaky_test_ranks_first_with_its_trend_and_the_fixed_one_became_stable(
    scenario: Scenario,
) -> None:
    before_the_storm = history_of(scenario, 10)
    assert before_the_storm["tests"][0]["test_id"] == FLAKY
    assert by_id(before_the_storm)[FLAKY]["trend"] == "▁▁▁▄"
    assert before_the_storm["became_stable"] == [FIXED]
    after = history_of(scenario, 11)
    assert after["tests"][0]["test_id"] == FLAKY
    assert by_id(after)[FLAKY]["trend"] == "▁▁▄x"


def test_a_storm_run_is_recorded_and_left_out_of_the_rates(scenario: Scenario) -> None:
    document = history_of(scenario, 11)
    assert [run["storm"] for run in document["runs"]] == [False, False, False, True]
    assert document["runs"][-1]["failed"] == 9
    # Every test but the flaky one failed every replay of the storm: none of them is
    # shown, since outside it they passed each run of the window.
    assert [test["test_id"] for test in document["tests"]] == [FLAKY]
    assert by_id(document)[FLAKY] | {"trend": None, "transitions": None, "score": None} == {
        "test_id": FLAKY, "runs": 3, "flipped": 1, "failed": 0, "flip_rate": 0.3333,
        "transitions": None, "score": None, "failure_rate": None, "flagged": False,
        "became_stable": False, "classes": {"unstable_assertion": 1, "stable_assertion_fail": 0},
        "arrived_with_change": 0, "there_before": 0, "trend": None,
    }  # fmt: skip


def test_a_pull_request_s_run_records_nothing(scenario: Scenario) -> None:
    assert scenario.pull_request.history is None, scenario.pull_request.log[-6000:]
    assert "recorded" not in scenario.pull_request.log
    assert not (scenario.main.artifacts / "run-9012").exists()


def test_a_push_s_gate_run_under_act_is_what_the_writer_records(
    act_ready: None, tmp_path: Path
) -> None:
    """The gate workflow for real on a push to main, judged against the commit before it,
    and the writer on that run's waiver.json: a history of the example's one run."""
    default_branch = DefaultBranch(tmp_path / "repositories")
    (default_branch.demo / "README.md").write_text("The example.\n")
    commit_all(default_branch.demo, "a push to main")
    gated = run_workflow(
        default_branch.demo,
        default_branch.commit,
        demo_inputs(default_branch.waiver_commit, **{"base-replays": 0}),
        event_name="push",
    )
    report = gated.artifacts / "waiver" / "waiver.json"
    assert report.is_file(), gated.log[-6000:]
    assert gated.report()["trusted_revision"] == default_branch.commit
    # The default branch's own run is the one that writes the dependency cache: once, from
    # the property job, under the key its pull requests will restore.
    saved = re.findall(r"\| cache save stand-in: (\S+) saved$", gated.log, re.MULTILINE)
    assert saved == [entry.name for entry in (gated.artifacts.parent / "caches").iterdir()]
    assert re.fullmatch(f"{CACHE_PREFIX}[0-9a-f]{{64}}", saved[0])

    recorded = default_branch.record(default_branch.gate_run(300, report))

    assert recorded.history is not None, recorded.log[-6000:]
    document = show(recorded.history, tmp_path)
    assert [run["commit"] for run in document["runs"]] == [default_branch.commit]
    assert by_id(document)[ROUND_TRIP]["classes"]["unstable_assertion"] == 1


def test_a_pull_request_s_summary_shows_the_history_beside_the_unstable_row(
    scenario: Scenario, tmp_path: Path
) -> None:
    """The composite action under act on a pull request in which the flaky test flips,
    given the history the writer uploaded last."""
    work = build_suite(tmp_path / "work")
    git(work, "init", "--quiet")
    git(work, "add", "fixtures", "fixture.lock", "known-tests.txt")
    git(work, "commit", "--quiet", "-m", "base")
    base = git(work, "rev-parse", "HEAD")
    gate_run(work, datetime.now(UTC).replace(microsecond=0).isoformat(), {FLAKY: "x.x.."})
    history = scenario.recorded[11].history
    assert history is not None
    shutil.copyfile(history, work / "history.gz")
    install_action(work, tmp_path)
    inputs = {"reports": "reports", "properties": "properties.xml",
              "known-tests": "known-tests.txt", "history": "history.gz", "base-image": BASE}  # fmt: skip

    run = run_act(work, tmp_path, inputs, pull_request_event(base))

    assert run.outputs["verdict"] == "review", run.log[-6000:]
    row = next(line for line in run.log.splitlines() if f"| `{FLAKY}` |" in line)
    # The window after the storm: three runs, the flaky test flipped in one, not flagged.
    assert row.split("Summary - ")[-1].startswith(
        f"| `unstable_assertion` | `{FLAKY}` | 3/5 ✘✔✘✔✔ | flipped in 1 of the last 3 runs on main |"
    ), row


def test_freeze_accept_past_max_renewals_is_refused(
    scenario: Scenario, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The flaky test, frozen twice on main already, under `max_renewals: 1`."""
    work = tmp_path / "store"
    work.mkdir()
    git(work, "init", "--quiet")
    report = scenario.reports[10]
    proposal = next(
        row["freeze"] for row in json.loads(report.read_text())["rows"] if row["test_id"] == FLAKY
    )
    # Frozen for a day, three days ago and again two days ago.
    for days in (3, 2):
        issued = datetime.now(UTC).replace(microsecond=0) - timedelta(days=days)
        times = {
            "issued_at": issued.isoformat(),
            "expires_at": (issued + timedelta(days=1)).isoformat(),
        }
        (work / "freezes.json").write_text(json.dumps([proposal | times]))
        git(work, "add", "freezes.json")
        git(work, "commit", "--quiet", "-m", "freeze the flaky test")
    (work / "waiver.yml").write_text("max_renewals: 1\n")
    capsys.readouterr()

    code = main(["freeze", "accept", "--report", str(report), FLAKY,
                 "--store", str(work / "freezes.json"), "--config", str(work / "waiver.yml")])  # fmt: skip

    assert code == 2
    assert capsys.readouterr().err == (
        f"waiver: error: {report}: nothing accepted; {FLAKY}: it was frozen 2 times already "
        "and the policy allows 1 renewal (max_renewals); fix the test or delete it\n"
    )
