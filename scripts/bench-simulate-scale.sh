#!/usr/bin/env bash
# The simulator at scale: runs `gpu-operator simulate` on N nodes (a quarter each 8x H100, 4x A100,
# 2x L4, the rest CPU nodes), and once it is ready records the simulate JVM's RSS and threads, its
# threads grouped by name (node names and numbers collapsed), the control plane's RSS and the most RSS
# of all its processes together while it came up, then sends
# SIGINT and times the cleanup. BENCHMARKS.md "Simulator at scale" has the results.
# It also reads the API server's request counters (apiserver_request_total) at ready and after an
# idle window, and counts the writes in the API server's audit log by who made them (the operator's
# user agent, the nodes, the controller-manager, the scheduler, the in-process agents), during the
# rollout and during the idle window.
#   scripts/bench-simulate-scale.sh 20 [OUT_DIR]     # OUT_DIR default: a new /tmp/sim-scale-N-XXXXXX
#   IDLE=300 scripts/bench-simulate-scale.sh 1000    # the idle window after ready (default 60 s)
#   PEAK_DUMP=1 scripts/bench-simulate-scale.sh 200  # a thread dump near the most threads too
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
# --nodes: the same mix as cluster.yaml (kept as the record of it), and above the 500 nodes a
# cluster file may hold.
./gpu-operator simulate --nodes "$N" --timeout 10m \
  --kubeconfig-out "$OUT/kubeconfig" > "$OUT/out" 2> "$OUT/err" &
pid=$!
# The most threads the JVM had while the cluster came up, sampled every half second: short-lived
# threads (a pool's burst, a per-node executor's) count here and are gone by ready.
# At each new most, the threads' names as the kernel keeps them (15 characters, node names and
# numbers collapsed) go to threads-at-peak-by-name: who owns the busiest moment.
peak_threads=0
# The control plane's binaries run under watchdog shells, the JVM's children.
cp_pids() {
  for sh in $(pgrep -P "$pid" || true); do
    for p in $(pgrep -P "$sh" || true); do
      case "$(ps -o comm= -p "$p" 2>/dev/null)" in etcd | kube-*) echo "$p" ;; esac
    done
  done
}
# The whole simulation's memory is the sum of its processes' RSS at one moment (the JVM and the
# control plane): each process's own peak (VmHWM) comes at a different time, so their sum is only
# an upper bound. Sampled with the threads, in KiB.
peak_sum_kib=0
while kill -0 "$pid" 2>/dev/null && ! grep -q "Ready in\|not ready after" "$OUT/out" "$OUT/err"; do
  t=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
  if [ "${t:-0}" -gt "$peak_threads" ]; then
    peak_threads=$t
    cat /proc/"$pid"/task/*/comm 2>/dev/null |
      sed -E 's/(h100|a100|l4|cpu)-[0-9]+/NODE/g; s/[0-9]+/N/g' | sort | uniq -c | sort -rn \
      > "$OUT/threads-at-peak-by-name" || true
    # PEAK_DUMP=1: a full thread dump (stacks: what each waits on) at each new most 10 % above the
    # last dump's, in threads-at-peak (a dump pauses the JVM for a moment, so not by default).
    if [ -n "${PEAK_DUMP:-}" ] && [ "$t" -gt $((${dumped:-0} * 11 / 10)) ]; then
      jcmd "$pid" Thread.print > "$OUT/threads-at-peak" 2>/dev/null && dumped=$t
    fi
  fi
  sum_kib=$(cat "/proc/$pid/status" $(for p in $(cp_pids); do echo "/proc/$p/status"; done) 2>/dev/null |
    awk '/^VmRSS:/ {s += $2} END {print s + 0}')
  if [ "$sum_kib" -gt "$peak_sum_kib" ]; then peak_sum_kib=$sum_kib; fi
  sleep 0.5
done
info "$(grep -h "Ready in\|not ready after" "$OUT/out" "$OUT/err" || echo "the simulator exited")"
info "wall from launch (build check and JVM start included): $(echo "$(date +%s.%N) - $start" | bc) s"
info "load average at ready: $(cut -d' ' -f1-3 /proc/loadavg)"
kill -0 "$pid" 2>/dev/null || exit 1
ready_at=$(date -u +%FT%T.%NZ)
# Seconds to ready, or (not ready within the timeout) the run's seconds so far.
ready_s=$(grep -ho "Ready in [0-9]*" "$OUT/out" | grep -o "[0-9]*$" || true)
ready_s=${ready_s:-$(echo "$(date +%s) - ${start%.*}" | bc)}
kubectl=$(dirname "$(readlink -f "/proc/$(cp_pids | sed -n 1p)/exe")")/kubectl
metrics() { "$kubectl" --kubeconfig "$OUT/kubeconfig" --request-timeout=120s get --raw /metrics | tee "$OUT/metrics-$1" |
  awk '/^apiserver_request_total\{/ {
    match($0, /resource="[^"]*"/); r = substr($0, RSTART + 10, RLENGTH - 11)
    match($0, /subresource="[^"]*"/); sr = RLENGTH > 0 ? "/" substr($0, RSTART + 13, RLENGTH - 14) : ""
    match($0, /verb="[^"]*"/); v = substr($0, RSTART + 6, RLENGTH - 7)
    n[v " " r sr] += $NF } END { for (k in n) print n[k], k }' | sort -rn; }
metrics at-ready > "$OUT/requests-at-ready"
# The watch lag, from the API server's own metrics: a consistent list is served from the watch
# cache once the cache has caught up with etcd, and waits for that up to 3 s before it falls back
# to etcd, so the wait says how far behind the cache is; a watcher that does not take its events
# fast enough is terminated and must list and watch again.
info "watch lag to ready: $(awk '
  function res() { match($0, /resource="[^"]*"/); return substr($0, RSTART + 10, RLENGTH - 11) }
  /^apiserver_watch_cache_read_wait_seconds_count\{/ { n[res()] = $NF }
  /^apiserver_watch_cache_read_wait_seconds_sum\{/ { s[res()] = $NF }
  /^apiserver_watch_cache_consistent_read_total\{.*fallback="true"/ { f[res()] += $NF }
  /^apiserver_terminated_watchers_total\{/ { t = t sprintf("%s %d, ", res(), $NF) }
  END {
    split("nodes pods", rs, " ")
    for (i = 1; i <= 2; i++) { r = rs[i]
      printf "consistent lists of %s waited %.2f s on average for the cache (%d lists, %d fell back to etcd); ", r, n[r] ? s[r] / n[r] : 0, n[r], f[r] }
    printf "watchers terminated for falling behind: %s", t == "" ? "none" : substr(t, 1, length(t) - 2) }' "$OUT/metrics-at-ready")"
ticks=$(getconf CLK_TCK)
cpu() { awk -v t="$ticks" '{printf "%.1f", ($14 + $15) / t}' "/proc/$1/stat"; }
info "CPU to ready (s): simulate JVM $(cpu "$pid")$(for p in $(cp_pids); do printf ', %s %s' "$(ps -o comm= -p "$p")" "$(cpu "$p")"; done)"
info "API requests to ready: $(awk -v t="$ready_s" '{s += $1} END {printf "%d, %.0f/s", s, s / t}' "$OUT/requests-at-ready")"
IDLE=${IDLE:-60}
info "idle window: $IDLE s from ready"
sleep "$IDLE"
idle_end=$(date -u +%FT%T.%NZ)
metrics at-idle-end > "$OUT/requests-at-idle-end"
info "API requests in the idle window: $(awk -v t="$IDLE" 'NR == FNR {a[$2 " " $3] = $1; next} {d = $1 - a[$2 " " $3]; s += d; if (d > 0) top[$2 " " $3] = d} END {printf "%d, %.1f/s; most: ", s, s / t; n = 0; PROCINFO["sorted_in"] = "@val_num_desc"; for (k in top) if (n++ < 4) printf "%s %d, ", k, top[k]}' "$OUT/requests-at-ready" "$OUT/requests-at-idle-end")"
audit=$(tr '\0' '\n' < "/proc/$(for p in $(cp_pids); do grep -qa kube-apiserver "/proc/$p/cmdline" && echo "$p"; done)/cmdline" | sed -n 's/^--audit-log-path=//p')
cp "$audit" "$OUT/audit.log"
python3 - "$OUT/audit.log" "$ready_at" "$idle_end" <<'PY' | tee -a "$OUT/info"
import collections, json, sys
log, ready, end = sys.argv[1:]
def who(e):
    u = e["user"]["username"]
    # simulate's operator runs in-process with the admin credential and its own user agent.
    if u == "system:serviceaccount:gpu-operator:gpu-operator" or "(simulate)" in e.get("userAgent", ""):
        return "operator"
    if u == "admin": return "agents and the simulator (admin)"
    if u.startswith("system:node:"): return "nodes (kubelets)"
    if u.startswith("system:serviceaccount:kube-system:"): return "controller-manager"
    if u == "system:kube-scheduler": return "scheduler"
    if u.startswith("system:serviceaccount:gpu-operator:"): return "node agents"
    return u
windows = {"rollout": collections.Counter(), "idle": collections.Counter()}
operator_idle = collections.Counter()
for line in open(log):
    e = json.loads(line)
    t = e["requestReceivedTimestamp"]
    if t > end: continue
    w = "rollout" if t < ready[:26] else "idle"
    k = who(e)
    windows[w][k] += 1
    if w == "idle" and k == "operator":
        r = e.get("objectRef", {})
        operator_idle[e["verb"] + " " + r.get("resource", "") + "/" + r.get("name", "")] += 1
for w, c in windows.items():
    print("writes during the %s: %s" % (w, ", ".join("%s %d" % kv for kv in c.most_common())))
print("operator writes in the idle window: %d %s" % (sum(operator_idle.values()), dict(operator_idle.most_common(5))))
PY
info "simulate JVM: $(grep -E 'VmHWM|VmRSS|Threads' "/proc/$pid/status" | tr -s ' \t' ' ' | paste -sd ' '); most threads while coming up (sampled every 0.5 s): $peak_threads"
info "heap: $(jcmd "$pid" GC.heap_info | sed -n 2p | tr -s ' ')"
# CPU the JVM used so far (user+system, clock ticks) and its GC time: less load-dependent than wall.
info "simulate JVM CPU: $(awk -v t="$ticks" '{printf "%.1f s", ($14 + $15) / t}' "/proc/$pid/stat"), GC: $(jstat -gc "$pid" | awk 'NR == 2 {print "young " $(NF-5) " s (" $(NF-6) "x), full " $(NF-3) " s (" $(NF-4) "x), concurrent " $(NF-1) " s, total " $NF " s"}')"
jcmd "$pid" Thread.print > "$OUT/threads"
grep '^"' "$OUT/threads" | sed -E 's/^"([^"]*)".*/\1/' |
  sed -E 's/(h100|a100|l4|cpu)-[0-9]+/NODE/g; s/^pod-NODE-(.*)-[a-z0-9]{5}$/pod-NODE-\1/;
          s/^pod-NODE-nvidia-cuda-validator.*/pod-NODE-nvidia-cuda-validator/;
          s/^-?[0-9]+-pool/HASH-pool/; s/[0-9]+/N/g' | sort | uniq -c | sort -rn > "$OUT/threads-by-name"
# CPU by thread (user/system), grouped by name as the kernel keeps it (15 characters): which of the
# JVM's activities cost the CPU. Threads that have ended are in the process's total only.
python3 - "$pid" "$ticks" > "$OUT/cpu-by-thread" <<'PY'
import collections, os, re, sys
pid, ticks = sys.argv[1], float(sys.argv[2])
by = collections.defaultdict(lambda: [0, 0.0, 0.0])
for t in os.listdir("/proc/%s/task" % pid):
    try:
        s = open("/proc/%s/task/%s/stat" % (pid, t)).read()
    except OSError:
        continue
    name = s[s.index("(") + 1 : s.rindex(")")]
    f = s[s.rindex(")") + 2 :].split()
    k = re.sub(r"[0-9]+", "N", re.sub(r"(h100|a100|l4|cpu)-[0-9]+", "NODE", name))
    by[k][0] += 1
    by[k][1] += int(f[11]) / ticks
    by[k][2] += int(f[12]) / ticks
st = open("/proc/%s/stat" % pid).read()
f = st[st.rindex(")") + 2 :].split()
print("process: user %.1f s, system %.1f s; live threads: user %.1f s, system %.1f s" % (
    int(f[11]) / ticks, int(f[12]) / ticks, sum(v[1] for v in by.values()), sum(v[2] for v in by.values())))
for k, v in sorted(by.items(), key=lambda kv: -(kv[1][1] + kv[1][2]))[:40]:
    print("%8.1f s (user %.1f, system %.1f) %5d threads  %s" % (v[1] + v[2], v[1], v[2], v[0], k))
PY
info "simulate JVM CPU by thread: $(sed -n 1p "$OUT/cpu-by-thread")"
for p in $(cp_pids); do
  echo "$(ps -o comm= -p "$p"): peak RSS $(awk '/VmHWM/ {printf "%d MiB", $2 / 1024}' "/proc/$p/status"), RSS $(awk '/VmRSS/ {printf "%d MiB", $2 / 1024}' "/proc/$p/status"), threads $(awk '/Threads/ {print $2}' "/proc/$p/status"), CPU $(awk -v t="$ticks" '{printf "%.1f s", ($14 + $15) / t}' "/proc/$p/stat")"
done > "$OUT/control-plane"
info "control plane: $(paste -sd ';' "$OUT/control-plane")"
info "the processes' RSS summed at one moment, the most while coming up (sampled every 0.5 s): $(awk -v k="$peak_sum_kib" 'BEGIN {printf "%.2f GiB", k / 1048576}')"
info "every process's peak RSS together (an upper bound of the peak of the sum): $(cat "/proc/$pid/status" $(for p in $(cp_pids); do echo "/proc/$p/status"; done) | awk '/VmHWM/ {s += $2} END {printf "%.2f GiB", s / 1048576}')"
# Live objects (this forces a full GC, so it comes after every other reading): the heap that must
# stay, by class.
jcmd "$pid" GC.class_histogram > "$OUT/histogram"
info "live heap after a full GC: $(awk '/^Total/ {printf "%.0f MiB in %d objects", $3 / 1048576, $2}' "$OUT/histogram")"
t0=$(date +%s.%N)
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
info "SIGINT: exit $rc after $(echo "$(date +%s.%N) - $t0" | bc) s"
left=$(pgrep -f "gpu-operator-(cp|nodes)-" || true)
dirs=$(find /tmp -maxdepth 1 -name 'gpu-operator-*' -newer "$OUT/cluster.yaml" | paste -sd ' ')
info "left after SIGINT: processes: ${left:-none}; temp dirs: ${dirs:-none}"
head -30 "$OUT/threads-by-name"
echo "results in $OUT"
