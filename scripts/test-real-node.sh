#!/usr/bin/env bash
# Runs only the real-node suite (RealNodeE2EIT): the chart installed on a real kubelet and
# containerd on this machine, with simulated GPUs. Needs root. Builds (once, cached) the control
# plane, the node's binaries and images, then the project image from the current sources.
#   sudo scripts/test-real-node.sh
#   sudo scripts/test-real-node.sh -Dgpu-operator.real-node.hold=30   # keep the node 30 min on failure
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
[ "$(id -u)" = 0 ] || { echo "test-real-node: a real node needs root; run it as root (sudo)" >&2; exit 1; }
BIN=$("$ROOT/scripts/k8s-binaries.sh" | tail -n 1)
"$ROOT/scripts/node-binaries.sh" >/dev/null
"$ROOT/scripts/image.sh" >/dev/null
rc=0
mvn -B -Dgpu-operator.k8s.bin="$BIN" verify -pl cli -am -Dit.test=RealNodeE2EIT -Dtest=none \
  -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false "$@" || rc=$?
echo "[test-real-node] logs of the node and its containers: cli/target/real-node-logs/" >&2
"$ROOT/scripts/real-node.sh" check >&2 || rc=1
exit $rc
