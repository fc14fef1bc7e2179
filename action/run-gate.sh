#!/usr/bin/env bash
# The action's gate step: `waiver gate` in the action's image, on the workspace.
#
# Every input comes through the environment, never through the command text:
#   WAIVER_IMAGE                  the image ID to run (from the image step)
#   WAIVER_IMAGE_SOURCE           which image that is and why, for the job summary
#   INPUT_<NAME>                  the action's inputs, dashes as underscores
#                                 (known-tests -> INPUT_KNOWN_TESTS)
#   INPUT_WORKING_DIRECTORY       the repository under test, relative to the workspace
#   WAIVER_APPROVALS_FILE         what the reviews step wrote, when INPUT_APPROVALS is github
#   INPUT_PROVENANCE              what `waiver provenance` wrote, in a workflow_run job
#   INPUT_HISTORY                 the default branch's history, as `waiver history record` wrote it
#   GITHUB_WORKSPACE, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP   set by the runner
#
# The container gets no network, no capabilities, no token, and a read-only root and
# workspace. Its workspace is the working directory alone: whatever else lies in the
# runner's workspace (the action's own checkout beside the change) is not there for the
# gate to scan as part of the change. It may write only a scratch folder for waiver.json and the runner's output and
# summary files. The report is copied to the `out` path afterwards. This step itself never
# fails on the gate's verdict: it records the exit code as the `exit-code` output (and the
# one-line `error` when the gate left none), and a later step fails the job after
# waiver.json has been uploaded.
set -euo pipefail

# The inputs that become `waiver gate` flags (waiver/github/action_inputs.py GATE_INPUTS; `out` is
# handled apart). tests/test_action_yml.py keeps the three lists equal.
readonly GATE_INPUTS=(reports properties fixtures lock known-tests freezes config
    min-replays freeze-hours trusted-ref replays shards base-reports red-green change-tests approvals
    provenance history)
readonly IN_CONTAINER_WORKSPACE=/github/workspace
readonly IN_CONTAINER_OUT=/github/out
readonly IN_CONTAINER_FILES=/github/file_commands
readonly IN_CONTAINER_APPROVALS=/github/approvals.json
readonly IN_CONTAINER_PROVENANCE=/github/provenance.json
readonly IN_CONTAINER_HISTORY=/github/history.json.gz

fail() {
    printf '::error title=waiver::%s\n' "$*"
    exit 1
}

workspace=${GITHUB_WORKSPACE:?GITHUB_WORKSPACE is not set}
image=${WAIVER_IMAGE:?WAIVER_IMAGE is not set}
out=${INPUT_OUT:-waiver.json}
working_directory=${INPUT_WORKING_DIRECTORY:-.}

# A plain relative path, checked before the runner itself uses it: a `..` or a symlink
# planted by the change could aim it elsewhere, and a comma would end a --mount option.
plain_relative_path() {
    local path=$1
    [[ $path != /* && $path != *$'\n'* && $path != *,* && "/$path/" != */../* ]]
}

# `from/path`, failing when a folder on the way there is a symlink.
inside() {
    local from=$1 path=$2 label=$3 part parts
    IFS=/ read -r -a parts <<<"$path"
    for part in "${parts[@]}"; do
        [[ -z $part || $part == . ]] && continue
        from=$from/$part
        if [[ -L $from ]]; then
            fail "$label: $(printf %q "$from") is a symlink"
        fi
    done
    joined=$from
}

if [[ $image == -* ]]; then
    fail "image must be an image reference"
fi
if ! plain_relative_path "$working_directory"; then
    fail "working-directory must be a relative path inside the workspace without '..' or commas: $(printf %q "$working_directory")"
fi
inside "$workspace" "$working_directory" working-directory
root=$joined
if [[ ! -d $root ]]; then
    fail "working-directory: $(printf %q "$working_directory") is not a folder of the workspace"
fi

# `out` names a file inside the working directory: the copy below runs on the runner.
if ! plain_relative_path "$out" || [[ "/$out/" == */./* ]]; then
    fail "out must be a relative path inside the working directory without '.', '..' or commas: $(printf %q "$out")"
fi
inside "$root" "$(dirname -- "$out")" out

# Outputs for a run in which the gate did not classify anything: exit code 2, the reason,
# no report (and no stale one at `out` that could claim a green verdict).
no_gate() {
    rm -f -- "${root:?}/$out"
    {
        echo "exit-code=2"
        echo "error=$1"
        echo "report="
    } >>"${GITHUB_OUTPUT:-/dev/null}"
    printf '::error title=waiver: input error::%s\n' "$1"
    if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
        printf '## ⛔ waiver: blocked\n\n**Input error:** %s\n' "$1" >>"$GITHUB_STEP_SUMMARY"
    fi
    exit 0
}

# The trusted revision defaults to the event's base commit (action.yml). An event without
# one (a workflow_dispatch, a new branch's push, whose `before` is all zeros) must not turn
# into a gate that reads the protected files from the change: it blocks, unless the caller
# says `none` on purpose.
trusted_ref=${INPUT_TRUSTED_REF:-}
case $trusted_ref in
none) trusted_ref="" ;;
"" | 0000000000000000000000000000000000000000)
    no_gate "trusted-ref: no trusted revision could be determined for this event; pass the base commit's full id, or 'none' to read the lock, registry, freeze store and policy file from the change itself"
    ;;
esac

# A trusted revision missing from a shallow clone is fetched here, on the runner: the
# container has no network. Hooks and fsmonitor stay off. If this fails the gate names it.
if [[ -n $trusted_ref && $trusted_ref != -* ]]; then
    git_safe() { git -C "$root" -c core.hooksPath=/dev/null -c core.fsmonitor=false "$@"; }
    if ! git_safe cat-file -e "$trusted_ref^{commit}" 2>/dev/null; then
        echo "waiver: fetching the trusted revision from origin"
        git_safe fetch --quiet --no-tags --depth=1 --upload-pack=git-upload-pack origin \
            "$trusted_ref" ||
            echo "waiver: could not fetch the trusted revision; the gate will say why"
    fi
fi

# The reviews were read by a step of their own, with the token; the gate only judges the
# file. A file that did not arrive is judged too: as reviews that could not be read.
approvals=${INPUT_APPROVALS:-}
case $approvals in
"") ;;
github)
    approvals_file=${WAIVER_APPROVALS_FILE:-}
    if [[ -z $approvals_file || ! -f $approvals_file || -L $approvals_file ]]; then
        approvals_file=$(mktemp "${RUNNER_TEMP:-/tmp}/waiver-approvals.XXXXXX")
        printf '{"error": "the step that reads the reviews left no file"}\n' >"$approvals_file"
    fi
    ;;
*)
    no_gate "approvals must be 'github' or empty: $(printf %q "$approvals")"
    ;;
esac

# The run the reports came from, as the provenance step of a workflow_run job wrote it on
# the runner: a file outside the workspace, mounted read-only. One that did not arrive is a
# run that cannot be named, and blocks.
provenance=${INPUT_PROVENANCE:-}
if [[ -n $provenance && ( ! -f $provenance || -L $provenance ) ]]; then
    provenance=$(mktemp "${RUNNER_TEMP:-/tmp}/waiver-provenance.XXXXXX")
    printf '{"caller": "", "waiver": {"repository": "", "commit": ""}, "run": null, "error": "the step that names the run left no file"}\n' >"$provenance"
fi

# The default branch's history, a file on the runner mounted read-only: evidence beside the
# rows. One that did not arrive changes nothing but that, so it is a warning, not a block.
history=${INPUT_HISTORY:-}
if [[ -n $history && ( ! -f $history || -L $history ) ]]; then
    printf '::warning title=waiver history::%s\n' "no history file at the path given; the rows show no history"
    history=""
elif [[ -n $history ]]; then
    # A mount takes an absolute source, and ends at a comma.
    history=$(realpath -- "$history")
    if [[ $history == *,* ]]; then
        printf '::warning title=waiver history::%s\n' "the history's path has a comma, which a --mount option cannot hold; the rows show no history"
        history=""
    fi
fi

scratch=$(mktemp -d "${RUNNER_TEMP:-/tmp}/waiver-gate.XXXXXX")
name=$(basename -- "$out")
args=(run --rm --network none --cap-drop ALL --security-opt no-new-privileges --read-only
    --tmpfs /tmp --user "$(id -u):$(id -g)"
    --mount "type=bind,source=$root,target=$IN_CONTAINER_WORKSPACE,readonly"
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
if [[ -n $approvals ]]; then
    args+=(--mount "type=bind,source=$approvals_file,target=$IN_CONTAINER_APPROVALS,readonly")
fi
if [[ -n $provenance ]]; then
    args+=(--mount "type=bind,source=$provenance,target=$IN_CONTAINER_PROVENANCE,readonly")
fi
if [[ -n $history ]]; then
    args+=(--mount "type=bind,source=$history,target=$IN_CONTAINER_HISTORY,readonly")
fi
for input in "${GATE_INPUTS[@]}"; do
    upper=${input^^}
    variable=INPUT_${upper//-/_}
    value=${!variable:-}
    if [[ $input == trusted-ref ]]; then
        value=$trusted_ref
    elif [[ $input == approvals ]]; then
        value=${approvals:+$IN_CONTAINER_APPROVALS}
    elif [[ $input == provenance ]]; then
        value=${provenance:+$IN_CONTAINER_PROVENANCE}
    elif [[ $input == history ]]; then
        value=${history:+$IN_CONTAINER_HISTORY}
    fi
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
    mkdir -p -- "$(dirname -- "$root/$out")"
    cp --remove-destination -- "$scratch/$name" "$root/$out"
    report=$root/$out
fi
rm -rf -- "$scratch"
# The gate's own `waiver-json` output names the path inside the container; `report` is the
# path on the runner, and the one the action publishes. A gate that left no report set no
# `error` either: this names what happened instead.
{
    echo "exit-code=$status"
    echo "report=$report"
    if [[ -z $report ]]; then
        echo "error=the gate exited $status without writing a report; see the log of this step"
    fi
} >>"${GITHUB_OUTPUT:-/dev/null}"
if [[ -n ${GITHUB_STEP_SUMMARY:-} && -n ${WAIVER_IMAGE_SOURCE:-} ]]; then
    printf '\n<sub>waiver ran in %s.</sub>\n' "$WAIVER_IMAGE_SOURCE" >>"$GITHUB_STEP_SUMMARY"
fi
echo "waiver: the gate exited $status"
