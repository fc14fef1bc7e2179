#!/usr/bin/env bash
# The action's optional diagnosis step, run after waiver.json has been uploaded.
#
# Runs `waiver diagnose` in the image the gate ran in, appends its "Commentary — not a test
# result" section to the job summary, and puts diagnosis.json next to waiver.json for the
# artifact. Every input comes through the environment:
#   WAIVER_IMAGE           the image the gate ran in
#   WAIVER_REPORT          the gate's waiver.json on the runner
#   WAIVER_MODEL_ENDPOINT  OpenAI-compatible base URL (https, or http on this machine)
#   WAIVER_MODEL           model name
#   WAIVER_MODEL_API_KEY   from a secret; handed to the container by name, never as a value
#   GITHUB_STEP_SUMMARY, RUNNER_TEMP  set by the runner
# Commentary never decides anything, so this step never fails the job: whatever goes wrong
# is a warning, and the gate's result stands.
set -uo pipefail

warn() { printf '::warning title=waiver diagnose::%s\n' "$*"; }

for name in WAIVER_IMAGE WAIVER_REPORT WAIVER_MODEL_ENDPOINT WAIVER_MODEL WAIVER_MODEL_API_KEY \
    GITHUB_STEP_SUMMARY RUNNER_TEMP; do
    if [[ -z ${!name:-} ]]; then
        warn "not run: $name is empty"
        exit 0
    fi
done
if [[ ! -f $WAIVER_REPORT ]]; then
    warn "not run: the gate wrote no report"
    exit 0
fi
report=$(realpath -- "$WAIVER_REPORT")
out=$(mktemp -d "$RUNNER_TEMP/waiver-diagnosis.XXXXXX")

# The report is mounted read-only and the output goes to a folder of its own, so the step
# cannot touch waiver.json. The host network lets a model server on the runner itself be
# reached at 127.0.0.1; the gate's own run has no network at all. The key and the runner's
# https proxy settings are handed over by name, so no value appears on a command line.
# `-P` keeps the working directory off sys.path, as in every waiver run in the image.
status=0
docker run --rm --network host --cap-drop ALL --security-opt no-new-privileges --read-only \
    --user "$(id -u):$(id -g)" \
    --env WAIVER_MODEL_API_KEY --env HTTPS_PROXY --env https_proxy --env NO_PROXY --env no_proxy \
    --mount "type=bind,source=$report,target=/in/waiver.json,readonly" \
    --mount "type=bind,source=$out,target=/out" \
    --entrypoint python3 "$WAIVER_IMAGE" -P -m waiver diagnose \
    --report=/in/waiver.json "--endpoint=$WAIVER_MODEL_ENDPOINT" "--model=$WAIVER_MODEL" \
    --out=/out/diagnosis.json --summary=/out/commentary.md || status=$?
if ((status != 0)); then
    warn "waiver diagnose exited $status; no commentary, the gate's result stands"
    exit 0
fi

cat -- "$out/commentary.md" >>"$GITHUB_STEP_SUMMARY"
cp -- "$out/diagnosis.json" "$(dirname -- "$report")/diagnosis.json"
echo "diagnosis=$(dirname -- "$report")/diagnosis.json" >>"${GITHUB_OUTPUT:-/dev/null}"
