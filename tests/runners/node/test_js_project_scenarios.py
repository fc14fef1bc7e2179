"""The jest, mocha and vitest projects of tests/helpers/js_projects.py, each replayed by its
real runner and gated through the same changes: an honest refactor is clean, a real bug is
a stable failure, a loosened assertion beside the bug is edited while its neighbours and
the same title in another file are judged by their replays, an edited fixture or property
module is drift and a new flaky test is unknown."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.js_projects import PROJECTS, JsProject
from helpers.node_support import Project, drifted, registry, replace_file
from helpers.support import classes

pytestmark = pytest.mark.slow

Started = tuple[JsProject, Project, str]


@pytest.fixture(params=sorted(PROJECTS))
def started(request: pytest.FixtureRequest, tmp_path: Path, node_modules: Path) -> Started:
    """(what differs for the runner, the project, the base's commit)."""
    spec = PROJECTS[request.param]
    return (spec, *spec.start(tmp_path / "calc", node_modules))


def test_ids_name_the_file_and_the_full_title(started: Started) -> None:
    """Two files with one describe and title are two ids."""
    spec, project, _ = started
    assert set(spec.registry) <= set(registry(project.work))


def test_an_honest_refactor_is_clean(started: Started) -> None:
    spec, project, base = started

    def refactor(work: Path) -> None:
        code = work / spec.code
        replace_file(
            code,
            code.read_text().replace(
                "return Math.min(Math.max(x, lo), hi);",
                "const low = Math.max(x, lo);\n  return Math.min(low, hi);",
            ),
        )

    project.commit_change(refactor)
    gated, report = project.replay_and_gate(base)
    assert (gated, report["verdict"]) == (0, "clean"), report["rows"]
    assert set(classes(report).values()) == {"stable_pass"}


def test_a_real_bug_is_a_stable_failure(started: Started) -> None:
    spec, project, base = started
    project.commit_change(spec.break_clamp)
    gated, report = project.replay_and_gate(base)
    assert gated == 1
    assert classes(report)[spec.above] == "stable_assertion_fail"
    assert classes(report)[spec.inside] == "stable_pass"
    if spec.other_inside is not None:
        assert classes(report)[spec.other_inside] == "stable_pass"


def test_a_loosened_assertion_beside_the_bug_is_edited(started: Started) -> None:
    spec, project, base = started

    def loosen(work: Path) -> None:
        spec.break_clamp(work)
        test = work / spec.test_file
        replace_file(test, test.read_text().replace(spec.assertion, spec.loosened))

    project.commit_change(loosen)
    gated, report = project.replay_and_gate(base)
    assert gated == 1
    row = next(row for row in report["rows"] if row["test_id"] == spec.above)
    assert (row["class"], row["unknown"], row["replay_pass"]) == ("unknown_test", "edited", 3)
    # No named kind of edit: a weaker matcher is not one the gate names (a check of literals,
    # or of a value with itself, would be). The diff shows the test's call as written on
    # both commits.
    [edited] = report["registry"]["edited"]
    assert {key: edited[key] for key in ("test_id", "changes", "findings")} == {
        "test_id": spec.above,
        "changes": ["its body"],
        "findings": [],
    }
    assert edited["diff"][0] == "@@ its body @@"
    assert f"-  {spec.assertion}" in edited["diff"]
    assert f"+  {spec.loosened}" in edited["diff"]
    # Its untouched neighbour in the same file is judged by its replays.
    assert classes(report)[spec.inside] == "stable_pass"
    # The same title in another file is another test, judged by its own replays.
    if spec.other_inside is not None:
        assert classes(report)[spec.other_inside] == "stable_pass"


def test_an_edited_fixture_is_drift(started: Started) -> None:
    _, project, base = started
    project.commit_change(lambda work: replace_file(work / "fixtures/cases.json", "[[1, 1, 2]]\n"))
    gated, report = project.replay_and_gate(base)
    assert gated == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert "fixtures/cases.json" in drifted(report)


def test_a_new_flaky_test_is_unknown(started: Started) -> None:
    spec, project, base = started
    path, text, test_id = spec.flaky
    project.commit_change(lambda work: replace_file(work / path, text))
    gated, report = project.replay_and_gate(base)
    assert gated == 1
    assert classes(report)[test_id] == "unknown_test"
    assert classes(report)[spec.inside] == "stable_pass"


def test_an_edited_property_module_is_drift(started: Started) -> None:
    spec, project, base = started
    assert spec.property_file in (project.work / "fixture.lock").read_text()

    def weaken(work: Path) -> None:
        prop = work / spec.property_file
        replace_file(prop, prop.read_text().replace("i < 200", "i < 0"))

    project.commit_change(weaken)
    gated, report = project.replay_and_gate(base)
    assert gated == 1
    assert set(classes(report).values()) == {"fixture_drift"}
    assert spec.property_file in drifted(report)
