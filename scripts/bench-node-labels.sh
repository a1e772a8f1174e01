#!/usr/bin/env bash
# Benchmark (not a test): N GPU nodes created at once against a real API server with the operator
# running; prints the time until all carry their labels and taint, and the operator's writes per
# node (from the API server's audit log). Results go in BENCHMARKS.md.
#   scripts/bench-node-labels.sh [nodes=1000] [creator-threads=32]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BIN=$("$ROOT/scripts/k8s-binaries.sh" | tail -n 1)
mvn -B -q -pl operator -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=test
CP="operator/target/test-classes:operator/target/classes:$(cat operator/target/classpath.txt)"
exec java -Xmx1g -Dgpu-operator.k8s.bin="$BIN" -cp "$CP" \
  io.gpuoperator.operator.reconciler.NodeLabelBenchmark "${1:-1000}" "${2:-32}"
