"""The reusable workflow under a real runner: nektos/act, with every job on this machine.

A caller workflow in a copy of the bundled example does `uses:
./.github/workflows/waiver-gate.yml` for a pull_request event, as a user's repository would.
Only what needs github.com is replaced, through act's `--local-repository`, by a local
composite action:

- actions/checkout clones from local git repositories, `$WAIVER_GIT/<owner>/<name>`
  (`repository`, `ref`, `path`; the default is the caller's repository at the event's
  commit, as on GitHub; a `refs/...` ref is fetched first, as refs/pull/N/merge is);
- actions/setup-python and actions/setup-node do nothing (the test command names this
  Python);
- upload-artifact and download-artifact (`name`, `pattern` or `artifact-ids`, with
  `merge-multiple`) keep artifacts in one folder on this machine, `$WAIVER_ARTIFACTS/<name>/`;
  a download that names a run (`run-id`) reads `$WAIVER_ARTIFACTS/run-<id>/<name>/` where
  that folder is, and an artifact id is the name written in `run-<id>/.ids/<id>`
  (`run_artifacts` lists a run's artifacts so, as the REST API stand-in answers them);
- actions/cache/restore copies `$WAIVER_CACHES/<key>/` (else the newest entry whose name
  starts with one of `restore-keys`) over its paths, and actions/cache/save keeps its paths
  there under its key, once, as the real cache keeps an entry; each says so in the log;
- create-github-app-token signs a JWT with the private key it is given (`openssl`), and
  trades it at the REST API stand-in (`$GITHUB_API_URL`) for an installation token, as the
  real action does: no key, no token.

waiver itself is a git repository made of this checkout's files (the package, the action,
its Dockerfile), as `waiver/waiver`; the example is `demo/demo`. act names no
job.workflow_repository or job.workflow_sha, like GitHub Enterprise Server versions
without them, so the caller names waiver with the workflow's waiver-repository and
waiver-ref inputs. The gate image is built on the local Debian base (`base-image`).

The services example of docs/replays.md (`services_example`), which
tests/container/test_services_act.py runs with the same stand-ins, and the called
workflow that takes its services from an input (`SERVICES_INPUT_WORKFLOW`) are here too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from helpers.support import EXAMPLE, REPO, git

ACT = Path(sys.executable).parent / "act"
WORKFLOW = REPO / ".github" / "workflows" / "waiver-gate.yml"
REPORT_WORKFLOW = REPO / ".github" / "workflows" / "waiver-report.yml"
WAIVER_FILES = ("action.yml", "action", "Dockerfile", ".dockerignore", "requirements", "waiver",
                "entrypoint.py")  # fmt: skip
COMMITTED = ("fixtures", "tests", "fixture.lock", "known-tests.txt", "freezes.json",
             "slugify.py", "pytest.ini")  # fmt: skip
SERVICES_PAGE = REPO / "docs" / "replays.md"
WAIVER_REPOSITORY = "waiver/waiver"
DEMO_REPOSITORY = "demo/demo"

CHECKOUT_STAND_IN = """\
name: checkout stand-in
description: Clones $WAIVER_GIT/<repository> at ref into path.
inputs:
  repository:
    description: owner/name; empty is the caller's repository.
    default: ""
  ref:
    description: The commit; empty is the event's.
    default: ""
  path:
    description: Where, relative to the workspace.
    default: "."
  fetch-depth:
    description: Ignored; the clone is whole.
    default: "1"
  persist-credentials:
    description: Ignored; there are none.
    default: "false"
runs:
  using: composite
  steps:
    - shell: bash
      env:
        REPOSITORY: ${{ inputs.repository }}
        REF: ${{ inputs.ref }}
        DESTINATION: ${{ inputs.path }}
      run: |
        repository=${REPOSITORY:-$GITHUB_REPOSITORY}
        ref=${REF:-$GITHUB_SHA}
        echo "checkout stand-in: $repository at $ref into $DESTINATION"
        destination=$GITHUB_WORKSPACE/$DESTINATION
        mkdir -p "$destination"
        find "$destination" -mindepth 1 -delete
        git clone --quiet --no-checkout "$WAIVER_GIT/$repository" "$destination"
        if [[ $ref == refs/* ]]; then  # a ref a clone does not bring, as refs/pull/N/merge
          git -C "$destination" fetch --quiet origin "+$ref:$ref"
        fi
        git -C "$destination" -c advice.detachedHead=false checkout --quiet --detach "$ref"
"""


def _setup_stand_in(tool: str, version_input: str, why: str) -> str:
    """An action that sets up nothing: the tests' commands name their own tools."""
    return f"""\
name: setup-{tool} stand-in
description: Nothing to set up; {why}.
inputs:
  {version_input}:
    description: Ignored.
    default: ""
runs:
  using: composite
  steps:
    - shell: bash
      run: "true"
"""


SETUP_PYTHON_STAND_IN = _setup_stand_in(
    "python", "python-version", "the test command names its Python"
)
SETUP_NODE_STAND_IN = _setup_stand_in("node", "node-version", "no test command here needs Node.js")

UPLOAD_STAND_IN = """\
name: upload-artifact stand-in
description: Keeps a file, or a folder's contents, in $WAIVER_ARTIFACTS/<name>/.
inputs:
  name:
    description: The artifact's name.
  path:
    description: The file or folder to keep.
  if-no-files-found:
    description: error, warn or ignore.
    default: warn
runs:
  using: composite
  steps:
    - shell: bash
      env:
        NAME: ${{ inputs.name }}
        SOURCE: ${{ inputs.path }}
        IF_NONE: ${{ inputs.if-no-files-found }}
      run: |
        if [[ ! -e $SOURCE ]]; then
          [[ $IF_NONE != error ]] || { echo "::error::nothing at $SOURCE"; exit 1; }
          exit 0
        fi
        mkdir -p "$WAIVER_ARTIFACTS/$NAME"
        if [[ -d $SOURCE ]]; then
          cp -R -- "$SOURCE/." "$WAIVER_ARTIFACTS/$NAME/"
        else
          cp -- "$SOURCE" "$WAIVER_ARTIFACTS/$NAME/"
        fi
"""

DOWNLOAD_STAND_IN = """\
name: download-artifact stand-in
description: Copies $WAIVER_ARTIFACTS/<name>/, or every artifact matching pattern, into path.
inputs:
  name:
    description: One artifact.
    default: ""
  pattern:
    description: A glob of artifact names.
    default: ""
  merge-multiple:
    description: Every match into path itself, rather than path/<name>.
    default: "false"
  path:
    description: Where, relative to the workspace.
    default: "."
  artifact-ids:
    description: Artifact ids, comma-separated; each names an artifact in run-<id>/.ids/.
    default: ""
  run-id:
    description: The run whose artifacts; $WAIVER_ARTIFACTS/run-<id>/ when that exists.
    default: ""
  github-token:
    description: Ignored; there is none.
    default: ""
runs:
  using: composite
  steps:
    - shell: bash
      env:
        NAME: ${{ inputs.name }}
        PATTERN: ${{ inputs.pattern }}
        MERGE: ${{ inputs.merge-multiple }}
        DESTINATION: ${{ inputs.path }}
        RUN_ID: ${{ inputs.run-id }}
        IDS: ${{ inputs.artifact-ids }}
      run: |
        destination=$GITHUB_WORKSPACE/$DESTINATION
        root=$WAIVER_ARTIFACTS
        if [[ -n $RUN_ID && -d $root/run-$RUN_ID ]]; then
          root=$root/run-$RUN_ID
        fi
        echo "download stand-in: from run ${RUN_ID:-this one}"
        if [[ -n $IDS ]]; then
          IFS=, read -r -a ids <<< "$IDS"
          for id in "${ids[@]}"; do
            name=$(<"$root/.ids/$id")
            echo "download stand-in: artifact $id is $name"
            target=$destination
            [[ $MERGE == true ]] || target=$destination/$name
            mkdir -p "$target"
            cp -R -- "$root/$name/." "$target/"
          done
          exit 0
        fi
        if [[ -n $NAME ]]; then
          [[ -d $root/$NAME ]] || { echo "::error::no artifact $NAME"; exit 1; }
          mkdir -p "$destination"
          cp -R -- "$root/$NAME/." "$destination/"
          exit 0
        fi
        shopt -s nullglob
        for artifact in "$root"/$PATTERN; do
          target=$destination
          [[ $MERGE == true ]] || target=$destination/$(basename "$artifact")
          mkdir -p "$target"
          cp -R -- "$artifact/." "$target/"
        done
"""


CACHE_RESTORE_STAND_IN = """\
name: cache restore stand-in
description: Copies $WAIVER_CACHES/<key>, or the newest entry a restore key starts, over path.
inputs:
  path:
    description: The paths, one a line; ~ is $HOME.
  key:
    description: The entry's key.
  restore-keys:
    description: Prefixes of older entries, one a line.
    default: ""
outputs:
  cache-hit:
    description: true when the key itself was found.
    value: ${{ steps.restore.outputs.cache-hit }}
  cache-primary-key:
    description: The key.
    value: ${{ inputs.key }}
runs:
  using: composite
  steps:
    - id: restore
      shell: bash
      env:
        KEY: ${{ inputs.key }}
        PREFIXES: ${{ inputs.restore-keys }}
      run: |
        found="" hit=false
        if [[ -d $WAIVER_CACHES/$KEY ]]; then
          found=$KEY hit=true
        else
          while read -r prefix; do
            [[ -n $prefix && -z $found ]] || continue
            found=$(cd "$WAIVER_CACHES" && ls -td -- "$prefix"* 2>/dev/null | head -n 1 || true)
          done <<< "$PREFIXES"
        fi
        if [[ -n $found ]]; then
          cp -R -- "$WAIVER_CACHES/$found/home/." "$HOME/"
          echo "cache restore stand-in: $KEY restored from $found"
        else
          echo "cache restore stand-in: $KEY not found"
        fi
        echo "cache-hit=$hit" >> "$GITHUB_OUTPUT"
"""

CACHE_SAVE_STAND_IN = """\
name: cache save stand-in
description: Keeps path in $WAIVER_CACHES/<key>, unless an entry has that key.
inputs:
  path:
    description: The paths, one a line, each below ~ ($HOME).
  key:
    description: The entry's key.
runs:
  using: composite
  steps:
    - shell: bash
      env:
        KEY: ${{ inputs.key }}
        PATHS: ${{ inputs.path }}
      run: |
        entry=$WAIVER_CACHES/$KEY
        if [[ -d $entry ]]; then
          echo "cache save stand-in: $KEY exists"
          exit 0
        fi
        mkdir -p "$entry/home"
        while read -r path; do
          path=${path#"~/"}
          [[ -n $path && -e $HOME/$path ]] || continue
          mkdir -p "$entry/home/$(dirname "$path")"
          cp -R -- "$HOME/$path" "$entry/home/$path"
        done <<< "$PATHS"
        echo "cache save stand-in: $KEY saved"
"""

APP_TOKEN_STAND_IN = """\
name: create-github-app-token stand-in
description: An installation token for a JWT signed with the app's key, from the REST stand-in.
inputs:
  client-id:
    description: The app's client ID, the JWT's issuer.
  private-key:
    description: The app's private key (PEM).
  permission-checks:
    description: Asked of the token.
    default: ""
outputs:
  token:
    description: The installation token.
    value: ${{ steps.mint.outputs.token }}
runs:
  using: composite
  steps:
    - id: mint
      shell: bash
      env:
        CLIENT_ID: ${{ inputs.client-id }}
        PRIVATE_KEY: ${{ inputs.private-key }}
        CHECKS: ${{ inputs.permission-checks }}
      run: |
        if [[ -z $PRIVATE_KEY ]]; then
          echo "::error::Input required and not supplied: private-key"
          exit 1
        fi
        b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
        now=$(date +%s)
        header=$(printf '{"alg":"RS256","typ":"JWT"}' | b64url)
        payload=$(printf '{"iat":%d,"exp":%d,"iss":"%s"}' $((now - 60)) $((now + 540)) "$CLIENT_ID" | b64url)
        key=$(mktemp)
        printf '%s\\n' "$PRIVATE_KEY" > "$key"
        signature=$(printf '%s.%s' "$header" "$payload" | openssl dgst -sha256 -sign "$key" | b64url)
        rm -f "$key"
        jwt="$header.$payload.$signature"
        api=${GITHUB_API_URL:?}
        installation=$(curl -sf -H "Authorization: Bearer $jwt" "$api/repos/$GITHUB_REPOSITORY/installation" \\
          | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
        body=$(printf '{"repositories": ["%s"], "permissions": {"checks": "%s"}}' "${GITHUB_REPOSITORY#*/}" "$CHECKS")
        token=$(curl -sf -X POST -H "Authorization: Bearer $jwt" -H "Content-Type: application/json" \\
          -d "$body" "$api/app/installations/$installation/access_tokens" \\
          | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')
        echo "::add-mask::$token"
        echo "token=$token" >> "$GITHUB_OUTPUT"
"""


def pinned(job_steps: list[dict[str, Any]], action: str) -> str:
    """The pinned `uses:` reference of `action` in the workflow (each is pinned once)."""
    (reference,) = {s["uses"] for s in job_steps if s.get("uses", "").startswith(f"{action}@")}
    return str(reference)


def stand_ins(folder: Path) -> list[str]:
    """act's --local-repository arguments: each pinned action of the workflows, local."""
    steps = [
        step
        for workflow in (WORKFLOW, REPORT_WORKFLOW)
        for job in yaml.safe_load(workflow.read_text())["jobs"].values()
        for step in job["steps"]
    ]
    arguments = []
    for action, text in (
        ("actions/checkout", CHECKOUT_STAND_IN),
        ("actions/setup-python", SETUP_PYTHON_STAND_IN),
        ("actions/setup-node", SETUP_NODE_STAND_IN),
        ("actions/upload-artifact", UPLOAD_STAND_IN),
        ("actions/download-artifact", DOWNLOAD_STAND_IN),
        ("actions/create-github-app-token", APP_TOKEN_STAND_IN),
    ):
        home = folder / action.split("/")[1]
        home.mkdir(parents=True, exist_ok=True)
        (home / "action.yml").write_text(text)
        arguments += ["--local-repository", f"{pinned(steps, action)}={home}"]
    # One repository, its two actions in folders of their own, as on github.com.
    cache = folder / "cache"
    for action, text in (("restore", CACHE_RESTORE_STAND_IN), ("save", CACHE_SAVE_STAND_IN)):
        (cache / action).mkdir(parents=True, exist_ok=True)
        (cache / action / "action.yml").write_text(text)
    commit = pinned(steps, "actions/cache/restore").split("@")[1]
    arguments += ["--local-repository", f"actions/cache@{commit}={cache}"]
    return arguments


# What the restore key of the dependency cache is for the example's inputs under act.
CACHE_PREFIX = "waiver-deps-Linux-python3.12-node-"
SEEDED_CACHE = f"{CACHE_PREFIX}seeded"


def seed_dependency_cache(demo: Path) -> None:
    """An entry in the run's caches, as a default-branch run would have saved it, that the
    restore key of the example's inputs finds: one file in pip's cache."""
    entry = demo.parents[2] / "caches" / SEEDED_CACHE / "home" / ".cache" / "pip"
    entry.mkdir(parents=True)
    (entry / "seeded").write_text("a package the default branch downloaded\n")


# A called workflow whose job takes its services from an input, as GitHub's syntax allows
# (docs/replays.md, "Suites that need services").
SERVICES_INPUT_WORKFLOW = """\
name: services from an input
on:
  workflow_call:
    inputs:
      services:
        description: The test job's services, a JSON map.
        type: string
        default: "{}"
permissions: {}
jobs:
  test:
    runs-on: ubuntu-latest
    services: ${{ fromJSON(inputs.services) }}
    steps:
      - run: "true"
"""


def services_example() -> str:
    """The workflow of docs/replays.md's "Suites that need services", as a user copies it."""
    section = SERVICES_PAGE.read_text().split("\n### Suites that need services\n", 1)[1]
    found = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert found is not None
    return found[1]


def edit(path: Path, old: str, new: str) -> None:
    """The first `old` in the file at `path` replaced by `new`; `old` must be there."""
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def commit_all(repository: Path, message: str) -> str:
    git(repository, "add", "--all")
    git(repository, "commit", "--quiet", "-m", message)
    return git(repository, "rev-parse", "HEAD")


def copy_files(source: Path, names: Iterable[str], folder: Path) -> None:
    """Files and folders `names` of `source` (paths below it) into `folder`, made if need
    be, without bytecode caches."""
    for name in names:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        if (source / name).is_dir():
            shutil.copytree(
                source / name, folder / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy2(source / name, folder / name)


def waiver_repository(folder: Path, source: Path = REPO) -> str:
    """The waiver of `source` (this checkout's by default) as a git repository in
    `folder`; its commit."""
    copy_files(source, WAIVER_FILES, folder)
    git(folder, "init", "--quiet")
    return commit_all(folder, "waiver")


def demo_repository(folder: Path) -> str:
    """The example as a repository whose base commit is the pull request's base; its commit.
    Its origin names it demo/demo, which act reports as github.repository."""
    copy_files(EXAMPLE, COMMITTED, folder)
    git(folder, "init", "--quiet")
    git(folder, "remote", "add", "origin", f"https://github.com/{DEMO_REPOSITORY}.git")
    return commit_all(folder, "base")


def caller_workflow(inputs: dict[str, Any]) -> str:
    """The user's workflow: the reusable workflow, then a job that keeps its outputs."""
    document = {
        "name": "caller",
        "on": ["pull_request", "pull_request_review", "merge_group", "push"],
        "permissions": {},
        "jobs": {
            "waiver": {
                "uses": "./.github/workflows/waiver-gate.yml",
                "permissions": {"contents": "read"},
                "with": inputs,
            },
            "outputs": {
                "needs": "waiver",
                "if": "${{ always() }}",
                "runs-on": "ubuntu-latest",
                "steps": [
                    {
                        "env": {"OUTPUTS": "${{ toJSON(needs.waiver.outputs) }}"},
                        "run": 'printf "%s" "$OUTPUTS" > "$WAIVER_ARTIFACTS/outputs.json"',
                    }
                ],
            },
        },
    }
    return yaml.safe_dump(document, sort_keys=False)


def demo_inputs(waiver_commit: str | None, **extra: Any) -> dict[str, Any]:
    """The workflow's inputs for the example: 5 replays by 2 shards, 3 base replays."""
    python = sys.executable
    inputs: dict[str, Any] = {
        "property-command": f'"{python}" -m pytest -q tests/properties --junitxml="$WAIVER_JUNIT"',
        "test-command": (
            f'"{python}" -m pytest -q tests/assertions --junitxml="$WAIVER_JUNIT" '
            '-k "$([ "$WAIVER_SHARD" = 1 ] && echo round_trip || echo "not round_trip")"'
        ),
        "replays": 5,
        "shards": 2,
        "base-replays": 3,
        "known-tests": "known-tests.txt",
        "freezes": "freezes.json",
        "base-image": "waiver-base:bookworm",
    }
    if waiver_commit is not None:
        inputs["waiver-repository"] = WAIVER_REPOSITORY
        inputs["waiver-ref"] = waiver_commit
    return {**inputs, **extra}


@dataclass
class WorkflowRun:
    returncode: int
    log: str
    seconds: float
    outputs: dict[str, str]
    artifacts: Path

    def job_log(self, job: str) -> str:
        """The lines act printed for `job` of the reusable workflow (all its matrix runs)."""
        prefix = f"[waiver/waiver gate/{job}"
        return "".join(
            line for line in self.log.splitlines(keepends=True) if line.startswith(prefix)
        )

    def artifact_names(self, prefix: str) -> list[str]:
        return sorted(p.name for p in self.artifacts.iterdir() if p.name.startswith(prefix))

    def report(self) -> dict[str, Any]:
        document: dict[str, Any] = json.loads(
            (self.artifacts / "waiver" / "waiver.json").read_text()
        )
        return document


class Repositories:
    """waiver and the example as local git repositories, made once and shared by runs."""

    def __init__(self, folder: Path, source: Path = REPO) -> None:
        self.folder = folder
        self.source = source  # whose waiver, and whose reusable workflow, the runs use
        self.waiver_commit = waiver_repository(folder / WAIVER_REPOSITORY, source)
        self.base_commit = demo_repository(folder / "base")

    def change(self, name: str) -> Path:
        """A run's own git folder: waiver shared, the example cloned, at its base commit."""
        run = self.folder / name
        (run / "git" / "waiver").mkdir(parents=True)
        (run / "git" / WAIVER_REPOSITORY).symlink_to(self.folder / WAIVER_REPOSITORY)
        demo = run / "git" / DEMO_REPOSITORY
        git(run, "clone", "--quiet", str(self.folder / "base"), str(demo))
        git(demo, "remote", "set-url", "origin", f"https://github.com/{DEMO_REPOSITORY}.git")
        return demo


def run_workflow(
    demo: Path,
    base_commit: str,
    inputs: dict[str, Any],
    event_name: str = "pull_request",
    extra: tuple[str, ...] = (),
    workflow: Path = WORKFLOW,
) -> WorkflowRun:
    """act on a pull request's event (`event_name`: pull_request, or pull_request_review),
    or a merge group's or a push's to main whose commit is the clone's HEAD, with base (the
    commit before) `base_commit`; `extra` are more act arguments (`--env`, `-s`);
    `workflow` is the reusable workflow (this checkout's by default).

    The workflows are written into the clone but not committed: the jobs check out commits.
    """
    run = demo.parents[2]
    workflows = demo / ".github" / "workflows"
    workflows.mkdir(parents=True, exist_ok=True)
    shutil.copy(workflow, workflows / "waiver-gate.yml")
    (workflows / "caller.yml").write_text(caller_workflow(inputs))
    head = git(demo, "rev-parse", "HEAD")
    event = run / "event.json"
    if event_name == "push":  # to main: judged against the commit before it
        payload: dict[str, Any] = {"before": base_commit, "after": head, "ref": "refs/heads/main",
                                   "repository": {"default_branch": "main"}}  # fmt: skip
    elif event_name == "merge_group":
        queue = f"refs/heads/gh-readonly-queue/main/pr-1-{base_commit}"
        payload = {"merge_group": {
            "base_sha": base_commit, "head_sha": head, "head_ref": queue,
        }}  # fmt: skip
    else:
        payload = {"pull_request": {"number": 1, "user": {"login": "agent"},
                                    "base": {"sha": base_commit}, "head": {"sha": head}}}  # fmt: skip
    event.write_text(json.dumps(payload))
    artifacts = run / "artifacts"
    artifacts.mkdir()
    home = run / "home"
    caches = run / "caches"
    caches.mkdir(exist_ok=True)
    started = time.monotonic()
    returncode, log = act(
        [event_name, "--eventpath", str(event), "-W", ".github/workflows/caller.yml",
         "--no-skip-checkout", *stand_ins(run / "stand-ins"),
         "--env", f"WAIVER_ARTIFACTS={artifacts}", "--env", f"WAIVER_GIT={run / 'git'}",
         "--env", f"WAIVER_CACHES={caches}", *extra],
        demo, home,
    )  # fmt: skip
    seconds = time.monotonic() - started
    outputs_file = artifacts / "outputs.json"
    outputs = json.loads(outputs_file.read_text()) if outputs_file.exists() else {}
    return WorkflowRun(returncode, log, seconds, outputs, artifacts)


def act(
    arguments: list[str], cwd: Path, home: Path, environment: dict[str, str] | None = None
) -> tuple[int, str]:
    """act with `arguments`, every job on this machine and a HOME of its own (made here),
    `environment` more of its environment: its exit code and its log."""
    home.mkdir()
    completed = subprocess.run(
        [str(ACT), *arguments, "-P", "ubuntu-latest=-self-hosted"],
        cwd=cwd,
        env={**os.environ, **(environment or {}), "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    return completed.returncode, completed.stdout + completed.stderr


def report_caller(waiver_commit: str, secrets: bool = False, **inputs: Any) -> str:
    """A repository's report workflow: waiver's, on workflow_run, for the example. act has
    no deployment environments: with `secrets`, the secrets an environment would hold
    reach the reusable workflow as the caller's (`secrets: inherit`)."""
    document: dict[str, Any] = {
        "name": "report",
        "on": "workflow_run",
        "permissions": {},
        "jobs": {
            "report": {
                "uses": "./.github/workflows/waiver-report.yml",
                "permissions": {"actions": "read", "contents": "read"}
                | {"pull-requests": "write", "statuses": "write"},
                "with": {
                    "waiver-repository": WAIVER_REPOSITORY,
                    "waiver-ref": waiver_commit,
                    "replays": 5,
                    "known-tests": "known-tests.txt",
                    "freezes": "freezes.json",
                    "base-image": "waiver-base:bookworm",
                    "branches": "main",
                    **inputs,
                },
            }
        },
    }
    if secrets:
        document["jobs"]["report"]["secrets"] = "inherit"
    return yaml.safe_dump(document, sort_keys=False)


# When an honest gate run creates its artifacts: every base replay's before the first job
# that runs the change's code begins (10:00:00 in the report act test's jobs), the others
# as those jobs end.
BASE_CREATED = "2026-12-01T09:59:30Z"
CHANGE_CREATED = "2026-12-01T10:01:50Z"


def listed_artifacts(run: Path) -> list[dict[str, Any]]:
    """The artifacts of the run whose folder is `run` (`$WAIVER_ARTIFACTS/run-<id>`), as
    `GET /actions/runs/{id}/artifacts` lists them, ids in the folders' order, created when
    an honest run creates them; each id is written where the download stand-in finds its
    name."""
    ids = run / ".ids"
    ids.mkdir(exist_ok=True)
    listed = []
    folders = sorted(p for p in run.iterdir() if p.name != ".ids")
    for number, folder in enumerate(folders, 1):
        (ids / str(number)).write_text(folder.name)
        base = folder.name.startswith("waiver-base-junit-")
        listed.append({"id": number, "name": folder.name, "expired": False,
                       "created_at": BASE_CREATED if base else CHANGE_CREATED})  # fmt: skip
    return listed


def run_report(
    demo: Path,
    waiver_commit: str,
    triggering: dict[str, Any],
    api: str,
    token: str,
    name: str,
    inputs: dict[str, Any] | None = None,
    secrets: dict[str, str] | None = None,
) -> tuple[str, float]:
    """act on a workflow_run event of the run `triggering`, with the REST API at `api` and
    the artifacts of `$WAIVER_ARTIFACTS` (the run folder's `artifacts`), `inputs` more of the
    report caller's, `secrets` more secrets (by name, their values through the environment):
    the log, and the seconds it took. The workflows are written into the clone but not
    committed."""
    run = demo.parents[2]
    workflows = demo / ".github" / "workflows"
    workflows.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPORT_WORKFLOW, workflows / "waiver-report.yml")
    (workflows / "report.yml").write_text(
        report_caller(waiver_commit, secrets is not None, **(inputs or {}))
    )
    event = run / f"{name}.json"
    event.write_text(
        json.dumps({"workflow_run": triggering, "repository": {"default_branch": "main"}})
    )
    artifacts = run / "artifacts"
    shutil.rmtree(artifacts / "waiver-report", ignore_errors=True)
    named = [argument for key in (secrets or {}) for argument in ("-s", key)]
    started = time.monotonic()
    _, log = act(
        ["workflow_run", "--eventpath", str(event), "-W", ".github/workflows/report.yml",
         "--no-skip-checkout", *stand_ins(run / "stand-ins"),
         "--env", f"WAIVER_ARTIFACTS={artifacts}", "--env", f"WAIVER_GIT={run / 'git'}",
         "--env", f"GITHUB_API_URL={api}", "-s", f"GITHUB_TOKEN={token}", *named],
        demo, run / f"home-{name}", environment=secrets,
    )  # fmt: skip
    return log, time.monotonic() - started
