#!/usr/bin/env bash
# Benchmark (not a test): GPU fault remediation on N GPU nodes against a real API server,
# ReplicaSet and DaemonSet controllers and scheduler, with one stand-in kubelet for the whole fleet;
# F nodes get a fatal-XID condition at once and their resets are answered at once. Prints, per
# faulty node, the time from the fault to the taint and to back in service, and the operator's
# writes.
# Results go in BENCHMARKS.md.
#   scripts/bench-remediation.sh [nodes=1000] [faulty=20] [maxConcurrent=faulty]
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/lib/test-main.sh" operator \
  io.gpuoperator.operator.reconciler.RemediationBenchmark "${1:-1000}" "${2:-20}" ${3:+"$3"}
