"""The exact shapes of an honest gate run: which reusable workflows it may have called and
which artifacts it may have uploaded (waiver.decide.provenance_rules), and what the base's caller
calls (waiver.read.evidence.provenance_data.reusable_calls)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from waiver.decide.provenance_rules import (
    REPORT_ARTIFACTS,
    Artifact,
    GateShape,
    called_workflow_problems,
    expected_names,
    sort_artifacts,
)
from waiver.read.evidence.provenance_data import reusable_calls

PIN = "1" * 40
GATE = f"waiver/waiver/.github/workflows/waiver-gate.yml@{PIN}"


@pytest.mark.parametrize(
    ("referenced", "calls_gate", "problems"),
    [
        ([(GATE, PIN)], True, []),
        ([(GATE.replace("waiver/waiver", "Waiver/Waiver"), PIN)], True, []),
        ([(GATE, PIN), (GATE, PIN)], True, []),
        ([], True, [f"it calls no reusable workflow, not waiver/waiver's waiver-gate.yml at {PIN}"]),
        ([(GATE, "2" * 40)], True, [f"it calls {GATE} at {'2' * 40}, not at {PIN}"]),
        ([(GATE, PIN), ("o/r/.github/workflows/x.yml@main", PIN)], True,
         ["it calls o/r/.github/workflows/x.yml@main, which is not waiver/waiver's waiver-gate.yml"]),
        ([(GATE.replace("waiver/waiver", "waiver/waiver-fork"), PIN)], True,
         [f"it calls {GATE.replace('waiver/waiver', 'waiver/waiver-fork')}, which is not "
          "waiver/waiver's waiver-gate.yml"]),
        ([], False, []),
        ([(GATE, PIN)], False, [f"it calls {GATE}, which the base's gate caller does not"]),
    ],
)  # fmt: skip
def test_a_run_calls_exactly_what_the_base_s_caller_calls_at_the_pin(
    referenced: list[tuple[str, str]], calls_gate: bool, problems: list[str]
) -> None:
    assert called_workflow_problems(referenced, "waiver/waiver", PIN, calls_gate) == problems


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        (f"on: pull_request\njobs:\n  waiver:\n    uses: {GATE}\n".encode(), [GATE]),
        (b"on: pull_request\njobs:\n  test:\n    runs-on: x\n    steps: []\n", []),
        (b"on: [\n", None),
        (b"- a list\n", None),
    ],
)
def test_the_base_s_caller_is_read_for_the_workflows_its_jobs_call(
    text: bytes, calls: list[str] | None
) -> None:
    assert reusable_calls(text) == calls


SHAPE = GateShape(replays=2, shards=2, base_replays=1)
EXPECTED = {name for names in expected_names(SHAPE).values() for name in names}
NAMES = st.sampled_from(sorted(EXPECTED | set(REPORT_ARTIFACTS))) | st.text(max_size=40)


# Artifact ids are unique in a repository.
@given(st.lists(st.tuples(st.integers(1, 10_000), NAMES, st.booleans()), max_size=30,
                unique_by=lambda artifact: artifact[0]))  # fmt: skip
def test_an_artifact_is_downloaded_only_by_its_exact_name_and_any_other_name_is_named(
    listed: list[tuple[int, str, bool]],
) -> None:
    artifacts = [Artifact(i, name, expired, None) for i, name, expired in listed]
    chosen = sort_artifacts(artifacts, SHAPE)
    picked = (
        chosen.properties + chosen.replays + chosen.base_replays + chosen.red_green
        + chosen.change_tests
    )  # fmt: skip
    # Each id taken is a live artifact of an expected name, the newest of that name.
    by_id = {a.artifact_id: a for a in artifacts}
    for artifact_id in picked:
        taken = by_id[artifact_id]
        assert taken.name in EXPECTED and not taken.expired
        assert artifact_id == max(a.artifact_id for a in artifacts if a.name == taken.name)
    assert len({by_id[i].name for i in picked}) == len(picked)
    # Every other name is named, whatever its expiry.
    others = {a.name for a in artifacts} - EXPECTED - set(REPORT_ARTIFACTS)
    assert set(chosen.unexpected) == others


def test_the_expected_names_are_those_the_reusable_workflow_uploads() -> None:
    assert expected_names(GateShape(replays=1, shards=2, base_replays=0)) == {
        "properties": ["waiver-properties"],
        "replays": ["waiver-junit-run-1-shard-1", "waiver-junit-run-1-shard-2"],
        "base_replays": [],
        "red_green": ["waiver-red-green-shard-1", "waiver-red-green-shard-2"],
        "change_tests": ["waiver-change-tests-shard-1", "waiver-change-tests-shard-2"],
    }
