"""The action's reviews step under the simulated runner (tests/helpers/action_support.py): the
reviews are read with the token in a step of their own, and the gate's container, which
has neither network nor token, judges the file that step wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.action_support import TOKEN, Runner, Simulation, outcomes, simulate
from helpers.github_api import Answers, commit, github_api, review
from helpers.support import load_report


def pull_request_event(head: str) -> dict[str, object]:
    return {
        "pull_request": {
            "number": 7,
            "user": {"login": "agent"},
            "head": {"sha": head},
            "base": {"sha": head},
        }
    }


def simulate_with_reviews(
    workspace: tuple[Path, str], tmp_path: Path, answers: Answers, inputs: dict[str, str]
) -> Simulation:
    work, base = workspace
    runner = Runner(work, tmp_path / "runner", inputs, base, event=pull_request_event(base))
    with github_api(answers) as url:
        return runner.run({"GITHUB_API_URL": url})


def approved_by_a_maintainer(head: str) -> Answers:
    return Answers(
        reviews=[review(1, "maintainer", "APPROVED", head)],
        commits=[commit("agent", "agent")],
        permissions={"maintainer": "write"},
    )


def test_the_reviews_are_read_apart_and_the_gate_judges_the_file_without_a_token(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    work, base = workspace
    answers = approved_by_a_maintainer(base)

    simulation = simulate_with_reviews(
        workspace, tmp_path, answers, {"reports": "reports", "properties": "properties.xml"}
    )

    assert outcomes(simulation) == [
        "success",
        "success",
        "success",
        "success",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "failure",
    ]  # fmt: skip
    _, reviews, gate = simulation.docker_calls
    assert reviews[reviews.index("--network") + 1] == "host"
    assert "GITHUB_TOKEN" in reviews and reviews[-4:] == [
        "-P", "-m", "waiver", "approvals", "--out=/out/approvals.json",
    ][-4:]  # fmt: skip
    assert gate[gate.index("--network") + 1] == "none"
    assert "INPUT_APPROVALS=/github/approvals.json" in gate
    assert any(a.endswith(",target=/github/approvals.json,readonly") for a in gate)
    for call in simulation.docker_calls:
        assert not any(TOKEN in argument for argument in call)
    assert "GITHUB_TOKEN" not in gate
    assert {authorization for _, authorization in answers.asked} == {f"Bearer {TOKEN}"}
    approvals = load_report(work / "waiver.json")["approvals"]
    assert approvals["problem"] is None and approvals["head"] == base
    assert approvals["counted"] == [{"login": "maintainer", "review_id": 1, "commit": base}]


def test_an_api_failure_is_written_down_and_admits_nothing_without_failing_the_step(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    work, _ = workspace
    answers = Answers(status=502)

    simulation = simulate_with_reviews(
        workspace, tmp_path, answers, {"reports": "reports", "properties": "properties.xml"}
    )

    assert simulation.step("approvals").outcome == "success"
    assert simulation.step("gate").outputs["exit-code"] == "1"  # blocked, as without reviews
    approvals = load_report(work / "waiver.json")["approvals"]
    assert approvals["counted"] == []
    assert approvals["problem"].startswith("no approval is counted: ")
    assert "502" in approvals["problem"]


def test_a_runner_whose_reviews_step_left_no_file_admits_nothing(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    work, base = workspace
    runner = Runner(
        work, tmp_path / "runner", {"reports": "reports", "properties": "properties.xml"},
        base, event=pull_request_event(base),
    )  # fmt: skip

    # The image's container never starts: the step must still leave the gate a file.
    simulation = runner.run({"FAKE_DOCKER_RUN_EXIT": "125"})

    assert simulation.step("approvals").outcome == "success"
    assert "waiver approvals exited 125" in simulation.step("approvals").stdout


@pytest.mark.parametrize("value", ["yes", "github\n", "--help"])
def test_an_approvals_input_other_than_github_or_empty_is_an_input_error(
    workspace: tuple[Path, str], tmp_path: Path, value: str
) -> None:
    simulation = simulate(workspace, tmp_path, {"approvals": value})

    gate = simulation.step("gate")
    assert gate.outputs["exit-code"] == "2"
    assert gate.outputs["error"].startswith("approvals must be 'github' or empty: ")
    assert simulation.step("approvals").outcome == "skipped"


def test_outside_a_pull_request_no_reviews_are_read(
    workspace: tuple[Path, str], tmp_path: Path
) -> None:
    work, _ = workspace

    simulation = simulate(workspace, tmp_path)

    assert simulation.step("approvals").outcome == "skipped"
    assert len(simulation.docker_calls) == 2  # the build and the gate
    assert "approvals" not in load_report(work / "waiver.json")
