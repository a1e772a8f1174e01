#!/usr/bin/env bash
# The simulator at scale: runs `gpu-operator simulate` on N nodes (a quarter each 8x H100, 4x A100,
# 2x L4, the rest CPU nodes), and once it is ready records the simulate JVM's RSS and threads, its
# threads grouped by name (node names and numbers collapsed), the control plane's RSS, then sends
# SIGINT and times the cleanup. BENCHMARKS.md "Simulator at scale" has the results.
#   scripts/bench-simulate-scale.sh 20 [OUT_DIR]     # OUT_DIR default: a new /tmp/sim-scale-N-XXXXXX
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N=${1:?usage: $0 NODES [OUT_DIR]}
OUT=${2:-$(mktemp -d "/tmp/sim-scale-$N-XXXXXX")}
mkdir -p "$OUT"
q=$((N / 4))
cat > "$OUT/cluster.yaml" <<YAML
nodes:
- {name: h100, count: $q, profile: H100-SXM5-80GB, gpus: 8}
- {name: a100, count: $q, profile: A100-SXM4-40GB, gpus: 4}
- {name: l4, count: $q, profile: L4, gpus: 2}
- {name: cpu, count: $((N - 3 * q))}
YAML
# Flow style, which the launcher's node count does not read: one entry per line instead.
python3 - "$OUT/cluster.yaml" <<'PY'
import re, sys
p = sys.argv[1]
out = ["nodes:"]
for line in open(p).read().splitlines()[1:]:
    fields = dict(f.split(": ") for f in re.sub(r"^- \{|\}$", "", line).split(", "))
    out.append("- name: " + fields.pop("name"))
    out += ["  %s: %s" % kv for kv in fields.items()]
open(p, "w").write("\n".join(out) + "\n")
PY

info() { echo "$*" | tee -a "$OUT/info"; }
info "date: $(date -u +%FT%TZ), nodes: $N, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
cd "$ROOT"
# Job control: without it bash starts background jobs with SIGINT ignored, and so would the JVM.
set -m
start=$(date +%s.%N)
./gpu-operator simulate --cluster-file "$OUT/cluster.yaml" --timeout 10m \
  --kubeconfig-out "$OUT/kubeconfig" > "$OUT/out" 2> "$OUT/err" &
pid=$!
while kill -0 "$pid" 2>/dev/null && ! grep -q "Ready in\|not ready after" "$OUT/out" "$OUT/err"; do
  sleep 0.5
done
info "$(grep -h "Ready in\|not ready after" "$OUT/out" "$OUT/err" || echo "the simulator exited")"
info "wall from launch (build check and JVM start included): $(echo "$(date +%s.%N) - $start" | bc) s"
info "load average at ready: $(cut -d' ' -f1-3 /proc/loadavg)"
kill -0 "$pid" 2>/dev/null || exit 1
sleep 10 # past the rollout's last requests
info "simulate JVM: $(grep -E 'VmHWM|VmRSS|Threads' "/proc/$pid/status" | tr -s ' \t' ' ' | paste -sd ' ')"
info "heap: $(jcmd "$pid" GC.heap_info | sed -n 2p | tr -s ' ')"
# CPU the JVM used so far (user+system, clock ticks) and its GC time: less load-dependent than wall.
ticks=$(getconf CLK_TCK)
info "simulate JVM CPU: $(awk -v t="$ticks" '{printf "%.1f s", ($14 + $15) / t}' "/proc/$pid/stat"), GC: $(jstat -gc "$pid" | awk 'NR == 2 {print "young " $(NF-5) " s (" $(NF-6) "x), full " $(NF-3) " s (" $(NF-4) "x), concurrent " $(NF-1) " s, total " $NF " s"}')"
jcmd "$pid" Thread.print > "$OUT/threads"
grep '^"' "$OUT/threads" | sed -E 's/^"([^"]*)".*/\1/' |
  sed -E 's/(h100|a100|l4|cpu)-[0-9]+/NODE/g; s/^pod-NODE-(.*)-[a-z0-9]{5}$/pod-NODE-\1/;
          s/^pod-NODE-nvidia-cuda-validator.*/pod-NODE-nvidia-cuda-validator/;
          s/^-?[0-9]+-pool/HASH-pool/; s/[0-9]+/N/g' | sort | uniq -c | sort -rn > "$OUT/threads-by-name"
# The control plane's binaries run under watchdog shells, the JVM's children.
for sh in $(pgrep -P "$pid" || true); do
  for p in $(pgrep -P "$sh" || true); do ps -o rss=,nlwp=,comm= -p "$p" || true; done
done > "$OUT/control-plane"
info "control plane (RSS KiB, threads, binary): $(paste -sd ';' "$OUT/control-plane" | tr -s ' ')"
# Live objects (this forces a full GC, so it comes after every other reading): the heap that must
# stay, by class.
jcmd "$pid" GC.class_histogram > "$OUT/histogram"
info "live heap after a full GC: $(awk '/^Total/ {printf "%.0f MiB in %d objects", $3 / 1048576, $2}' "$OUT/histogram")"
t0=$(date +%s.%N)
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
info "SIGINT: exit $rc after $(echo "$(date +%s.%N) - $t0" | bc) s"
head -30 "$OUT/threads-by-name"
echo "results in $OUT"
