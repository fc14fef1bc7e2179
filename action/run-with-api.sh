#!/usr/bin/env bash
# `waiver approvals`, `waiver provenance`, `waiver status` or `waiver comment` in the gate's
# image: the steps that talk to GitHub's REST API, with the host network and the token that
# the gate's own run never gets.
#
# Usage: run-with-api.sh approvals|provenance|status|comment ARGS...
#   WAIVER_IMAGE    the image the gate runs in
#   WAIVER_REPORT   optional: the gate's waiver.json, mounted read-only at /in/waiver.json
#   WAIVER_PROVENANCE optional: the judged run (`waiver provenance`), mounted read-only at
#                   /in/provenance.json when it is a file (none: the gate blocked on that)
#   WAIVER_OUT      optional: a folder mounted at /out, for what the command writes
#   GITHUB_TOKEN    handed to the container by name, never as a value on a command line
#   WAIVER_BRANCHES optional: the base branches whose pull requests a workflow_run job
#                   speaks for, comma-separated
#   GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_SERVER_URL, GITHUB_RUN_ID, GITHUB_WORKFLOW_REF,
#   GITHUB_EVENT_PATH, GITHUB_OUTPUT   set by the runner; the event and the output file are
#                   mounted
set -euo pipefail

fail() {
    printf '::error title=waiver::%s\n' "$*"
    exit 2
}

image=${WAIVER_IMAGE:?WAIVER_IMAGE is not set}
if [[ $image == -* ]]; then
    fail "WAIVER_IMAGE must be an image reference"
fi
case ${1:-} in
approvals | provenance | status | comment) ;;
*) fail "run-with-api.sh runs approvals, provenance, status or comment, not $(printf %q "${1:-}")" ;;
esac

# A mount option ends at a comma, so no path given to one may hold a comma.
mount() {
    local source=$1 target=$2 access=$3
    if [[ $source == *,* ]]; then
        fail "$(printf %q "$source") has a comma, which a --mount option cannot hold"
    fi
    args+=(--mount "type=bind,source=$(realpath -- "$source"),target=$target$access")
}

# The host network, so that an API on the runner itself (a GitHub Enterprise Server proxy,
# a stand-in) is reachable at 127.0.0.1. `-P` keeps the working directory off sys.path.
args=(run --rm --network host --cap-drop ALL --security-opt no-new-privileges --read-only
    --user "$(id -u):$(id -g)"
    --env GITHUB_TOKEN --env GITHUB_API_URL --env GITHUB_REPOSITORY
    --env GITHUB_SERVER_URL --env GITHUB_RUN_ID --env GITHUB_WORKFLOW_REF --env WAIVER_BRANCHES
    --env HTTPS_PROXY --env https_proxy --env NO_PROXY --env no_proxy)
if [[ -n ${GITHUB_EVENT_PATH:-} && -f $GITHUB_EVENT_PATH ]]; then
    mount "$GITHUB_EVENT_PATH" /in/event.json ,readonly
    args+=(--env GITHUB_EVENT_PATH=/in/event.json)
fi
if [[ -n ${GITHUB_OUTPUT:-} ]]; then
    mount "$GITHUB_OUTPUT" /in/output ""
    args+=(--env GITHUB_OUTPUT=/in/output)
fi
if [[ -n ${WAIVER_REPORT:-} ]]; then
    mount "$WAIVER_REPORT" /in/waiver.json ,readonly
fi
if [[ -n ${WAIVER_PROVENANCE:-} && -f $WAIVER_PROVENANCE && ! -L $WAIVER_PROVENANCE ]]; then
    mount "$WAIVER_PROVENANCE" /in/provenance.json ,readonly
fi
if [[ -n ${WAIVER_OUT:-} ]]; then
    mount "$WAIVER_OUT" /out ""
fi
exec docker "${args[@]}" --entrypoint python3 "$image" -P -m waiver "$@"
