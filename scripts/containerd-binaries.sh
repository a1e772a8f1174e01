#!/usr/bin/env bash
# Builds (once) the containerd 2.x binaries the toolkit's component tests run `config dump` with
# (ContainerdComponentTest; no daemon), from Go modules with the machine's Go (a throwaway module, as
# scripts/k8s-binaries.sh does for Kubernetes), only cmd/containerd, without cgo:
#   - v2.0.14: the last 2.x line that still reads `enable_cdi` (version 3 configs),
#   - v2.4.2: the newest; CDI is always on there and `enable_cdi` is dropped while migrating.
# Debian's containerd 1.6 comes from scripts/test-deps.sh, which calls this script.
# Cached under ~/.cache/gpu-operator/containerd/go-modules/<version>/bin/containerd (about 38 MB
# each); a complete cache returns at once; a cold build takes several minutes per version on 2 cores.
# Prints one line per binary: "<version> <path>". A failed build is reported, not fatal: the tests
# that need the binary skip (fail under CI=true) with a message naming this script.
#
#   scripts/containerd-binaries.sh
set -uo pipefail

# Pinned here only (served by the Go module proxy; see docs/agents/toolkit.md).
CONTAINERD2_VERSIONS=(v2.0.14 v2.4.2)
# Bump when the build recipe changes, so caches built by an older recipe are rebuilt.
RECIPE=1

CACHE=${GPU_OPERATOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpu-operator}/containerd/go-modules
step() { printf '[containerd-binaries] %s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# Builds containerd $1 into $CACHE/$1/bin/containerd.
build() {
  local version=$1
  local dir=$CACHE/$version
  local bin=$dir/bin/containerd
  local stamp="containerd $version recipe $RECIPE"
  if [ -x "$bin" ] && [ "$(cat "$dir/bin/.complete" 2>/dev/null)" = "$stamp" ]; then
    echo "$version $bin"
    return 0
  fi
  PATH=$PATH:/usr/local/go/bin
  if ! command -v go >/dev/null; then
    step "WARNING: Go is not installed (looked on PATH and in /usr/local/go/bin); containerd $version tests will skip"
    return 0
  fi
  export GOTOOLCHAIN=${GOTOOLCHAIN:-local} CGO_ENABLED=0 GOFLAGS=-mod=mod
  export GOCACHE=$dir/go-build
  local m=$dir/src
  mkdir -p "$m" "$dir/bin"
  step "building containerd $version from Go modules (cold: several minutes on 2 cores)"
  if [ ! -s "$m/go.sum" ] || [ "$(cat "$m/.resolved" 2>/dev/null)" != "$version" ]; then
    local modfile
    modfile=$(cd "$m" && go mod download -json "github.com/containerd/containerd/v2@$version" |
      sed -n 's/^\s*"GoMod": "\(.*\)",$/\1/p')
    if [ ! -s "$modfile" ]; then
      step "WARNING: could not download containerd $version from the Go module proxy; its tests will skip"
      return 0
    fi
    printf 'module gpu-operator.local/containerd-build\n\ngo %s\n\nrequire github.com/containerd/containerd/v2 %s\n' \
      "$(sed -n 's/^go //p' "$modfile")" "$version" >"$m/go.mod"
    rm -f "$m/go.sum"
    (cd "$m" && go get "github.com/containerd/containerd/v2/cmd/containerd@$version") >&2 || {
      step "WARNING: resolving containerd $version failed (see above); its tests will skip"
      return 0
    }
    echo "$version" >"$m/.resolved"
  fi
  local pkg=github.com/containerd/containerd/v2
  (cd "$m" && go build -trimpath -tags "no_btrfs no_devmapper no_zfs" \
    -ldflags "-s -w -X $pkg/version.Version=$version" \
    -o "$bin.tmp" "$pkg/cmd/containerd") >&2 || {
    step "WARNING: building containerd $version failed (see above); rerun to resume from the build cache"
    return 0
  }
  mv -f "$bin.tmp" "$bin"
  rm -rf "$GOCACHE"
  echo "$stamp" >"$dir/bin/.complete"
  step "built $("$bin" --version)"
  echo "$version $bin"
}

for v in "${CONTAINERD2_VERSIONS[@]}"; do
  build "$v"
done
