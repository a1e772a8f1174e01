#!/usr/bin/env bash
# Runs every test: gets the control-plane binaries (built once, then cached), the real node's
# (as root), builds the project image, then unit tests, integration tests against the real API
# server, the real-node suite (RealNodeE2EIT: the chart on a real kubelet and containerd, as root)
# and the formatting check (mvn verify).
#   scripts/test.sh                 # all tests
#   scripts/test.sh -pl operator    # extra arguments go to Maven (no image is built then)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

t0=$(date +%s)
BIN=$("$ROOT/scripts/k8s-binaries.sh" | tail -n 1)
echo "[test] control-plane binaries ready in $(( $(date +%s) - t0 )) s: $BIN" >&2

if [ -x "$ROOT/scripts/test-deps.sh" ]; then
  "$ROOT/scripts/test-deps.sh"
fi

# The real node's binaries (kubelet, containerd, runc, CNI plugins): only root can run a node; the
# suite skips elsewhere (and fails under CI=true, where root is available).
if [ "$(id -u)" = 0 ]; then
  t0=$(date +%s)
  "$ROOT/scripts/node-binaries.sh" >/dev/null
  echo "[test] real-node binaries ready in $(( $(date +%s) - t0 )) s" >&2
else
  echo "[test] not root: the real-node suite (RealNodeE2EIT) will skip" >&2
fi

# The project image from the sources under test, before the tests: the real-node suite runs it
# (assembled, base and JRE cached under ~/.cache/gpu-operator/image: well under a minute warm;
# the first run adds about 2 minutes for mmdebstrap and jlink). GPU_OPERATOR_SKIP_IMAGE=1 skips it.
image=0
if [ -z "${GPU_OPERATOR_SKIP_IMAGE:-}" ] && [ $# -eq 0 ]; then
  t0=$(date +%s)
  "$ROOT/scripts/image.sh" >/dev/null
  image=1
  echo "[test] image built in $(( $(date +%s) - t0 )) s" >&2
fi

rc=0
mvn -B -Dgpu-operator.k8s.bin="$BIN" verify "$@" || rc=$?

# The image unpacked and its entrypoint run as its user.
if [ "$rc" -eq 0 ] && [ "$image" = 1 ]; then
  "$ROOT/scripts/image.sh" --check-only || rc=$?
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
# Nor anything of a real node: process, mount, cgroup, iptables chain, bridge.
if [ "$(id -u)" = 0 ]; then
  if ! "$ROOT/scripts/real-node.sh" check >&2; then
    echo "[test] FAIL: the real-node suite left the above behind (scripts/real-node.sh down removes it)" >&2
    [ "$rc" -ne 0 ] || rc=1
  fi
fi
exit $rc
