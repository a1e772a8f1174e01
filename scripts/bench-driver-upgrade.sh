#!/usr/bin/env bash
# Benchmark (not a test): a driver upgrade of N GPU nodes at P% parallelism against a real API
# server, DaemonSet controller and scheduler, with one stand-in kubelet for the whole fleet whose
# driver containers take a fixed simulated install time. Prints the orchestration overhead per node
# above that time, the rollout's wall time against the ideal, and the operator's writes.
# Results go in BENCHMARKS.md.
#   scripts/bench-driver-upgrade.sh [nodes=200] [percent=10] [install-seconds=20]
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/lib/test-main.sh" operator \
  io.gpuoperator.operator.reconciler.DriverUpgradeBenchmark "${1:-200}" "${2:-10}" "${3:-20}"
