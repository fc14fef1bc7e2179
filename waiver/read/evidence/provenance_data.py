"""The gate run whose reports are judged, as `waiver provenance` wrote it: JSON in,
`Provenance` out, or an InputError.

The file comes from a step of the trusted `workflow_run` job, not from the change, but it
is read like any input: strictly, bounded, every field checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from waiver.decide.cost import KINDS, Cost
from waiver.errors import InputError
from waiver.read.untrusted.bounded import load_bounded_yaml
from waiver.read.untrusted.files import read_small
from waiver.read.untrusted.jsonfile import parse_json

MAX_PROVENANCE_BYTES = 1 << 20


@dataclass(frozen=True)
class ReportsRun:
    """The run that produced the reports, as GitHub tells of it."""

    run_id: int
    path: str | None  # its workflow file
    head_sha: str
    event: str | None  # what started it
    referenced: tuple[tuple[str, str], ...]  # (path@ref, commit) of each reusable workflow
    # Artifacts of the run whose names no job of waiver's reusable workflow uploads.
    unexpected_artifacts: tuple[str, ...] = ()
    attempt: int = 1  # the attempt judged
    pull_request: int | None = None  # the pull request it is bound to; None: a merge group's
    base_order: str | None = None  # why its base replays are no evidence; None: they are


@dataclass(frozen=True)
class Provenance:
    caller: str  # the base's gate workflow file
    report_workflow: str | None  # the file of the job that judges, one of the gate's files
    waiver_repository: str
    waiver_commit: str  # the commit the run's reusable gate workflow must be pinned to
    run: ReportsRun | None
    error: str | None  # why no run could be named
    superseded: str | None = None  # why nothing is posted: a newer run or attempt reports
    cost: Cost | None = None  # what the run's jobs cost, when they could be read


def _text(value: Mapping[str, Any], key: str, source: str, optional: bool = False) -> Any:
    found = value.get(key)
    if (found is None and optional) or isinstance(found, str):
        return found
    raise InputError(source, f"the field {key} is not a string")


def _unexpected(document: Mapping[str, Any], source: str) -> tuple[str, ...]:
    artifacts = document.get("artifacts")
    if artifacts is None:
        return ()
    names = artifacts.get("unexpected") if isinstance(artifacts, dict) else None
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise InputError(source, "the run's unexpected artifacts are not a list of names")
    return tuple(names)


def _run(
    value: object, source: str, unexpected: tuple[str, ...], base_order: str | None
) -> ReportsRun | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InputError(source, "the run is not an object")
    run_id = value.get("id")
    referenced = value.get("referenced_workflows")
    if not isinstance(run_id, int) or isinstance(run_id, bool):
        raise InputError(source, "the run's id is not a number")
    attempt, pull_request = value.get("attempt", 1), value.get("pull_request")
    if not isinstance(attempt, int) or isinstance(attempt, bool):
        raise InputError(source, "the run's attempt is not a number")
    if pull_request is not None and (
        not isinstance(pull_request, int) or isinstance(pull_request, bool)
    ):
        raise InputError(source, "the run's pull request is not a number")
    if not isinstance(referenced, list) or not all(
        isinstance(item, dict) and isinstance(item.get("path"), str)
        and isinstance(item.get("sha"), str)
        for item in referenced
    ):  # fmt: skip
        raise InputError(source, "the run's referenced_workflows is not a list of path and sha")
    return ReportsRun(
        run_id=run_id,
        path=_text(value, "path", source, optional=True),
        head_sha=_text(value, "head_sha", source),
        event=_text(value, "event", source, optional=True),
        referenced=tuple((item["path"], item["sha"]) for item in referenced),
        unexpected_artifacts=unexpected,
        attempt=attempt,
        pull_request=pull_request,
        base_order=base_order,
    )


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def _cost(value: object, source: str) -> Cost | None:
    if value is None:
        return None
    seconds = value.get("seconds") if isinstance(value, dict) else None
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("jobs"), int)
        or not isinstance(value.get("billed_minutes"), int)
        or not isinstance(seconds, dict)
        or not all(kind in KINDS and _number(spent) for kind, spent in seconds.items())
        or not (value.get("plain_run") is None or _number(value.get("plain_run")))
    ):
        raise InputError(source, "the run's cost is not what `waiver provenance` writes")
    return Cost(value["jobs"], seconds, value["billed_minutes"], value.get("plain_run"))


def read_provenance(path: str) -> Provenance:
    document = parse_json(read_small(path, MAX_PROVENANCE_BYTES, path), path)
    if not isinstance(document, dict) or not isinstance(document.get("waiver"), dict):
        raise InputError(path, "not what `waiver provenance` writes")
    waiver = document["waiver"]
    return Provenance(
        caller=_text(document, "caller", path),
        report_workflow=_text(document, "report_workflow", path, optional=True),
        waiver_repository=_text(waiver, "repository", path),
        waiver_commit=_text(waiver, "commit", path),
        run=_run(
            document.get("run"),
            path,
            _unexpected(document, path),
            _text(document, "base_order", path, optional=True),
        ),
        error=_text(document, "error", path, optional=True),
        superseded=_text(document, "superseded", path, optional=True),
        cost=_cost(document.get("cost"), path),
    )


def reusable_calls(text: bytes) -> list[str] | None:
    """The reusable workflows a workflow file's jobs call (`jobs.<id>.uses`), as written;
    None when the text is no YAML mapping. The file is the trusted base's, read as blobs."""
    try:
        document = load_bounded_yaml(text, "the base's gate caller")
    except InputError:
        return None
    if not isinstance(document, dict):
        return None
    jobs = document.get("jobs")
    return [
        job["uses"]
        for job in (jobs.values() if isinstance(jobs, dict) else ())
        if isinstance(job, dict) and isinstance(job.get("uses"), str)
    ]
