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

# The project image from the jar just built: assembled (base and JRE cached under
# ~/.cache/gpu-operator/image), unpacked and its entrypoint run (about a minute warm; the first run
# adds about 2 minutes for mmdebstrap and jlink). GPU_OPERATOR_SKIP_IMAGE=1 skips it.
if [ "$rc" -eq 0 ] && [ -z "${GPU_OPERATOR_SKIP_IMAGE:-}" ] && [ $# -eq 0 ]; then
  t0=$(date +%s)
  "$ROOT/scripts/image.sh" --check || rc=$?
  echo "[test] image built and checked in $(( $(date +%s) - t0 )) s" >&2
fi

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
