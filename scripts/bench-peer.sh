#!/usr/bin/env bash
# Benchmark (not a test): this project's operator and NVIDIA's original side by side, each as its
# own OS process in turn against fresh control planes of the same build, with N NFD-labelled GPU
# Node objects and the same ClusterPolicy. Ours runs as the product does: the shaded jar with the
# image entrypoint's JVM flags and the chart's JAVA_TOOL_OPTIONS and limits (read from
# deploy/image/gpu-operator and the chart's values.yaml). Measured for each: time until all nodes
# are labelled (policy first; nodes first), writes per node and failed writes (the API server's
# audit log, by user agent), writes and CPU seconds while idle, peak RSS, CPU seconds, peak threads (/proc), and
# writes per minute while the DaemonSets never become ready (NotReady nodes without kubelets).
# Prints one markdown table with the ratios ours/original. Results go in BENCHMARKS.md.
# Needs root (the original runs chrooted into its cached root: its manifest path is hard-coded).
#   scripts/bench-peer.sh [nodes=1000] [not-ready-nodes=100] [idle-seconds=60]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
NODES=${1:-1000}
NOT_READY=${2:-100}
IDLE=${3:-60}
for v in "$NODES" "$NOT_READY" "$IDLE"; do
  [[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "bench-peer: arguments are positive whole numbers: [nodes] [not-ready-nodes] [idle-seconds], got '$v'" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "bench-peer: needs root: NVIDIA's operator runs chrooted (its manifest path /opt/gpu-operator is hard-coded)" >&2; exit 2; }

step() { printf '[peer] %s %s\n' "$(date +%H:%M:%S)" "$*"; }
step "load before: $(uptime)"
BIN=$("$ROOT/scripts/k8s-binaries.sh" | tail -n 1)
ORIGINAL=$("$ROOT/scripts/original-operator.sh" | tail -n 1)
step "control plane binaries: $BIN; NVIDIA's operator: $ORIGINAL"
step "building the shaded jar and the benchmark's classpath (mvn, quiet)"
mvn -B -q -pl cli -am -DskipTests -Dspotless.check.skip=true package dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=test
CP="cli/target/test-classes:$(cat cli/target/classpath.txt)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-peer.XXXXXX")
step "work directory (operator logs): $WORK"
# The driver stops both operators and its control planes itself (close, shutdown hooks); this
# trap is for an interrupt of the script: the driver's process group is ended by its pid.
DRIVER=""
cleanup() {
  if [ -n "$DRIVER" ] && kill -0 "$DRIVER" 2>/dev/null; then
    kill -TERM "$DRIVER" 2>/dev/null || true
    wait "$DRIVER" 2>/dev/null || true
  fi
}
trap cleanup EXIT INT TERM
java -Xmx1g -Dgpu-operator.k8s.bin="$BIN" -Dgpu-operator.original.dir="$ORIGINAL" -cp "$CP" \
  io.gpuoperator.cli.chart.PeerBenchmark "$NODES" "$NOT_READY" "$IDLE" "$WORK" "$ROOT" &
DRIVER=$!
rc=0
wait "$DRIVER" || rc=$?
DRIVER=""
step "load after: $(uptime)"
[ "$rc" = 0 ] || { echo "bench-peer: the benchmark failed (exit $rc); operator logs in $WORK" >&2; exit "$rc"; }
