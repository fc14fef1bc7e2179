#!/usr/bin/env bash
# The action's reviews step: `waiver approvals` in the gate's image, with the network and
# the token that the gate's own run never gets. It writes the pull request's reviews,
# commits and approvers' permissions to a file, and names that file as the `file` output;
# the gate step mounts it read-only and judges it as untrusted input.
#
# Every input comes through the environment:
#   WAIVER_IMAGE        the image the gate runs in
#   GITHUB_TOKEN        the token (pull-requests: read); handed over by name, never as a value
#   GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_EVENT_PATH, RUNNER_TEMP   set by the runner
# Whatever goes wrong, the file says so and the gate admits nothing because of it: this
# step never fails the job, and never leaves the gate without a file to read.
set -uo pipefail

out=$(mktemp -d "${RUNNER_TEMP:-/tmp}/waiver-approvals.XXXXXX")
file=$out/approvals.json
echo "file=$file" >>"${GITHUB_OUTPUT:-/dev/null}"

# The document the gate reads when no reviews could be: an error, and nothing else.
unread() {
    # Every message below is plain text without quotes or backslashes, so this is JSON.
    printf '{"error": "%s"}\n' "$1" >"$file"
    printf '::warning title=waiver approvals::%s\n' "$1"
    exit 0
}

for name in WAIVER_IMAGE GITHUB_EVENT_PATH; do
    if [[ -z ${!name:-} ]]; then
        unread "the reviews were not read: $name is empty"
    fi
done
if [[ ! -f $GITHUB_EVENT_PATH ]]; then
    unread "the reviews were not read: the event file is missing"
fi

# The host network, so that an API on the runner itself (a GitHub Enterprise Server proxy,
# a stand-in) is reachable at 127.0.0.1. `-P` keeps the working directory off sys.path.
status=0
docker run --rm --network host --cap-drop ALL --security-opt no-new-privileges --read-only \
    --user "$(id -u):$(id -g)" \
    --env GITHUB_TOKEN --env GITHUB_API_URL --env GITHUB_REPOSITORY \
    --env HTTPS_PROXY --env https_proxy --env NO_PROXY --env no_proxy \
    --env GITHUB_EVENT_PATH=/in/event.json \
    --mount "type=bind,source=$(realpath -- "$GITHUB_EVENT_PATH"),target=/in/event.json,readonly" \
    --mount "type=bind,source=$out,target=/out" \
    --entrypoint python3 "$WAIVER_IMAGE" -P -m waiver approvals --out=/out/approvals.json ||
    status=$?
if [[ ! -f $file ]]; then
    unread "the reviews were not read: waiver approvals exited $status without writing them"
fi
