#!/usr/bin/env bash
# Node footprint for BENCHMARKS.md (the line starting with BENCH): RSS of all our agents on one
# simulated 8-GPU node, each in its own JVM versus one node-agents JVM, with the image's JVM flags
# (cli/.../NodeFootprintBenchmark; about 3 minutes). Needs the shaded jar, so it runs under failsafe.
#   scripts/bench-node-footprint.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BIN=$("$ROOT/scripts/k8s-binaries.sh" | tail -n 1)
uptime
mvn -B -q verify -pl cli -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test=NodeFootprintBenchmark -Dfailsafe.failIfNoSpecifiedTests=false -Dbenchmark=true \
  -Dgpu-operator.k8s.bin="$BIN" -Dspotless.check.skip=true | grep '^BENCH' || true
uptime
