"""The gate judges only reports that the base's own gate workflow produced: the example with
a gate caller committed as the base, one change commit per case, real replays, and the gate
with `--trusted-ref BASE --provenance FILE` as the report workflow runs it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.change_support import commit_base, fix_slugify
from helpers.support import git, load_report, replay_example, run_gate
from waiver.decide.base_order import NO_EVIDENCE

pytestmark = pytest.mark.slow

CALLER = ".github/workflows/waiver.yml"
REPORT_CALLER = ".github/workflows/waiver-report.yml"
WAIVER = "waiver/waiver"
PIN = "1" * 40
GATE = f"{WAIVER}/.github/workflows/waiver-gate.yml@{PIN}"


def callers(work: Path, pin: str = PIN) -> None:
    workflows = work / ".github" / "workflows"
    workflows.mkdir(parents=True, exist_ok=True)
    (workflows / "waiver.yml").write_text(
        f"name: waiver\non: pull_request\njobs:\n  waiver:\n    uses: {WAIVER}/.github/workflows/"
        f"waiver-gate.yml@{pin}\n"
    )
    (workflows / "waiver-report.yml").write_text(f"name: waiver report\n# {pin}\n")


def upgrade(work: Path) -> None:
    callers(work, "2" * 40)


class Repository:
    """The base, and a change commit of each kind beside it, all replayed once."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.base = commit_base(work, callers)
        self.changes = {
            "honest": self._change(fix_slugify),
            "edited caller": self._change(lambda w: (fix_slugify(w), upgrade(w))),
            "upgrade": self._change(upgrade),
        }
        replay_example(work)

    def _change(self, patch: Any) -> str:
        git(self.work, "checkout", "--quiet", "--detach", self.base)
        patch(self.work)
        git(self.work, "add", "-A")
        git(self.work, "commit", "--quiet", "-m", "change")
        return git(self.work, "rev-parse", "HEAD")

    def gate(
        self, change: str, approvals: dict[str, Any] | None = None, **run: Any
    ) -> tuple[int, dict[str, Any]]:
        head = self.changes[change]
        git(self.work, "checkout", "--quiet", "--detach", head)
        artifacts = run.pop("artifacts", None)
        base_order = run.pop("base_order", None)
        found = {"id": 42, "path": CALLER, "head_sha": head, "event": "pull_request",
                 "referenced_workflows": [{"path": GATE, "sha": PIN}], **run}  # fmt: skip
        document = {
            "caller": CALLER,
            "report_workflow": REPORT_CALLER,
            "waiver": {"repository": WAIVER, "commit": PIN},
            "run": None if run.get("id") == "none" else found,
            "error": "GET /repos/demo/demo/actions/runs answered HTTP 500"
            if run.get("id") == "none"
            else None,
        }
        if artifacts is not None:
            document["artifacts"] = artifacts
        if base_order is not None:
            document["base_order"] = base_order
        provenance = self.work.parent / "provenance.json"
        provenance.write_text(json.dumps(document))
        extra = ["--trusted-ref", self.base, "--provenance", str(provenance)]
        if approvals is not None:
            path = self.work.parent / "approvals.json"
            path.write_text(json.dumps(approvals))
            extra += ["--approvals", str(path)]
        return run_gate(self.work, *extra)


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Repository:
    return Repository(tmp_path_factory.mktemp("provenance") / "demo")


LATE = (
    'waiver-base-junit-run-1-shard-1 created 2026-12-01T10:01:30Z after "properties, then '
    f'replay 1, shard 1" began 2026-12-01T10:00:00Z: {NO_EVIDENCE}'
)


def approval_of(head: str) -> dict[str, Any]:
    return {
        "pull_request": {"number": 7, "user": {"login": "agent"}, "head": {"sha": head}},
        "reviews": [
            {
                "id": 1,
                "user": {"login": "maintainer", "type": "User"},
                "state": "APPROVED",
                "commit_id": head,
            }
        ],
        "commits": [{"author": {"login": "agent"}, "committer": {"login": "agent"}}],
        "permissions": {"maintainer": {"permission": "write"}},
        "error": None,
    }


def test_the_base_gate_workflow_s_run_is_judged_as_usual(repository: Repository) -> None:
    code, report = repository.gate("honest")
    assert report["provenance"] == {
        "run_id": 42, "workflow": CALLER, "problem": None, "admitted_by": None,
    }  # fmt: skip
    assert report["rows"] and report["run_blockers"] == []
    assert code == (1 if report["blocked"] else 0)


@pytest.mark.parametrize(
    ("run", "said"),
    [
        pytest.param(
            {"path": ".github/workflows/evil.yml"},
            "the reports come from run 42 of .github/workflows/evil.yml, not from the base's "
            f"gate workflow {CALLER}",
            id="another file named waiver",
        ),
        pytest.param(
            {"head_sha": "d" * 40},
            f"run 42 of {CALLER} was about {'d' * 40}, not the commit checked",
            id="another head",
        ),
        pytest.param(
            {"event": "push"}, f"run 42 of {CALLER} was started by push", id="another event"
        ),
        pytest.param(
            {"referenced_workflows": [{"path": GATE, "sha": "3" * 40}]},
            f"the reports come from run 42 of {CALLER}, which is not the base's gate workflow: "
            f"it calls {GATE} at {'3' * 40}, not at {PIN}",
            id="another waiver",
        ),
        pytest.param(
            {"referenced_workflows": []},
            f"the reports come from run 42 of {CALLER}, which is not the base's gate workflow: "
            f"it calls no reusable workflow, not {WAIVER}'s waiver-gate.yml at {PIN}",
            id="no waiver called",
        ),
        pytest.param(
            {
                "referenced_workflows": [
                    {"path": GATE, "sha": PIN},
                    {"path": "demo/demo/.github/workflows/up.yml@main", "sha": "4" * 40},
                ]
            },
            f"the reports come from run 42 of {CALLER}, which is not the base's gate workflow: "
            f"it calls demo/demo/.github/workflows/up.yml@main, which is not {WAIVER}'s "
            "waiver-gate.yml",
            id="another workflow called beside waiver's",
        ),
        pytest.param(
            {
                "referenced_workflows": [
                    {"path": f"mallory/waiver/.github/workflows/waiver-gate.yml@{PIN}", "sha": PIN}
                ]
            },
            f"the reports come from run 42 of {CALLER}, which is not the base's gate workflow: "
            f"it calls mallory/waiver/.github/workflows/waiver-gate.yml@{PIN}, which is not "
            f"{WAIVER}'s waiver-gate.yml",
            id="a lookalike of waiver at the pin",
        ),
        pytest.param(
            {
                "artifacts": {
                    "properties": [1],
                    "replays": [2],
                    "base_replays": [],
                    "red_green": [],
                    "unexpected": ["waiver-junit-run-1-shard-1 "],
                }
            },
            f"run 42 of {CALLER} uploaded artifacts that no job of waiver's gate workflow "
            'uploads: "waiver-junit-run-1-shard-1 "',
            id="a near-duplicate artifact",
        ),
        pytest.param(
            {"base_order": LATE},
            f"{LATE} (run 42)",
            id="a base replay created after a change job began",
        ),
        pytest.param(
            {"id": "none"},
            "no gate run is known for these reports: "
            "GET /repos/demo/demo/actions/runs answered HTTP 500",
            id="no run",
        ),
    ],
)
def test_reports_of_any_other_run_block_unread(
    repository: Repository, run: dict[str, Any], said: str
) -> None:
    code, report = repository.gate("honest", **run)
    assert (code, report["verdict"], report["run_blockers"]) == (1, "blocked", [said])
    assert report["rows"] == [] and report["replays"] is None
    assert report["provenance"]["problem"] == said


def test_an_edited_caller_beside_other_edits_blocks_whatever_is_approved(
    repository: Repository,
) -> None:
    head = repository.changes["edited caller"]
    code, report = repository.gate(
        "edited caller",
        approvals=approval_of(head),
        referenced_workflows=[{"path": GATE, "sha": "2" * 40}],
    )
    assert (code, report["rows"]) == (1, [])
    assert report["run_blockers"] == [
        f"the reports come from run 42 of {CALLER}, which is not the base's gate workflow: "
        f"{CALLER} is not the base's, byte for byte; it calls {GATE} at {'2' * 40}, not at {PIN}"
    ]


def test_an_upgrade_of_the_gate_s_workflows_alone_waits_for_an_approval(
    repository: Repository,
) -> None:
    head = repository.changes["upgrade"]
    moved = [{"path": GATE, "sha": "2" * 40}]
    code, report = repository.gate("upgrade", referenced_workflows=moved)
    assert (code, report["rows"]) == (1, [])
    assert report["run_blockers"][0].endswith(
        "; the change edits the gate's workflow files alone, which an approval of its head "
        "commit admits"
    )

    approved = approval_of(head)
    code, report = repository.gate("upgrade", approvals=approved, referenced_workflows=moved)
    assert report["run_blockers"] == []
    assert report["provenance"]["admitted_by"] == {
        "login": "maintainer", "review_id": 1, "commit": head,
    }  # fmt: skip
    # Admitted, the reports are judged as any: the example's own stable failure still blocks.
    assert (code, report["verdict"], report["counts"]["stable_assertion_fail"]) == (1, "blocked", 1)


def test_a_report_left_by_the_provenance_check_is_schema_valid(repository: Repository) -> None:
    repository.gate("honest", path=".github/workflows/evil.yml")
    report = load_report(repository.work / "waiver.json")  # validates against the schema
    assert report["counts"]["stable_pass"] == 0


def test_no_approval_admits_base_replays_a_change_job_could_have_written(
    repository: Repository,
) -> None:
    # An upgrade of the gate's workflows alone waits for an approval; base replays created
    # after the change's code began are no evidence whoever approves.
    head = repository.changes["upgrade"]
    moved = [{"path": GATE, "sha": "2" * 40}]
    code, report = repository.gate(
        "upgrade", approvals=approval_of(head), referenced_workflows=moved, base_order=LATE
    )
    assert (code, report["verdict"], report["run_blockers"]) == (1, "blocked", [f"{LATE} (run 42)"])
    assert report["provenance"]["admitted_by"] is None
