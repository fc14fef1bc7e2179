#!/usr/bin/env bash
# The action's last step, after waiver.json has been uploaded: fail unless the gate ran,
# exited 0 and reported `blocked: false`.
#
#   GATE_EXIT_CODE   the gate step's `exit-code` output (empty when it did not run)
#   GATE_BLOCKED     the gate's `blocked` output
#   GATE_VERDICT     the gate's `verdict` output
set -euo pipefail

code=${GATE_EXIT_CODE:-}
blocked=${GATE_BLOCKED:-}
verdict=${GATE_VERDICT:-}

case $code in
0)
    if [[ $blocked == false ]]; then
        case $verdict in
        review | clean) echo "waiver: not blocked (verdict: $verdict)" ;;
        *) echo "waiver: not blocked" ;;
        esac
        exit 0
    fi
    echo "::error title=waiver::the gate exited 0 but did not report blocked=false"
    ;;
1) echo "::error title=waiver::admission is blocked; see the job summary and the waiver.json artifact" ;;
2) echo "::error title=waiver::input or usage error; waiver.json and the job summary name the file and the problem" ;;
"") echo "::error title=waiver::the gate did not run" ;;
*[!0-9]*) echo "::error title=waiver::the gate step reported no usable exit code" ;;
*) echo "::error title=waiver::the gate failed (exit code $code)" ;;
esac
exit 1
