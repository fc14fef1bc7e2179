"""The Docker engine the container tests need, and the action's image built on it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

# Debian's client: another `docker` earlier on PATH may lack the builder the engine expects.
DOCKER = "/usr/bin/docker"
BASE = "waiver-base:bookworm"


def docker_missing_reason() -> str | None:
    """Why the image cannot be built here, or None when it can."""
    if not Path(DOCKER).is_file():
        return f"{DOCKER} is not installed (run: bash .ci/provision-docker.sh)"
    if subprocess.run([DOCKER, "info"], capture_output=True, check=False).returncode != 0:
        return "no Docker daemon answers (run: bash .ci/provision-docker.sh)"
    inspect = [DOCKER, "image", "inspect", BASE]
    if subprocess.run(inspect, capture_output=True, check=False).returncode != 0:
        return f"the base image {BASE} is missing (run: bash .ci/provision-docker.sh)"
    return None


def build_image(context: Path, iidfile: Path, base: str = BASE) -> str:
    """The image ID of the Dockerfile in `context` built on `base`; no tag, so no other
    build on the same daemon can move what a test runs."""
    build = subprocess.run(
        [DOCKER, "build", "--quiet", "--iidfile", str(iidfile), "--build-arg", f"BASE={base}",
         str(context)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )  # fmt: skip
    assert build.returncode == 0, build.stdout[-5000:] + build.stderr[-5000:]
    return iidfile.read_text().strip()


def push_to(registry: str, image: str) -> str:
    """Push `image` to the local registry; its digest reference, with no tag left behind."""
    tagged = f"{registry}/waiver:act-test"
    subprocess.run([DOCKER, "tag", image, tagged], check=True)
    subprocess.run([DOCKER, "push", "--quiet", tagged], check=True, capture_output=True)
    digests = subprocess.run(
        [DOCKER, "image", "inspect", "--format", "{{json .RepoDigests}}", tagged],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    (reference,) = [d for d in json.loads(digests) if d.startswith(f"{registry}/waiver@")]
    # Untagged again, so the action finds no local copy of the reference and must pull it.
    subprocess.run([DOCKER, "rmi", tagged], check=True, capture_output=True)
    return str(reference)
