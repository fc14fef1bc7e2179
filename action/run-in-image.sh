#!/usr/bin/env bash
# `waiver restore-tests`, `check-lock`, `change-tests-plan` or `red-green` in the action's
# image, on the workspace: the reusable workflow's jobs run these with the waiver of the
# image (never one installed from, or beside, the change). The history writer
# (waiver-history.yml) runs `waiver history` the same way.
#
# Usage: run-in-image.sh restore-tests|check-lock|history|change-tests-plan|red-green ARGS...
#   WAIVER_IMAGE       the image ID (action/build-image.sh's `image` output)
#   GITHUB_WORKSPACE   the change's checkout, set by the runner
#   WAIVER_SCRATCH     change-tests-plan and red-green: a folder outside the workspace, which
#                      the container sees as /scratch and writes to
#
# The container gets no network, no capabilities, a read-only root, and the runner's own
# user, so that whatever it writes stays the runner's to change. Only restore-tests and
# history may write to the workspace: the trusted commit's test tree, the new history. The
# others read it; the red-green commands write to the scratch folder alone.
set -euo pipefail

readonly IN_CONTAINER_WORKSPACE=/github/workspace

fail() {
    printf '::error title=waiver::%s\n' "$*"
    exit 2
}

workspace=${GITHUB_WORKSPACE:?GITHUB_WORKSPACE is not set}
image=${WAIVER_IMAGE:?WAIVER_IMAGE is not set}
if [[ $image == -* ]]; then
    fail "WAIVER_IMAGE must be an image reference"
fi
if [[ $workspace == *,* ]]; then
    fail "the workspace path has a comma, which a --mount option cannot hold"
fi
scratch=()
case ${1:-} in
restore-tests | history) access="" ;;
check-lock) access=",readonly" ;;
change-tests-plan | red-green)
    access=",readonly"
    folder=${WAIVER_SCRATCH:?WAIVER_SCRATCH is not set}
    if [[ $folder == *,* || ! -d $folder ]]; then
        fail "WAIVER_SCRATCH must be a folder whose path has no comma"
    fi
    scratch=(--mount "type=bind,source=$folder,target=/scratch")
    ;;
*) fail "run-in-image.sh runs restore-tests, check-lock, history, change-tests-plan or red-green, not $(printf %q "${1:-}")" ;;
esac

# `-P`: `python3 -m` would put the working directory, the change's checkout, first on
# sys.path, and a `waiver/` package the change commits would run here in place of the
# image's. With it the path is PYTHONPATH (/app, the image's waiver) and the standard library.
exec docker run --rm --network none --cap-drop ALL --security-opt no-new-privileges --read-only \
    --tmpfs /tmp --user "$(id -u):$(id -g)" \
    --mount "type=bind,source=$workspace,target=$IN_CONTAINER_WORKSPACE$access" "${scratch[@]}" \
    --workdir "$IN_CONTAINER_WORKSPACE" \
    --entrypoint python3 "$image" -P -m waiver "$@"
