#!/usr/bin/env bash
# DRA numbers for BENCHMARKS.md (lines starting with BENCH):
#  1. NodePrepareResources / NodeUnprepareResources latency over the plugin's Unix socket, with the
#     claim read from a real API server (node/.../DraPluginBenchmark);
#  2. on a simulated 20-node × 8-H100 cluster with the real scheduler: slice published -> first
#     allocation, and 100 one-GPU claims scheduled at once (cli/.../DraSchedulingBenchmark).
#   scripts/bench-dra.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BIN=$("$ROOT/scripts/k8s-binaries.sh" | tail -n 1)
uptime
mvn -B -q test -pl node -am -Dtest=DraPluginBenchmark -Dbenchmark=true -Dgpu-operator.k8s.bin="$BIN" \
  -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true | grep '^BENCH' || true
uptime
mvn -B -q test -pl cli -am -Dtest=DraSchedulingBenchmark -Dbenchmark=true -Dgpu-operator.k8s.bin="$BIN" \
  -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true | grep '^BENCH' || true
uptime
