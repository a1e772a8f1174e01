#!/usr/bin/env bash
# Builds (once) NVIDIA's original GPU Operator from its Go module at a pinned version, for the
# migration test (cli's MigrationIT) that runs it as a process beside ours. The result is cached
# per version and recipe, laid out as a root directory the test chroots into, because the binary
# reads its operand manifests from the hard-coded /opt/gpu-operator and the host's os-release from
# /host-etc (the image's layout, docker/Dockerfile of the module):
#   <cache>/root/usr/bin/gpu-operator      the static binary (CGO off), version-stamped
#   <cache>/root/opt/gpu-operator/         the module's assets/* and manifests/ (operand manifests)
#   <cache>/crds/                          its ClusterPolicy and NVIDIADriver CRDs, NFD's API CRDs
# A complete cache returns at once; prints the cache directory on its last line.
#   scripts/original-operator.sh
#   GPU_OPERATOR_ORIGINAL_DIR=/some/dir scripts/original-operator.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=k8s-versions.env
. "$ROOT/scripts/k8s-versions.env"
# Pinned in k8s-versions.env (a pseudo-version: the proxy serves no tag of it), as the chart tests'.
ORIGINAL_VERSION=$ORIGINAL_OPERATOR_VERSION
MODULE=github.com/NVIDIA/gpu-operator
# Bump when the recipe (layout, flags) changes, so caches built by an older recipe are rebuilt.
RECIPE=1

step() { printf '[original-operator] %s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
fail() { printf 'original-operator: %s\n' "$*" >&2; exit 1; }

CACHE=${GPU_OPERATOR_ORIGINAL_DIR:-${GPU_OPERATOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpu-operator}/original-operator/$ORIGINAL_VERSION}
STAMP="$MODULE $ORIGINAL_VERSION recipe $RECIPE"
if [ -x "$CACHE/root/usr/bin/gpu-operator" ] && [ "$(cat "$CACHE/.complete" 2>/dev/null)" = "$STAMP" ]; then
  step "cache complete in $CACHE"
  echo "$CACHE"
  exit 0
fi

# shellcheck source=lib/go-modules.sh
. "$ROOT/scripts/lib/go-modules.sh"
go_check "GPU_OPERATOR_ORIGINAL_DIR (a directory this script built)"
export GOCACHE=$CACHE/go-build
mkdir -p "$CACHE/src"

step "1/3 resolving $MODULE $ORIGINAL_VERSION and its dependencies (module proxy; once)"
module_of "$CACHE/src/build" "$MODULE" "$ORIGINAL_VERSION" "$MODULE/cmd/gpu-operator"
SRC=$(cd "$CACHE/src/build" && go list -m -f '{{.Dir}}' "$MODULE")
[ -d "$SRC/assets" ] || fail "the module source at $SRC has no assets/ directory"

step "2/3 building $MODULE/cmd/gpu-operator (cold: a few minutes on 2 cores)"
rm -rf "$CACHE/root" "$CACHE/crds"
mkdir -p "$CACHE/root/usr/bin" "$CACHE/root/opt/gpu-operator/manifests" "$CACHE/crds"
(cd "$CACHE/src/build" && go build -trimpath \
  -ldflags "-s -w -X $MODULE/internal/info.version=$ORIGINAL_VERSION" \
  -o "$CACHE/root/usr/bin/gpu-operator" "$MODULE/cmd/gpu-operator") >&2 ||
  fail "building $MODULE $ORIGINAL_VERSION failed (see above); rerun to resume from the build cache"

step "3/3 copying its manifests and CRDs from $SRC"
# The module cache is read-only; the copies must be writable so a rebuild can remove them.
cp -r "$SRC"/assets/. "$CACHE/root/opt/gpu-operator/"
cp -r "$SRC"/manifests/. "$CACHE/root/opt/gpu-operator/manifests/"
cp "$SRC"/deployments/gpu-operator/crds/nvidia.com_clusterpolicies.yaml \
  "$SRC"/deployments/gpu-operator/crds/nvidia.com_nvidiadrivers.yaml \
  "$SRC"/deployments/gpu-operator/charts/node-feature-discovery/crds/nfd-api-crds.yaml "$CACHE/crds/"
chmod -R u+w "$CACHE/root" "$CACHE/crds"
# The build cache is a few hundred MB; the resolved modules stay in GOMODCACHE for a rebuild.
rm -rf "$GOCACHE"
echo "$STAMP" >"$CACHE/.complete"
step "done: $CACHE/root/usr/bin/gpu-operator ($(du -h "$CACHE/root/usr/bin/gpu-operator" | cut -f1))"
echo "$CACHE"
