"""Which reusable workflows a gate run may have called, and which artifacts it may have
uploaded: the exact shapes of an honest run of the base's gate caller. Pure; the run is
read elsewhere (`waiver.github.runs`, `waiver.github.artifacts`).

The base's gate caller calls waiver's reusable gate workflow and nothing else, at the
commit the judging workflow itself runs (or, a caller whose replays run in jobs of its own,
no reusable workflow at all); a run that called anything more, anything less or another
repository's file of the same name ran a caller the base does not hold. The reusable
workflow uploads artifacts under names it builds from its inputs; one of any other name
(a near-duplicate with a trailing space, a suffix, another case) was uploaded by something
else in the run — the change's code — and a download by pattern would take it for a replay.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

# The reusable workflow a gate caller calls (`waiver init` writes the caller).
GATE_WORKFLOW = "waiver-gate.yml"
WORKFLOWS_FOLDER = ".github/workflows"
# What the gate job uploads beside the reports: its waiver.json and the diagnosis.
REPORT_ARTIFACTS = ("waiver", "waiver-diagnosis")


def gate_workflow(waiver_repository: str) -> str:
    """Waiver's reusable gate workflow as a `uses:` names it, before its `@ref`, lower case."""
    return f"{waiver_repository}/{WORKFLOWS_FOLDER}/{GATE_WORKFLOW}".lower()


def called_workflow_problems(
    referenced: Sequence[tuple[str, str]],
    waiver_repository: str,
    waiver_commit: str,
    calls_gate: bool = True,
) -> list[str]:
    """Why the reusable workflows a run called (`path@ref`, commit) are not exactly waiver's
    gate workflow at `waiver_commit` (or, when the base's caller calls none, `calls_gate`
    False, why it called any); none when they are. Repository names compare without case,
    as GitHub's do."""
    expected = gate_workflow(waiver_repository)
    if not calls_gate:
        return [f"it calls {path}, which the base's gate caller does not" for path, _ in referenced]
    if not referenced:
        return [
            f"it calls no reusable workflow, not {waiver_repository}'s {GATE_WORKFLOW} "
            f"at {waiver_commit}"
        ]
    problems = []
    for path, sha in referenced:
        called = path.rpartition("@")[0] or path
        if called.lower() != expected:
            problems.append(f"it calls {path}, which is not {waiver_repository}'s {GATE_WORKFLOW}")
        elif sha != waiver_commit:
            problems.append(f"it calls {path} at {sha}, not at {waiver_commit}")
    return problems


@dataclass(frozen=True)
class Artifact:
    """One artifact of a run, as the API lists it."""

    artifact_id: int
    name: str
    expired: bool
    created_at: datetime | None  # None: the API gave no time that can be read


@dataclass(frozen=True)
class GateShape:
    """What the gate caller's run was asked to do: the reusable workflow's inputs that
    name its artifacts."""

    replays: int
    shards: int
    base_replays: int


@dataclass(frozen=True)
class SortedArtifacts:
    """A run's artifacts by what they hold, the newest of each expected name; and the names
    nothing in the reusable workflow uploads."""

    properties: tuple[int, ...]
    replays: tuple[int, ...]
    base_artifacts: tuple[Artifact, ...]  # whose times say whether they can be trusted
    red_green: tuple[int, ...]
    change_tests: tuple[int, ...]
    unexpected: tuple[str, ...]

    @property
    def base_replays(self) -> tuple[int, ...]:
        return tuple(artifact.artifact_id for artifact in self.base_artifacts)


def _grid(prefix: str, replays: int, shards: int) -> list[str]:
    return [
        f"{prefix}-run-{replay}-shard-{shard}"
        for replay in range(1, replays + 1)
        for shard in range(1, shards + 1)
    ]


def expected_names(shape: GateShape) -> dict[str, list[str]]:
    """The names the reusable gate workflow uploads, by kind."""
    return {
        "properties": ["waiver-properties"],
        "replays": _grid("waiver-junit", shape.replays, shape.shards),
        "base_replays": _grid("waiver-base-junit", shape.base_replays, shape.shards),
        "red_green": [f"waiver-red-green-shard-{shard}" for shard in range(1, shape.shards + 1)],
        # The change's own tests, apart: one artifact for each shard that had work.
        "change_tests": [
            f"waiver-change-tests-shard-{shard}" for shard in range(1, shape.shards + 1)
        ],
    }


def sort_artifacts(listed: Iterable[Artifact], shape: GateShape) -> SortedArtifacts:
    """The artifact ids to download, kind by kind, by exact name (a re-run's upload of the
    same name replaces the earlier one: the highest id wins); every name the reusable
    workflow does not upload is named, expired or not."""
    kinds = expected_names(shape)
    kind_of = {name: kind for kind, names in kinds.items() for name in names}
    newest: dict[str, Artifact] = {}
    unexpected = set()
    for artifact in listed:
        if artifact.name in kind_of:
            held = newest.get(artifact.name)
            if held is None or artifact.artifact_id > held.artifact_id:
                newest[artifact.name] = artifact
        elif artifact.name not in REPORT_ARTIFACTS:
            unexpected.add(artifact.name)

    def chosen(kind: str) -> tuple[Artifact, ...]:
        found = (newest.get(name) for name in kinds[kind])
        return tuple(a for a in found if a is not None and not a.expired)

    def ids(kind: str) -> tuple[int, ...]:
        return tuple(a.artifact_id for a in chosen(kind))

    return SortedArtifacts(
        properties=ids("properties"),
        replays=ids("replays"),
        base_artifacts=chosen("base_replays"),
        red_green=ids("red_green"),
        change_tests=ids("change_tests"),
        unexpected=tuple(sorted(unexpected)),
    )
