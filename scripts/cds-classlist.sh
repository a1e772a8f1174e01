#!/usr/bin/env bash
# Refreshes deploy/image/classes.lst, the classes the image's class-data-sharing archive holds
# (scripts/image.sh and the Dockerfile dump the archive from it at image build). A training run
# records what a real start loads (-XX:DumpLoadedClassList): the operator labelling N GPU nodes
# against a real API server (the footprint benchmark, with the image's JVM flags), then one
# feature-discovery pass on the simulated backend (what every node agent loads: the GPU layer,
# the config, YAML). Run it after changes that load many new classes at start-up; a stale list is
# not an error (classes it misses load as before, names it has that are gone are skipped at dump),
# only less of the start is shared.
#   scripts/cds-classlist.sh [nodes=300]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
NODES=${1:-300}
OUT=deploy/image/classes.lst
T=$(mktemp -d "${TMPDIR:-/tmp}/gpu-operator-classlist.XXXXXX")
trap 'rm -rf "$T"' EXIT
log() { echo "[classlist $(date +%H:%M:%S)] $*" >&2; }

flags=$(sed -n 's/^[[:space:]]\+\(-[XD][^[:space:]]*\)[[:space:]]*\\$/\1/p' deploy/image/gpu-operator | xargs)
log "1/2 the operator labelling $NODES nodes (scripts/bench-operator-footprint.sh, image flags)"
scripts/bench-operator-footprint.sh "$NODES" 5 $flags "-XX:DumpLoadedClassList=$T/operator.lst" \
  | grep '^BENCH operator-footprint' >&2
log "2/2 feature-discovery on the simulated backend"
java $flags "-XX:DumpLoadedClassList=$T/agent.lst" -jar cli/target/gpu-operator.jar \
  feature-discovery --backend=simulated --node-profile=dgx-h100 --oneshot --output=file \
  -o "$T/labels" >/dev/null 2>&1
grep -q '^nvidia.com/gpu.count=8$' "$T/labels" || { echo "feature-discovery wrote no labels" >&2; exit 1; }

# The operator's list first, then what the agent adds; comments (the JDK's header) once.
{
  echo "# The classes of the image's class-data-sharing archive: written by scripts/cds-classlist.sh"
  echo "# (-XX:DumpLoadedClassList of a training run), read by -Xshare:dump at image build."
  cat "$T/operator.lst" "$T/agent.lst" | grep -v '^#' | awk '!seen[$0]++'
} > "$T/classes.lst"
mv "$T/classes.lst" "$OUT"
log "wrote $OUT: $(grep -vc '^[#@]' "$OUT") classes, $(grep -c '^@' "$OUT") lambda entries"
