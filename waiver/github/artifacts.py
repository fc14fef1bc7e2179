"""A gate run's artifacts, listed from the REST API (every page), sorted by exact name into
what the report workflow downloads by id (`waiver.decide.provenance_rules.sort_artifacts`),
each with the time the API says it was created (`created_at`, which its schema lets be
null), by which the base replays' are judged (`waiver.decide.base_order`)."""

from __future__ import annotations

from waiver.decide.provenance_rules import Artifact, GateShape, SortedArtifacts, sort_artifacts
from waiver.github.rest import Api, ApiFailed, read_time


def run_artifacts(api: Api, repository: str, run_id: int) -> list[Artifact]:
    """Every artifact of run `run_id`; one the API describes in another shape is an error,
    never left out."""
    listed = api.pages(f"/repos/{repository}/actions/runs/{run_id}/artifacts", key="artifacts")
    artifacts = []
    for item in listed:
        if not isinstance(item, dict):
            raise ApiFailed(f"an artifact of run {run_id} has no id, name or expiry")
        artifact_id, name, expired = item.get("id"), item.get("name"), item.get("expired", False)
        if (
            not isinstance(artifact_id, int)
            or isinstance(artifact_id, bool)
            or not isinstance(name, str)
            or not isinstance(expired, bool)
        ):
            raise ApiFailed(f"an artifact of run {run_id} has no id, name or expiry")
        artifacts.append(Artifact(artifact_id, name, expired, read_time(item.get("created_at"))))
    return artifacts


def gate_artifacts(api: Api, repository: str, run_id: int, shape: GateShape) -> SortedArtifacts:
    return sort_artifacts(run_artifacts(api, repository, run_id), shape)
