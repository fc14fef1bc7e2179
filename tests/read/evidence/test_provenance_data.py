"""The run file `waiver provenance` writes, read like any input: a shape it does not have is
an input error that names the file, never a traceback and never a run taken as trusted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from waiver.errors import InputError
from waiver.read.evidence.provenance_data import ReportsRun, read_provenance

RUN = {"id": 42, "path": ".github/workflows/waiver.yml", "head_sha": "a" * 40,
       "event": "pull_request", "referenced_workflows": [{"path": "o/w/x.yml@r", "sha": "1" * 40}]}  # fmt: skip
DOCUMENT = {"caller": ".github/workflows/waiver.yml", "report_workflow": None,
            "waiver": {"repository": "o/w", "commit": "1" * 40}, "run": RUN, "error": None}  # fmt: skip


def written(tmp_path: Path, text: str) -> str:
    path = tmp_path / "provenance.json"
    path.write_text(text)
    return str(path)


def test_the_written_document_is_read_whole(tmp_path: Path) -> None:
    provenance = read_provenance(written(tmp_path, json.dumps(DOCUMENT)))
    assert provenance.run == ReportsRun(
        42, ".github/workflows/waiver.yml", "a" * 40, "pull_request",
        (("o/w/x.yml@r", "1" * 40),),
    )  # fmt: skip
    assert (provenance.waiver_repository, provenance.error) == ("o/w", None)


def test_the_run_s_unexpected_artifacts_are_read_with_it(tmp_path: Path) -> None:
    artifacts = {"properties": [1], "replays": [], "base_replays": [], "red_green": [],
                 "unexpected": ["waiver-junit-run-1-shard-1 "]}  # fmt: skip
    provenance = read_provenance(
        written(tmp_path, json.dumps({**DOCUMENT, "artifacts": artifacts}))
    )
    assert provenance.run is not None
    assert provenance.run.unexpected_artifacts == ("waiver-junit-run-1-shard-1 ",)


def test_why_the_base_replays_are_no_evidence_is_read_with_the_run(tmp_path: Path) -> None:
    provenance = read_provenance(written(tmp_path, json.dumps({**DOCUMENT, "base_order": "late"})))
    assert provenance.run is not None and provenance.run.base_order == "late"


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"run": {**RUN, "id": True}}, "the run's id is not a number"),
        ({"run": {**RUN, "id": "42"}}, "the run's id is not a number"),
        ({"run": {**RUN, "head_sha": None}}, "the field head_sha is not a string"),
        ({"run": {**RUN, "referenced_workflows": [{"path": 1}]}},
         "the run's referenced_workflows is not a list of path and sha"),
        ({"run": [RUN]}, "the run is not an object"),
        ({"caller": 7}, "the field caller is not a string"),
        ({"waiver": None}, "not what `waiver provenance` writes"),
        ({"artifacts": {"unexpected": "x"}},
         "the run's unexpected artifacts are not a list of names"),
        ({"artifacts": []}, "the run's unexpected artifacts are not a list of names"),
        ({"base_order": 1}, "the field base_order is not a string"),
    ],
)  # fmt: skip
def test_a_document_of_another_shape_is_an_input_error(
    tmp_path: Path, change: dict[str, Any], problem: str
) -> None:
    path = written(tmp_path, json.dumps({**DOCUMENT, **change}))
    with pytest.raises(InputError) as raised:
        read_provenance(path)
    assert (raised.value.source, raised.value.problem) == (path, problem)


@pytest.mark.parametrize(
    "text", ['{"caller": "a", "caller": "b"}', "[NaN]", "\ufeff{", "x" * (2 << 20)]
)
def test_text_that_is_no_strict_json_of_a_bounded_size_is_an_input_error(
    tmp_path: Path, text: str
) -> None:
    with pytest.raises(InputError):
        read_provenance(written(tmp_path, text))
