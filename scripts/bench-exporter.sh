#!/usr/bin/env bash
# Metrics-exporter numbers for BENCHMARKS.md, from the JUnit harness node/.../ExporterBenchmark
# (lines starting with BENCH): /metrics latency with 1 and 5 scrapers on 8x H100 with 7 MIG devices
# each and 60 pods, CPU per collection, heap/RSS over a pod-churn run, and Debian's
# prometheus-node-exporter scraped the same way. The test JVM runs with the image's JVM flags (read
# from deploy/image/gpu-operator), so its RSS is what a node would see. Needs scripts/test-deps.sh
# (Prometheus packages).
#   scripts/bench-exporter.sh [churn-minutes] [parts]
#   scripts/bench-exporter.sh 30                          # everything, a 30-minute churn run
#   scripts/bench-exporter.sh 0 latency,node-exporter     # only the scrape latencies
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
"$ROOT/scripts/test-deps.sh"
command -v wrk >/dev/null || apt-get install -y -q wrk >/dev/null   # latency from another process
flags=$(sed -n 's/^  \(-[XD][^ ]*\) \\$/\1/p' "$ROOT/deploy/image/gpu-operator" | tr '\n' ' ')
echo "JVM flags: $flags"
uptime
mvn -B -q test -pl node -am -Dtest=ExporterBenchmark -Dbenchmark=true \
  -Dbenchmark.churnMinutes="${1:-5}" -Dbenchmark.parts="${2:-latency,collection,churn,node-exporter}" \
  -DargLine="$flags" \
  -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true | grep '^BENCH' || true
uptime
