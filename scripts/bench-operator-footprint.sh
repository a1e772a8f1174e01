#!/usr/bin/env bash
# Operator footprint for BENCHMARKS.md (the line starting with BENCH): the operator as its own
# process against a real API server with N GPU nodes and the sample ClusterPolicy; CPU and time to
# the first and to all nodes labelled, idle CPU, peak RSS and threads (cli/.../OperatorFootprintBenchmark).
# JVM flags default to the image launcher's (deploy/image/gpu-operator); extra arguments replace them.
#   scripts/bench-operator-footprint.sh [nodes=1000] [idle-seconds=60] [jvm flags...]
# Profiling: FOOTPRINT_PEAK_DUMP=FILE writes a thread dump at each new peak of threads (jcmd, costs
# the operator CPU); a -XX:NativeMemoryTracking=summary flag prints VM.native_memory at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BIN=${GPU_OPERATOR_K8S_BIN:-$("$ROOT/scripts/k8s-binaries.sh" | tail -n 1)}
if [ -z "${SKIP_BUILD:-}" ]; then
  mvn -B -q -DskipTests -Dspotless.check.skip=true package -pl cli -am
  mvn -B -q -pl cli -am test-compile dependency:build-classpath -Dspotless.check.skip=true \
    -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=test
fi
CP="cli/target/test-classes:cli/target/classes:$(cat cli/target/classpath.txt)"
exec java -Xmx1g -Dgpu-operator.k8s.bin="$BIN" -cp "$CP" \
  io.gpuoperator.cli.OperatorFootprintBenchmark "$@"
