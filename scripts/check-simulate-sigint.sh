#!/usr/bin/env bash
# Checks that Ctrl-C (SIGINT) to a running `gpu-operator simulate` leaves no process and no temp
# directory: the simulator runs with a private java.io.tmpdir, gets SIGINT once the cluster is ready,
# and afterwards that directory must be empty and no process may mention it.
#   scripts/check-simulate-sigint.sh            # exit 0 when clean
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d /tmp/simulate-sigint-XXXXXX)
TMP=$WORK/tmp
mkdir -p "$TMP"
cat > "$WORK/cluster.yaml" <<'YAML'
nodes:
- name: h100
  profile: H100-SXM5-80GB
  gpus: 8
- name: cpu
YAML

cd "$WORK"
# Job control: without it bash starts background jobs with SIGINT ignored, and so would the JVM.
set -m
GPU_OPERATOR_JAVA_OPTS="-Djava.io.tmpdir=$TMP" "$ROOT/gpu-operator" simulate \
  --cluster-file cluster.yaml --kubeconfig-out "$WORK/kubeconfig" >"$WORK/out.txt" 2>"$WORK/err.txt" &
PID=$!
set +m
for _ in $(seq 1 300); do
  grep -q "Running until Ctrl-C" "$WORK/out.txt" 2>/dev/null && break
  kill -0 $PID 2>/dev/null || { echo "FAIL: simulate exited early"; cat "$WORK/err.txt"; exit 1; }
  sleep 1
done
grep -q "Running until Ctrl-C" "$WORK/out.txt" || { echo "FAIL: not ready in 300 s"; kill -INT $PID; exit 1; }
echo "ready; running: $(pgrep -f "$TMP" | wc -l) processes under $TMP, $(ls "$TMP" | wc -l) temp dirs"
kill -INT $PID
rc=0; wait $PID || rc=$?
echo "simulate exited with $rc after SIGINT"
sleep 1
left_procs=$(pgrep -af "$TMP" || true)
left_files=$(ls -A "$TMP")
status=0
if [ -n "$left_procs" ]; then echo "FAIL: processes left:"; echo "$left_procs"; status=1; fi
if [ -n "$left_files" ]; then echo "FAIL: temp entries left in $TMP:"; echo "$left_files"; status=1; fi
if [ -e "$WORK/kubeconfig" ]; then echo "FAIL: kubeconfig left"; status=1; fi
[ $status -eq 0 ] && echo "OK: no process and no temp directory left"
rm -rf "$WORK"
exit $status
