"""The own-jobs example of docs/replays.md ("Suites that need services"), as a user would copy
it: a property job, one replay job per replay with its own Redis, and the gate job, each
holding what makes such a run trustworthy and its reports readable by the gate and the
report workflow."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers.support import lint_workflow
from helpers.workflow_support import SERVICES_INPUT_WORKFLOW, services_example
from waiver.decide.provenance_rules import GateShape, expected_names

GUARD = "|| [ $? -eq 1 ]"
LAYOUT = 'bash "$RUNNER_TEMP/waiver/action/run-in-image.sh" restore-tests --from "$BASE"'


def example() -> tuple[str, dict[str, Any]]:
    text = services_example()
    document: dict[str, Any] = yaml.safe_load(text)
    return text, document


def steps(job: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = example()[1]["jobs"][job]["steps"]
    return found


def test_it_has_a_property_job_replay_jobs_and_the_gate() -> None:
    jobs = example()[1]["jobs"]
    assert list(jobs) == ["properties", "replays", "gate"]
    assert jobs["gate"]["needs"] == ["properties", "replays"]
    assert jobs["gate"]["if"] == "${{ !cancelled() }}"
    # No reusable workflow: the report workflow refuses a caller with its own jobs that
    # calls one.
    assert all("uses" not in job for job in jobs.values())


@pytest.mark.parametrize("job", ["properties", "replays"])
def test_each_test_job_starts_its_own_service_and_guards_the_exit_code(job: str) -> None:
    definition = example()[1]["jobs"][job]
    assert definition["services"]["redis"]["ports"] == ["6379:6379"]
    runs = [
        step
        for step in steps(job)
        if "pytest" in step.get("run", "") and "-m pytest" in step["run"]
    ]
    assert len(runs) == 1 and runs[0]["run"].rstrip().endswith(GUARD)
    assert runs[0]["env"]["REDIS_URL"] == "redis://localhost:6379/0"
    uploads = [step for step in steps(job) if step.get("uses", "").startswith("actions/upload")]
    assert [step["if"] for step in uploads] == ["${{ !cancelled() }}"]


@pytest.mark.parametrize("job", ["properties", "replays"])
def test_the_base_s_test_tree_is_laid_out_by_the_image_before_the_change_s_code_runs(
    job: str,
) -> None:
    order = [step.get("name") or step.get("run") or step["uses"] for step in steps(job)]
    layout = order.index("Lay out the base commit's test tree")
    install = next(n for n, text in enumerate(order) if "pip install" in text)
    assert order.index("Pull or build waiver's image") < layout < install
    assert steps(job)[layout]["run"].startswith(LAYOUT)
    # waiver leaves the workspace before the change is checked out, and is never installed.
    assert order.index('mv -- .waiver-action "$RUNNER_TEMP/waiver"') == 1
    scripts = "\n".join(step.get("run", "") for step in steps(job))
    assert not re.search(r"pip install[^\n]*waiver", scripts)


def test_the_uploads_have_exactly_the_names_the_report_workflow_expects() -> None:
    jobs = example()[1]["jobs"]
    replays = jobs["replays"]["strategy"]["matrix"]["replay"]
    gate = next(s for s in steps("gate") if s.get("uses", "").startswith("OWNER/waiver@"))
    assert (gate["with"]["replays"], gate["with"]["shards"]) == (len(replays), 1)
    expected = expected_names(GateShape(replays=len(replays), shards=1, base_replays=0))
    uploaded = {
        job: [s["with"]["name"] for s in steps(job) if s.get("uses", "").startswith("actions/up")]
        for job in ("properties", "replays")
    }
    assert uploaded["properties"] == expected["properties"]
    (pattern,) = uploaded["replays"]
    assert [pattern.replace("${{ matrix.replay }}", str(r)) for r in replays] == expected["replays"]
    downloads = [s["with"] for s in steps("gate") if s.get("uses", "").startswith("actions/do")]
    assert downloads == [
        {"name": "waiver-properties", "path": "change/waiver-properties"},
        {"pattern": "waiver-junit-run-*", "merge-multiple": True, "path": "change/waiver-reports"},
    ]
    assert gate["with"]["working-directory"] == "change"


def test_it_passes_actionlint_and_zizmor(tmp_path: Path) -> None:
    lint_workflow(example()[0], tmp_path)


def test_a_called_workflow_may_take_its_services_from_an_input(tmp_path: Path) -> None:
    # What the page says of the syntax; act's refusal is in test_services_act.py.
    lint_workflow(SERVICES_INPUT_WORKFLOW, tmp_path)
