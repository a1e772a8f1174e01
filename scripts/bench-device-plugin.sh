#!/usr/bin/env bash
# Device-plugin numbers for BENCHMARKS.md:
#  1. Allocate / GetPreferredAllocation latency over the plugin's Unix socket (8 GPUs, 56 MIG devices),
#     from the JUnit harness node/.../DevicePluginBenchmark (lines starting with BENCH);
#  2. resident memory of an idle `gpu-operator device-plugin` process (simulated 8xH100, its sockets
#     served, no kubelet), with default JVM options and with small-footprint options.
#   scripts/bench-device-plugin.sh [idle-seconds]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
IDLE=${1:-20}

mvn -B -q test -pl node -am -Dtest=DevicePluginBenchmark -Dbenchmark=true \
  -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true | grep '^BENCH' || true

./gpu-operator --help >/dev/null   # builds cli/target/gpu-operator.jar when stale
for opts in "" "-Xmx64m -Xss512k -XX:+UseSerialGC -XX:TieredStopAtLevel=1"; do
  dir=$(mktemp -d)
  # shellcheck disable=SC2086
  java $opts -jar cli/target/gpu-operator.jar device-plugin --backend simulated \
    --node-profile dgx-h100 --kubelet-socket "$dir/device-plugins/kubelet.sock" 2>"$dir/log" &
  pid=$!
  sleep "$IDLE"
  rss=$(awk '/VmRSS/{print $2}' "/proc/$pid/status")
  socks=$(ls "$dir/device-plugins" | tr '\n' ' ')
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "RSS idle ${IDLE}s, JVM options [${opts:-default}]: ${rss} kB (sockets: ${socks})"
  rm -rf "$dir"
done
