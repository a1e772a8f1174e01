#!/usr/bin/env bash
# Gets (once) the real containerd binaries the toolkit's component tests run `config dump` with:
#   - containerd 1.6 from Debian 12 (apt-get download + dpkg -x; nothing is installed),
#   - containerd 2.x built from Go modules with the machine's Go (a throwaway module, as
#     scripts/k8s-binaries.sh does for Kubernetes).
# Both are cached under ~/.cache/gpu-operator/containerd/; a complete cache returns at once.
# Prints one line per binary: "<version> <path>". A failed fetch or build is reported, not fatal:
# the tests that need a binary skip with a message naming this script.
#
#   scripts/containerd-binaries.sh
set -uo pipefail

# Pinned here only (served by the Go module proxy; see README "Container toolkit").
CONTAINERD2_VERSION=v2.4.2
# Bump when the build recipe changes, so caches built by an older recipe are rebuilt.
RECIPE=1

CACHE=${GPU_OPERATOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpu-operator}/containerd
step() { printf '[containerd-binaries] %s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# --- containerd 1.6 from Debian: only the containerd binary of the package (no service, no runc).
debian() {
  local dir=$CACHE/debian
  local bin=$dir/bin/containerd
  if [ -x "$bin" ]; then
    echo "$("$bin" --version | awk '{print $3}') $bin"
    return 0
  fi
  mkdir -p "$dir/deb"
  step "downloading Debian's containerd package (about 25 MB)"
  (cd "$dir/deb" && apt-get -q download containerd 2>&1 | grep -v unsandboxed >&2) || true
  if ! ls "$dir"/deb/containerd_*.deb >/dev/null 2>&1; then
    apt-get -q update >&2 || true
    (cd "$dir/deb" && apt-get -q download containerd 2>&1 | grep -v unsandboxed >&2) || true
  fi
  local deb
  deb=$(ls "$dir"/deb/containerd_*.deb 2>/dev/null | head -n 1)
  if [ -z "$deb" ]; then
    step "WARNING: could not download Debian's containerd (run apt-get update?); its tests will skip"
    return 0
  fi
  rm -rf "$dir/root" && dpkg -x "$deb" "$dir/root" && mkdir -p "$dir/bin" &&
    mv "$dir/root/usr/bin/containerd" "$bin.tmp" && mv -f "$bin.tmp" "$bin"
  rm -rf "$dir/root" "$dir/deb"
  [ -x "$bin" ] && echo "$("$bin" --version | awk '{print $3}') $bin"
}

# --- containerd 2.x from Go modules: only cmd/containerd, without cgo-only snapshotters.
gomodules() {
  local dir=$CACHE/go-modules
  local bin=$dir/bin/containerd
  local stamp="containerd $CONTAINERD2_VERSION recipe $RECIPE"
  if [ -x "$bin" ] && [ "$(cat "$dir/bin/.complete" 2>/dev/null)" = "$stamp" ]; then
    echo "$CONTAINERD2_VERSION $bin"
    return 0
  fi
  PATH=$PATH:/usr/local/go/bin
  if ! command -v go >/dev/null; then
    step "WARNING: Go is not installed (looked on PATH and in /usr/local/go/bin); containerd $CONTAINERD2_VERSION tests will skip"
    return 0
  fi
  export GOTOOLCHAIN=${GOTOOLCHAIN:-local} CGO_ENABLED=0 GOFLAGS=-mod=mod
  export GOCACHE=$dir/go-build
  local m=$dir/src
  mkdir -p "$m" "$dir/bin"
  step "building containerd $CONTAINERD2_VERSION from Go modules (cold: a few minutes on 2 cores)"
  if [ ! -s "$m/go.sum" ] || [ "$(cat "$m/.resolved" 2>/dev/null)" != "$CONTAINERD2_VERSION" ]; then
    local modfile
    modfile=$(cd "$m" && go mod download -json "github.com/containerd/containerd/v2@$CONTAINERD2_VERSION" |
      sed -n 's/^\s*"GoMod": "\(.*\)",$/\1/p')
    if [ ! -s "$modfile" ]; then
      step "WARNING: could not download containerd $CONTAINERD2_VERSION from the Go module proxy; its tests will skip"
      return 0
    fi
    printf 'module gpu-operator.local/containerd-build\n\ngo %s\n\nrequire github.com/containerd/containerd/v2 %s\n' \
      "$(sed -n 's/^go //p' "$modfile")" "$CONTAINERD2_VERSION" >"$m/go.mod"
    rm -f "$m/go.sum"
    (cd "$m" && go get "github.com/containerd/containerd/v2/cmd/containerd@$CONTAINERD2_VERSION") >&2 || {
      step "WARNING: resolving containerd $CONTAINERD2_VERSION failed (see above); its tests will skip"
      return 0
    }
    echo "$CONTAINERD2_VERSION" >"$m/.resolved"
  fi
  local pkg=github.com/containerd/containerd/v2
  (cd "$m" && go build -trimpath -tags "no_btrfs no_devmapper no_zfs" \
    -ldflags "-s -w -X $pkg/version.Version=$CONTAINERD2_VERSION" \
    -o "$bin.tmp" "$pkg/cmd/containerd") >&2 || {
    step "WARNING: building containerd $CONTAINERD2_VERSION failed (see above); rerun to resume from the build cache"
    return 0
  }
  mv -f "$bin.tmp" "$bin"
  rm -rf "$GOCACHE"
  echo "$stamp" >"$dir/bin/.complete"
  step "built $("$bin" --version)"
  echo "$CONTAINERD2_VERSION $bin"
}

debian
gomodules
