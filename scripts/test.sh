#!/usr/bin/env bash
# Runs every test: gets the control-plane binaries (built once, then cached), then unit tests,
# integration tests against the real API server, and the formatting check (mvn verify).
#   scripts/test.sh                 # all tests
#   scripts/test.sh -pl operator    # extra arguments go to Maven
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

t0=$(date +%s)
BIN=$("$ROOT/scripts/k8s-binaries.sh" | tail -n 1)
echo "[test] control-plane binaries ready in $(( $(date +%s) - t0 )) s: $BIN" >&2

if [ -x "$ROOT/scripts/test-deps.sh" ]; then
  "$ROOT/scripts/test-deps.sh"
fi

rc=0
mvn -B -Dgpu-operator.k8s.bin="$BIN" verify "$@" || rc=$?

# Every control plane a test started runs from a gpu-operator-cp-* temp dir; none may outlive the run.
sleep 1
left=$(pgrep -af 'gpu-operator-cp-' | grep -E 'etcd|kube-' || true)
if [ -n "$left" ]; then
  echo "[test] FAIL: control-plane processes left after the tests (stop them by PID):" >&2
  echo "$left" >&2
  [ "$rc" -ne 0 ] || rc=1
else
  echo "[test] no etcd or kube-* process of the tests is left" >&2
fi
exit $rc
