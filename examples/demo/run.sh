#!/usr/bin/env bash
# Replays the example's test suite with pytest and runs the gate on it, in a copy of the
# example so the repository stays clean. Usage: examples/demo/run.sh [WORK_DIR]
# Exits with the gate's code: 1 here, because the example has a test that always fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# waiver runs as `$python -P -m waiver` (Python >= 3.11): `-P` keeps the working directory
# off sys.path, so the waiver that runs is the one installed, never a folder of the copy.
python=${PYTHON:-python3}
# A relative path to the interpreter (PYTHON=.venv/bin/python) must survive the cd below.
case "$python" in */*) python=$(cd "$(dirname "$python")" && pwd)/$(basename "$python") ;; esac
work=${1:-$(mktemp -d)/demo}
rm -rf "$work"
mkdir -p "$work"
cp -R "$here"/fixtures "$here"/tests "$here"/slugify.py "$here"/pytest.ini \
  "$here"/fixture.lock "$here"/known-tests.txt "$here"/freezes.json "$work"/
cd "$work"

echo "waiver demo: properties once, then 5 replays of the assertion tests"
# waiver replay exits 0 when every replay left a report, and 1 when a failing property suite
# stopped it before any replay: both are data for the gate. Anything higher means it could
# not replay the suite at all.
replayed=0
"$python" -P -m waiver replay -n 5 --out reports \
  --properties-first "$(printf '%q' "$python") -m pytest -q tests/properties --junitxml={junit}" \
  -- "$python" -m pytest -q tests/assertions --junitxml={junit} >/dev/null || replayed=$?
if [ "$replayed" -gt 1 ]; then
  echo "waiver demo: waiver replay exited $replayed" >&2
  exit "$replayed"
fi

status=0
"$python" -P -m waiver gate --reports reports --properties reports/properties.xml --replays 5 \
  --fixtures fixtures --lock fixture.lock --known-tests known-tests.txt \
  --freezes freezes.json --out waiver.json --summary summary.md || status=$?
echo "waiver demo: report $work/waiver.json, summary $work/summary.md (exit $status)"
exit "$status"
