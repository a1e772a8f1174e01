#!/usr/bin/env bash
# Benchmark (not a test): N GPU nodes created at once against a real API server with the operator
# running; prints the time until all carry their labels and taint, and the operator's writes per
# node (from the API server's audit log). Results go in BENCHMARKS.md.
#   scripts/bench-node-labels.sh [nodes=1000] [creator-threads=32]
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/lib/test-main.sh" operator \
  io.gpuoperator.operator.reconciler.NodeLabelBenchmark "${1:-1000}" "${2:-32}"
