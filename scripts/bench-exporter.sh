#!/usr/bin/env bash
# Metrics-exporter numbers for BENCHMARKS.md, from the JUnit harness node/.../ExporterBenchmark
# (lines starting with BENCH): /metrics latency with 1 and 5 scrapers on 8x H100 with 7 MIG devices
# each and 60 pods, CPU per collection, heap/RSS over a pod-churn run, and Debian's
# prometheus-node-exporter scraped the same way. Needs scripts/test-deps.sh (Prometheus packages).
#   scripts/bench-exporter.sh [churn-collections]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
"$ROOT/scripts/test-deps.sh"
uptime
mvn -B -q test -pl node -am -Dtest=ExporterBenchmark -Dbenchmark=true \
  -Dbenchmark.churn="${1:-600}" \
  -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true | grep '^BENCH' || true
uptime
