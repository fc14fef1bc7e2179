#!/usr/bin/env bash
# The action's reviews step: `waiver approvals` in the gate's image, through
# run-with-api.sh, with the network and the token that the gate's own run never gets. It
# writes the pull request's reviews, commits and approvers' permissions to a file, and
# names that file as the `file` output; the gate step mounts it read-only and judges it as
# untrusted input.
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

status=0
WAIVER_OUT=$out bash "$(dirname -- "$0")/run-with-api.sh" approvals --out=/out/approvals.json ||
    status=$?
if [[ ! -f $file ]]; then
    unread "the reviews were not read: waiver approvals exited $status without writing them"
fi
