#!/usr/bin/env bash
# Replays the example's test suite with pytest and runs the gate on it, in a copy of the
# example so the repository stays clean. Usage: examples/demo/run.sh [WORK_DIR]
# Exits with the gate's code: 1 here, because the example has a test that always fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
work=${1:-$(mktemp -d)/demo}
rm -rf "$work"
mkdir -p "$work"
cp -R "$here"/fixtures "$here"/tests "$here"/slugify.py "$here"/pytest.ini \
  "$here"/fixture.lock "$here"/known-tests.txt "$here"/freezes.json "$work"/
cd "$work"

# pytest exits 1 when tests fail, which is data here; anything higher means it did not run.
run_pytest() {
  local code=0
  "$python" -m pytest -q "$@" >/dev/null || code=$?
  if [ "$code" -gt 1 ]; then
    echo "waiver demo: pytest $* exited $code" >&2
    exit "$code"
  fi
}

echo "waiver demo: properties once, then 5 replays of the assertion tests"
run_pytest tests/properties --junitxml=properties.xml
for replay in 1 2 3 4 5; do
  DEMO_COUNTER=.demo-counter run_pytest tests/assertions --junitxml="reports/run-$replay.xml"
done

status=0
"$python" -m waiver gate --reports reports --properties properties.xml \
  --fixtures fixtures --lock fixture.lock --known-tests known-tests.txt \
  --freezes freezes.json --out waiver.json --summary summary.md || status=$?
echo "waiver demo: report $work/waiver.json, summary $work/summary.md (exit $status)"
exit "$status"
