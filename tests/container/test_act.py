"""The composite action under a real runner: nektos/act, with jobs on this machine
(tests/helpers/act_support.py).

A copy of the bundled example is the repository under test; its base commit is the pull
request's base. The fallback build uses the local Debian base through the `base-image`
input, so no Docker Hub is needed; the released-image path pulls from a Debian
`docker-registry` on 127.0.0.1.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers.act_support import ActRun, install_action, pull_request_event, uploaded
from helpers.act_support import run_act as act
from helpers.docker_support import BASE, build_image, push_to
from helpers.support import (
    EMPTY,
    KNOWN,
    REPO,
    ROUND_TRIP,
    classes,
    git,
    replay_assertions,
)

pytestmark = [pytest.mark.container, pytest.mark.slow]

COMMITTED = ("fixtures", "tests", "fixture.lock", "known-tests.txt", "freezes.json",
             "slugify.py", "pytest.ini")  # fmt: skip
EXAMPLE_INPUTS = {
    "reports": "reports",
    "properties": "properties.xml",
    "known-tests": "known-tests.txt",
    "freezes": "freezes.json",
    "base-image": BASE,
}


@pytest.fixture
def repository(act_ready: None, example: Path, tmp_path: Path) -> tuple[Path, str]:
    """The example as a pull request: its base commit, then the action beside it."""
    git(example, "init", "--quiet")
    git(example, "add", "--", *COMMITTED)
    git(example, "commit", "--quiet", "-m", "base")
    install_action(example, tmp_path)
    return example, git(example, "rev-parse", "HEAD")


def run_act(work: Path, base: str, tmp_path: Path, inputs: dict[str, str]) -> ActRun:
    return act(work, tmp_path, inputs, pull_request_event(base))


def test_a_blocked_change_fails_the_job_after_uploading_the_report(
    repository: tuple[Path, str], tmp_path: Path
) -> None:
    work, base = repository

    run = run_act(work, base, tmp_path, EXAMPLE_INPUTS)

    assert run.returncode != 0 and "Job failed" in run.log, run.log[-4000:]
    assert (run.outputs["exit-code"], run.outputs["blocked"], run.outputs["verdict"]) == (
        "1", "true", "blocked",
    )  # fmt: skip
    assert run.outputs["error"] == ""
    assert run.outputs["count-stable-assertion-fail"] == "1"
    report = uploaded(run)
    assert report["trusted_revision"] == base
    assert classes(report)[EMPTY] == "stable_assertion_fail"
    # The job summary, which act prints: written once, from inside the container.
    assert run.log.count("## ⛔ waiver: blocked") == 1
    assert f"trusted revision `{base}`" in run.log
    assert (
        "<sub>waiver ran in built from the action's Dockerfile on waiver-base:bookworm" in run.log
    )
    assert (
        f"::error title=waiver%3A stable_assertion_fail,file=tests/assertions/test_slug.py::{EMPTY}"
        in run.log
    )
    # The report is uploaded first; only then does the last step fail the job.
    upload = run.log.index("Success - Main Upload waiver.json")
    assert upload < run.log.index("::error title=waiver::admission is blocked")
    assert "Failure - Main Fail when admission is blocked" in run.log[upload:]


def test_the_fix_turns_the_job_green_with_verdict_review(
    repository: tuple[Path, str], tmp_path: Path
) -> None:
    work, base = repository
    slugify = work / "slugify.py"
    slugify.write_text(
        slugify.read_text().replace(
            "    return re.sub(", '    if not text:\n        return "untitled"\n    return re.sub('
        )
    )
    shutil.rmtree(work / "reports")
    replay_assertions(work, counter=".demo-counter-fixed")

    run = run_act(work, base, tmp_path, EXAMPLE_INPUTS)

    assert run.returncode == 0, run.log[-4000:]
    assert (run.outputs["exit-code"], run.outputs["blocked"], run.outputs["verdict"]) == (
        "0", "false", "review",
    )  # fmt: skip
    assert "waiver: not blocked (verdict: review)" in run.log
    assert classes(uploaded(run)) == {
        EMPTY: "stable_pass", KNOWN: "stable_pass", ROUND_TRIP: "unstable_assertion",
    }  # fmt: skip


def test_an_input_error_gives_exit_code_2_and_names_the_file(
    repository: tuple[Path, str], tmp_path: Path
) -> None:
    work, base = repository

    run = run_act(work, base, tmp_path, {**EXAMPLE_INPUTS, "properties": "no-such.xml"})

    assert run.returncode != 0, run.log[-4000:]
    assert run.outputs["exit-code"] == "2"
    assert run.outputs["error"] == "no-such.xml: file not found"
    report = uploaded(run)
    assert report["blocked"] is True and report["trusted_revision"] == base
    assert report["error"] == {"source": "no-such.xml", "problem": "file not found"}
    assert "::error title=waiver::input or usage error" in run.log


def test_a_recorded_digest_is_pulled_from_the_registry_and_nothing_is_built(
    repository: tuple[Path, str], tmp_path: Path, local_registry: str
) -> None:
    work, base = repository
    image = build_image(REPO, tmp_path / "iid")
    reference = push_to(local_registry, image)
    (work / ".waiver-action" / "action" / "image-digest").write_text(reference + "\n")

    run = run_act(work, base, tmp_path, EXAMPLE_INPUTS)

    assert run.outputs["exit-code"] == "1", run.log[-4000:]
    assert run.outputs["image-source"] == f"the released image {reference} (pulled by digest)"
    assert f"waiver: gate image {image}, the released image {reference}" in run.log
    assert "building the gate image" not in run.log
    assert uploaded(run)["blocked"] is True
