#!/usr/bin/env bash
# The action's first step: the image in which the gate runs, as an image ID.
#
#   INPUT_IMAGE          a prebuilt image reference; empty = the released image, else a build
#   INPUT_BASE_IMAGE     the BASE of a fallback build (a mirror); empty = the Dockerfile's own
#   GITHUB_ACTION_PATH   the action's own checkout (set by the runner)
#   GITHUB_OUTPUT        receives `image` (an image ID) and `source` (which path, and why)
#   RUNNER_TEMP          where the build writes its image ID
#
# A release records its image, by digest, in action/image-digest of the release's commit:
# that image is pulled and run. Without one (an unreleased commit, a fork) or when the pull
# fails (no route to the registry), the Dockerfile is built here. Either way the gate runs
# by image ID, never by a tag that another job on the same daemon could move.
set -euo pipefail

# registry[:port]/path@sha256:<64 hex>, nothing else: a tag could be moved after release.
readonly DIGEST_REFERENCE='^[a-z0-9][a-z0-9.-]*(:[0-9]+)?(/[a-z0-9][a-z0-9._-]*)+@sha256:[0-9a-f]{64}$'

fail() {
    printf '::error title=waiver::%s\n' "$*"
    exit 1
}

action_path=${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}
requested=${INPUT_IMAGE:-}
base=${INPUT_BASE_IMAGE:-}
for value in "$requested" "$base"; do
    if [[ $value == -* || $value == *[[:cntrl:][:space:]]* ]]; then
        fail "image and base-image must be image references"
    fi
done

image_id() { docker image inspect --format '{{.Id}}' -- "$1" 2>/dev/null; }

build() {
    local reason=$1 iidfile args
    iidfile=$(mktemp "${RUNNER_TEMP:-/tmp}/waiver-image.XXXXXX")
    args=(build --quiet --iidfile "$iidfile")
    if [[ -n $base ]]; then
        args+=(--build-arg "BASE=$base")
    fi
    echo "waiver: building the gate image from the action's Dockerfile: $reason"
    # Only the action's own files are the build context, never the workspace.
    docker "${args[@]}" -- "$action_path" >/dev/null
    image=$(<"$iidfile")
    rm -f -- "$iidfile"
    source="built from the action's Dockerfile${base:+ on $base} ($reason)"
}

if [[ -n $requested ]]; then
    if ! image=$(image_id "$requested"); then
        docker pull --quiet -- "$requested" >/dev/null
        image=$(image_id "$requested")
    fi
    source="the image input $requested"
else
    released=""
    if [[ -f $action_path/action/image-digest ]]; then
        released=$(tr -d '[:space:]' <"$action_path/action/image-digest")
    fi
    if [[ -z $released ]]; then
        build "no released image is recorded in action/image-digest at this commit"
    elif [[ ! $released =~ $DIGEST_REFERENCE ]]; then
        fail "action/image-digest must hold registry/repository@sha256:<64 hex>, not $(printf %q "$released")"
    elif image=$(image_id "$released"); then
        source="the released image $released (already on this machine)"
    elif pulled=$(docker pull --quiet -- "$released" 2>&1) && image=$(image_id "$released"); then
        source="the released image $released (pulled by digest)"
    else
        said=$(printf '%s' "$pulled" | tr -s '[:space:]' ' ' | cut -c1-300)
        echo "::warning title=waiver::could not pull $released; building the image instead: $said"
        build "pulling the released image $released failed"
    fi
fi

{
    echo "image=$image"
    echo "source=$source"
} >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
echo "waiver: gate image $image, $source"
