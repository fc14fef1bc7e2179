#!/usr/bin/env bash
# The action's gate step: `waiver gate` in the action's image, on the workspace.
#
# Every input comes through the environment, never through the command text:
#   WAIVER_IMAGE                  the image to run (from the build step)
#   INPUT_<NAME>                  the action's inputs, dashes as underscores
#                                 (known-tests -> INPUT_KNOWN_TESTS)
#   GITHUB_WORKSPACE, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP   set by the runner
#
# The container gets no network, no capabilities, no token, and a read-only root and
# workspace. It may write only a scratch folder for waiver.json and the runner's output and
# summary files. The report is copied to the `out` path afterwards. This step itself never
# fails on the gate's verdict: it records the exit code as the `exit-code` output, and a
# later step fails the job after waiver.json has been uploaded.
set -euo pipefail

# The inputs that become `waiver gate` flags (waiver/action_inputs.py GATE_INPUTS; `out` is
# handled apart). tests/test_action_yml.py keeps the three lists equal.
readonly GATE_INPUTS=(reports properties fixtures lock known-tests freezes config
    min-replays freeze-hours trusted-ref replays shards base-reports)
readonly IN_CONTAINER_WORKSPACE=/github/workspace
readonly IN_CONTAINER_OUT=/github/out
readonly IN_CONTAINER_FILES=/github/file_commands

fail() {
    printf '::error title=waiver::%s\n' "$*"
    exit 1
}

workspace=${GITHUB_WORKSPACE:?GITHUB_WORKSPACE is not set}
image=${WAIVER_IMAGE:?WAIVER_IMAGE is not set}
out=${INPUT_OUT:-waiver.json}

# `out` names a file inside the workspace, by a plain relative path: the copy below runs on
# the runner itself, where a `..` or a symlink planted by the change could aim it elsewhere.
if [[ $out == /* || $out == *$'\n'* || $out == *,* || "/$out/" == */../* || "/$out/" == */./* ]]; then
    fail "out must be a relative path inside the workspace without '.', '..' or commas: $(printf %q "$out")"
fi
if [[ $image == -* ]]; then
    fail "image must be an image reference"
fi
parent=$workspace
IFS=/ read -r -a parts <<<"$(dirname -- "$out")"
for part in "${parts[@]}"; do
    [[ -z $part || $part == . ]] && continue
    parent=$parent/$part
    if [[ -L $parent ]]; then
        fail "out: $(printf %q "$parent") is a symlink"
    fi
done

# A trusted revision missing from a shallow clone is fetched here, on the runner: the
# container has no network. Hooks and fsmonitor stay off. If this fails the gate names it.
trusted_ref=${INPUT_TRUSTED_REF:-}
if [[ -n $trusted_ref && $trusted_ref != -* ]]; then
    git_safe() { git -C "$workspace" -c core.hooksPath=/dev/null -c core.fsmonitor=false "$@"; }
    if ! git_safe cat-file -e "$trusted_ref^{commit}" 2>/dev/null; then
        echo "waiver: fetching the trusted revision from origin"
        git_safe fetch --quiet --no-tags --depth=1 --upload-pack=git-upload-pack origin \
            "$trusted_ref" ||
            echo "waiver: could not fetch the trusted revision; the gate will say why"
    fi
fi

scratch=$(mktemp -d "${RUNNER_TEMP:-/tmp}/waiver-gate.XXXXXX")
name=$(basename -- "$out")
args=(run --rm --network none --cap-drop ALL --security-opt no-new-privileges --read-only
    --tmpfs /tmp --user "$(id -u):$(id -g)"
    --mount "type=bind,source=$workspace,target=$IN_CONTAINER_WORKSPACE,readonly"
    --mount "type=bind,source=$scratch,target=$IN_CONTAINER_OUT"
    --workdir "$IN_CONTAINER_WORKSPACE"
    --env GITHUB_ACTIONS=true
    --env "GITHUB_WORKSPACE=$IN_CONTAINER_WORKSPACE"
    --env "INPUT_OUT=$IN_CONTAINER_OUT/$name")
if [[ -n ${GITHUB_OUTPUT:-} ]]; then
    args+=(--mount "type=bind,source=$GITHUB_OUTPUT,target=$IN_CONTAINER_FILES/output"
        --env "GITHUB_OUTPUT=$IN_CONTAINER_FILES/output")
fi
if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
    args+=(--mount "type=bind,source=$GITHUB_STEP_SUMMARY,target=$IN_CONTAINER_FILES/step_summary"
        --env "GITHUB_STEP_SUMMARY=$IN_CONTAINER_FILES/step_summary")
fi
for input in "${GATE_INPUTS[@]}"; do
    upper=${input^^}
    variable=INPUT_${upper//-/_}
    value=${!variable:-}
    if [[ -n $value ]]; then
        # The name keeps its dashes, as the runner would spell it for a container action.
        args+=(--env "INPUT_$upper=$value")
    fi
done
args+=("$image")

status=0
docker "${args[@]}" || status=$?

report=""
if [[ -f $scratch/$name ]]; then
    mkdir -p -- "$(dirname -- "$workspace/$out")"
    cp --remove-destination -- "$scratch/$name" "$workspace/$out"
    report=$workspace/$out
fi
rm -rf -- "$scratch"
# The gate's own `waiver-json` output names the path inside the container; `report` is the
# path on the runner, and the one the action publishes.
{
    echo "exit-code=$status"
    echo "report=$report"
} >>"${GITHUB_OUTPUT:-/dev/null}"
echo "waiver: the gate exited $status"
