#!/usr/bin/env bash
# The action's first step: the image in which the gate runs.
#
#   INPUT_IMAGE          a prebuilt image reference; empty = build the action's Dockerfile
#   GITHUB_ACTION_PATH   the action's own checkout (set by the runner)
#   GITHUB_OUTPUT        receives `image`
set -euo pipefail

image=${INPUT_IMAGE:-}
if [[ $image == -* ]]; then
    printf '::error title=waiver::image must be an image reference\n'
    exit 1
fi
if [[ -z $image ]]; then
    image=waiver-action:local
    # Only the action's own files are the build context, never the workspace.
    docker build --quiet --tag "$image" -- "${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}" >/dev/null
fi
echo "image=$image" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
echo "waiver: gate image $image"
