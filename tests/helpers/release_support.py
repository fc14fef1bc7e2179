"""Releases in the tests: .ci/release.py as a module, a repository whose release is cut as
docs/development.md says, and the release workflow under act.

Under act, what needs GitHub is replaced through `--local-repository`: actions/checkout
by the clone of workflow_support, the docker actions by a build of the Dockerfile on the
local Debian base pushed to a registry on 127.0.0.1 (`$WAIVER_REGISTRY`, standing in for
ghcr.io: the same repository path, so the same digest), and the attestation by a file in
`$WAIVER_ARTIFACTS` that says what it would attest. The REST API is the stand-in of
github_api.py.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import yaml

from helpers.support import REPO, git
from helpers.workflow_support import (
    CHECKOUT_STAND_IN,
    WAIVER_FILES,
    act,
    commit_all,
    copy_files,
    pinned,
)

WORKFLOW = REPO / ".github" / "workflows" / "release.yml"
# What a release reads beside the image's sources: the script, the changelog, the versions.
RELEASE_FILES = (*WAIVER_FILES, ".ci", ".github", "CHANGELOG.md", "pyproject.toml", "docs")
GITHUB_REPOSITORY = "waiver/waiver"


def release_script() -> ModuleType:
    """.ci/release.py, imported once."""
    if "release" not in sys.modules:
        spec = importlib.util.spec_from_file_location("release", REPO / ".ci" / "release.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["release"] = module  # dataclasses look their module up by name
        spec.loader.exec_module(module)
    return sys.modules["release"]


def next_minor(version: str) -> str:
    major, minor, _ = (int(part) for part in version.split("."))
    return f"{major}.{minor + 1}.0"


@dataclass(frozen=True)
class Cut:
    folder: Path  # the repository, on its main branch
    cut_from: str  # the commit of main the release was cut from
    release: str  # the release commit
    version: str


# What `cut` reads and writes, alone: enough for a repository of the quick tests.
CUT_FILES = ("CHANGELOG.md", "pyproject.toml", "waiver/__init__.py", "docs/action.md")


def cut_release(folder: Path, entry: str, files: tuple[str, ...] = RELEASE_FILES) -> Cut:
    """This checkout's `files` as main, `entry` under Unreleased, and the next minor
    release cut from that commit by `.ci/release.py cut` and committed, as the recipe
    says."""
    copy_files(REPO, files, folder)
    changelog = folder / "CHANGELOG.md"
    text = changelog.read_text()
    unreleased = "## Unreleased\n\n"
    start = text.index(unreleased) + len(unreleased)
    end = text.index("\n## ", start)
    changelog.write_text(f"{text[:start]}{entry}\n{text[end:]}")
    git(folder, "init", "--quiet", "--initial-branch=main")
    cut_from = commit_all(folder, "main, with a change to release")
    release = release_script()
    version = next_minor(release.parse_changelog(changelog.read_text()).releases[0].version)
    ran = release_run(folder, "cut", version)
    assert ran.returncode == 0, ran.stderr
    return Cut(folder, cut_from, commit_all(folder, f"Release {version}"), version)


def release_run(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """.ci/release.py of this checkout, run in `folder`."""
    return subprocess.run(
        [sys.executable, str(REPO / ".ci" / "release.py"), *arguments],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )


# --- under act ---------------------------------------------------------------------------

NOTHING_STAND_IN = """\
name: {name} stand-in
description: Nothing to set up here; {why}.
inputs:{inputs}
runs:
  using: composite
  steps:
    - shell: bash
      run: "true"
"""

BUILD_PUSH_STAND_IN = """\
name: build-push-action stand-in
description: >-
  Builds the context's Dockerfile on $WAIVER_BASE_IMAGE for this machine alone, pushes it
  to $WAIVER_REGISTRY in place of ghcr.io, and gives its digest.
inputs:
  context:
    description: The build context.
  platforms:
    description: Kept in $WAIVER_ARTIFACTS/platforms; this machine builds its own.
  push:
    description: Must be true.
  tags:
    description: One ghcr.io/OWNER/NAME:TAG.
outputs:
  digest:
    description: The pushed manifest's digest.
    value: ${{ steps.build.outputs.digest }}
runs:
  using: composite
  steps:
    - id: build
      shell: bash
      env:
        CONTEXT: ${{ inputs.context }}
        PLATFORMS: ${{ inputs.platforms }}
        PUSH: ${{ inputs.push }}
        TAGS: ${{ inputs.tags }}
      run: |
        [[ $PUSH == true && $TAGS == ghcr.io/* ]]
        printf '%s' "$PLATFORMS" > "$WAIVER_ARTIFACTS/platforms"
        image=$WAIVER_REGISTRY/${TAGS#ghcr.io/}
        docker=/usr/bin/docker
        "$docker" build --quiet --build-arg "BASE=$WAIVER_BASE_IMAGE" --tag "$image" "$CONTEXT"
        "$docker" push --quiet "$image"
        digest=$("$docker" image inspect --format '{{range .RepoDigests}}{{println .}}{{end}}' \
          "$image" | sed -n "s|^${image%:*}@||p")
        "$docker" rmi "$image" > /dev/null
        echo "digest=$digest" >> "$GITHUB_OUTPUT"
"""

ATTEST_STAND_IN = """\
name: attest-build-provenance stand-in
description: Writes what it would attest to $WAIVER_ARTIFACTS/attestation.json.
inputs:
  subject-name:
    description: The image's name.
  subject-digest:
    description: The image's digest.
  push-to-registry:
    description: Whether the attestation goes beside the image.
runs:
  using: composite
  steps:
    - shell: bash
      env:
        ATTESTATION: ${{ toJSON(inputs) }}
      run: printf '%s' "$ATTESTATION" > "$WAIVER_ARTIFACTS/attestation.json"
"""


def _nothing(name: str, why: str, inputs: tuple[str, ...]) -> str:
    declared = "".join(f"\n  {i}:\n    description: Ignored.\n    default: ''" for i in inputs)
    return NOTHING_STAND_IN.format(name=name, why=why, inputs=declared or " {}")


STAND_INS = {
    "actions/checkout": CHECKOUT_STAND_IN,
    "docker/setup-qemu-action": _nothing("setup-qemu", "one platform is built", ()),
    "docker/setup-buildx-action": _nothing("setup-buildx", "docker build builds", ()),
    "docker/login-action": _nothing(
        "login", "the local registry takes anyone", ("registry", "username", "password")
    ),
    "docker/build-push-action": BUILD_PUSH_STAND_IN,
    "actions/attest-build-provenance": ATTEST_STAND_IN,
}


def stand_ins(folder: Path) -> list[str]:
    """act's --local-repository arguments: each action the release workflow uses, local."""
    steps = [
        s for job in yaml.safe_load(WORKFLOW.read_text())["jobs"].values() for s in job["steps"]
    ]
    arguments = []
    for action, text in STAND_INS.items():
        home = folder / action.split("/")[1]
        home.mkdir(parents=True)
        (home / "action.yml").write_text(text)
        arguments += ["--local-repository", f"{pinned(steps, action)}={home}"]
    return arguments


@dataclass(frozen=True)
class ReleaseRun:
    returncode: int
    log: str
    artifacts: Path


def run_release(
    cut: Cut, commit: str, run: Path, registry: str, api: str, token: str
) -> ReleaseRun:
    """act runs the release workflow by hand on main of `cut.folder` (waiver/waiver on
    GitHub) for `commit`, with the registry at `registry` and the REST API at `api`."""
    git(cut.folder, "remote", "add", "origin", f"https://github.com/{GITHUB_REPOSITORY}.git")
    (run / "git" / "waiver").mkdir(parents=True)
    (run / "git" / GITHUB_REPOSITORY).symlink_to(cut.folder)
    event = run / "event.json"
    event.write_text(json.dumps({
        "ref": "refs/heads/main", "inputs": {"commit": commit},
        "repository": {"default_branch": "main", "full_name": GITHUB_REPOSITORY},
    }))  # fmt: skip
    artifacts = run / "artifacts"
    artifacts.mkdir()
    returncode, log = act(
        ["workflow_dispatch", "--eventpath", str(event), "-W", ".github/workflows/release.yml",
         "--no-skip-checkout", *stand_ins(run / "stand-ins"),
         "--env", f"WAIVER_GIT={run / 'git'}", "--env", f"WAIVER_ARTIFACTS={artifacts}",
         "--env", f"WAIVER_REGISTRY={registry}", "--env", "WAIVER_BASE_IMAGE=waiver-base:bookworm",
         "--env", f"GITHUB_API_URL={api}", "-s", f"GITHUB_TOKEN={token}"],
        cut.folder, run / "home",
    )  # fmt: skip
    return ReleaseRun(returncode, log, artifacts)
