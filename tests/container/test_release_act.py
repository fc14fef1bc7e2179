"""The release workflow under act (tests/helpers/release_support.py): a release cut from a
copy of this checkout as docs/development.md says, then run by hand on main. It tags the
commit that records the image's digest, pushes the image the digest names, attests it, and
publishes the changelog's section as the notes; a commit that cuts no release stops it
before anything is built or pushed."""

from __future__ import annotations

import json
import subprocess
import urllib.request
from pathlib import Path

import pytest

from helpers.docker_support import DOCKER
from helpers.github_api import Answers, github_api
from helpers.release_support import (
    GITHUB_REPOSITORY,
    Cut,
    ReleaseRun,
    cut_release,
    run_release,
)
from helpers.support import git

pytestmark = [pytest.mark.container, pytest.mark.slow]

TOKEN = "release-token"
ENTRY = "- A change worth a release ([the image](docs/action.md#the-image))."


@pytest.fixture
def cut(act_ready: None, tmp_path: Path) -> Cut:
    return cut_release(tmp_path / "waiver", ENTRY)


def run_with_api(
    cut: Cut, commit: str, tmp_path: Path, registry: str
) -> tuple[ReleaseRun, Answers]:
    """The release workflow for `commit`, with the REST API's stand-in: the run, and what
    the API was asked."""
    answers = Answers()
    with github_api(answers) as api:
        run = run_release(cut, commit, tmp_path / "run", registry, api, TOKEN)
    return run, answers


def manifest_digest(registry: str, repository: str, tag: str) -> str:
    """The digest the registry serves `repository:tag` under."""
    request = urllib.request.Request(
        f"http://{registry}/v2/{repository}/manifests/{tag}",
        method="HEAD",
        headers={"Accept": ", ".join([
            "application/vnd.oci.image.index.v1+json",
            "application/vnd.oci.image.manifest.v1+json",
            "application/vnd.docker.distribution.manifest.list.v2+json",
            "application/vnd.docker.distribution.manifest.v2+json",
        ])},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 (loopback)
        return str(answer.headers["Docker-Content-Digest"])


def test_a_release_is_tagged_published_with_its_notes_and_its_image_recorded_by_digest(
    cut: Cut, tmp_path: Path, local_registry: str
) -> None:
    run, answers = run_with_api(cut, cut.release, tmp_path, local_registry)
    assert run.returncode == 0, run.log[-6000:]
    tag = f"v{cut.version}"

    # The tag is annotated and names one commit on the release commit: the image's digest.
    assert git(cut.folder, "cat-file", "-t", tag) == "tag"
    pin = git(cut.folder, "rev-parse", f"{tag}^{{commit}}")
    assert git(cut.folder, "rev-parse", f"{pin}^@") == cut.release
    assert git(cut.folder, "diff", "--name-only", cut.release, pin) == "action/image-digest"
    reference = git(cut.folder, "show", f"{pin}:action/image-digest")
    name, _, digest = reference.partition("@")
    assert name == f"ghcr.io/{GITHUB_REPOSITORY}"
    # That digest is the image pushed for the tag, and the image is the release's build.
    assert manifest_digest(local_registry, GITHUB_REPOSITORY, tag) == digest
    assert (run.artifacts / "platforms").read_text() == "linux/amd64,linux/arm64"
    attested = json.loads((run.artifacts / "attestation.json").read_text())
    assert (attested["subject-name"], attested["subject-digest"]) == (name, digest)
    version = _version_in(f"{local_registry}/{GITHUB_REPOSITORY}@{digest}")
    assert version == cut.version

    # The release: the changelog's section, its links at the pinned commit, and the pin.
    assert answers.writes == [("POST", f"/repos/{GITHUB_REPOSITORY}/releases")]
    (release,) = answers.releases
    assert (release["tag_name"], release["name"], release["make_latest"]) == (
        tag, f"waiver {cut.version}", "true",
    )  # fmt: skip
    link = f"https://github.com/{GITHUB_REPOSITORY}/blob/{pin}/docs/action.md#the-image"
    assert release["body"] == (
        f"Cut from `{cut.cut_from}` on main.\n\n"
        f"- A change worth a release ([the image]({link})).\n\n---\n\n"
        f"Pin this release by its commit `{pin}` (the tag `{tag}`). The action's image, "
        f"built from it for linux/amd64 and linux/arm64, is `{reference}`; its build "
        f"provenance is attested (`gh attestation verify oci://{reference} "
        f"--repo {GITHUB_REPOSITORY}`).\n"
    )


def test_a_commit_that_cuts_no_release_stops_before_anything_is_built(
    cut: Cut, tmp_path: Path, local_registry: str
) -> None:
    run, answers = run_with_api(cut, cut.cut_from, tmp_path, local_registry)

    assert run.returncode != 0
    assert f"release: {cut.cut_from}: a release commit has one parent, not 0" in run.log
    assert git(cut.folder, "tag") == ""
    assert list(run.artifacts.iterdir()) == []  # nothing built, pushed or attested
    assert answers.writes == []


def _version_in(image: str) -> str:
    """waiver's version in the image pushed as `image`, pulled by digest (and removed)."""
    try:
        completed = subprocess.run(
            [DOCKER, "run", "--rm", "--network", "none", "--entrypoint", "python3", image,
             "-P", "-c", "import waiver; print(waiver.__version__)"],
            capture_output=True, text=True, timeout=300, check=True,
        )  # fmt: skip
    finally:
        subprocess.run([DOCKER, "rmi", image], capture_output=True, check=False)
    return completed.stdout.strip()
