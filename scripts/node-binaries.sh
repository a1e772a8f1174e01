#!/usr/bin/env bash
# Builds (once) what a real node runs beside the control plane, for the real-node suite
# (scripts/real-node.sh, RealNodeE2EIT): the kubelet of the control plane's Kubernetes version, and
# containerd, containerd-shim-runc-v2 and ctr, all from Go modules with the machine's Go and
# without cgo; installs Debian's runc, CNI plugins (bridge, host-local, loopback) and iptables when
# they are missing. Needs root: the packages are installed system-wide, and nothing else can run
# the node. Also the pod sandbox ("pause") image, from the pause.c of the same Kubernetes module,
# compiled static with gcc and packed as an OCI archive (nothing can be pulled here), and a
# workload image for the suite's own pods: Debian's busybox-static (a shell, wget, nc, ls). Cached per
# version and recipe under ~/.cache/gpu-operator/node/; a complete cache returns at once. Cold:
# about 5 minutes for the kubelet and 2 for containerd on 2 cores.
#
#   scripts/node-binaries.sh     # prints the binaries' directory on its last line
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=k8s-versions.env
. "$ROOT/scripts/k8s-versions.env"
# shellcheck source=lib/go-modules.sh
. "$ROOT/scripts/lib/go-modules.sh"
# Bump when the build recipe changes, so caches built by an older recipe are rebuilt.
RECIPE=1
BINARIES=(kubelet containerd containerd-shim-runc-v2 ctr)
# The sandbox image the node's containerd pins (its name is written beside the archive, in
# pause.image, for scripts/real-node.sh).
PAUSE_IMAGE=gpu-operator.local/pause:$K8S_VERSION
BUSYBOX_IMAGE=gpu-operator.local/busybox:debian

step() { printf '[node-binaries] %s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
fail() { printf 'node-binaries: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "a real node needs root (the kubelet, containerd and runc manage mounts,
  cgroups and network namespaces, and Debian's runc and CNI plugins are installed system-wide); run it
  as root, e.g. sudo -E $0"

# --- Debian: runc, the CNI plugins and iptables, installed when missing.
need=()
command -v runc >/dev/null || need+=(runc)
[ -x /usr/lib/cni/bridge ] && [ -x /usr/lib/cni/host-local ] && [ -x /usr/lib/cni/loopback ] ||
  need+=(containernetworking-plugins)
command -v iptables >/dev/null || need+=(iptables)
command -v umoci >/dev/null || need+=(umoci)
command -v skopeo >/dev/null || need+=(skopeo)
command -v gcc >/dev/null && [ -e /usr/lib/x86_64-linux-gnu/libc.a ] || need+=(gcc libc6-dev)
if [ ${#need[@]} -gt 0 ]; then
  step "installing ${need[*]} (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${need[@]}" >&2 ||
    { apt-get update -q >&2 && apt-get install -y -q --no-install-recommends "${need[@]}" >&2; } ||
    fail "could not install ${need[*]} from Debian's archive (see above)"
fi

CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/gpu-operator/node/kubelet$K8S_VERSION-containerd$CONTAINERD_VERSION
BIN=$CACHE/bin
STAMP="kubelet $K8S_VERSION containerd $CONTAINERD_VERSION recipe $RECIPE"
complete() {
  for b in "${BINARIES[@]}"; do [ -x "$BIN/$b" ] || return 1; done
  [ -s "$BIN/pause.oci.tar" ] && [ -s "$BIN/pause.image" ] && [ -s "$BIN/busybox.oci.tar" ] || return 1
  [ "$(cat "$BIN/.complete" 2>/dev/null)" = "$STAMP" ]
}
if complete; then
  step "cache complete in $BIN"
  echo "$BIN"
  exit 0
fi

# A cache of an older recipe is rebuilt whole; an interrupted build keeps the parts it finished.
if [ -s "$BIN/.complete" ]; then
  rm -rf "$BIN"
fi
go_check "a cache built elsewhere ($CACHE)"
mkdir -p "$BIN" "$CACHE/out"

# --- kubelet: the control plane's throwaway-module recipe (lib/go-modules.sh), its own build cache.
if [ "$("$BIN/kubelet" --version 2>/dev/null)" != "Kubernetes $K8S_VERSION" ]; then
  step "kubelet $K8S_VERSION (cold: about 5 minutes on 2 cores)"
  k8s_module "$CACHE/src/kubernetes" kubelet
  (cd "$CACHE/src/kubernetes" && GOCACHE=$CACHE/go-build go build -trimpath \
    -ldflags "$(k8s_ldflags)" -o "$CACHE/out/kubelet" k8s.io/kubernetes/cmd/kubelet) >&2 ||
    fail "building the kubelet $K8S_VERSION failed (see above); rerun to resume from the build cache"
  "$CACHE/out/kubelet" --version | grep -qx "Kubernetes $K8S_VERSION" ||
    fail "the kubelet does not report $K8S_VERSION (version stamping failed)"
  install -m 0755 "$CACHE/out/kubelet" "$BIN/kubelet"
fi

# --- containerd, its runc shim and ctr: one build of the three commands of one module.
if ! "$BIN/containerd" --version 2>/dev/null | grep -q " $CONTAINERD_VERSION " ||
  [ ! -x "$BIN/containerd-shim-runc-v2" ] || [ ! -x "$BIN/ctr" ]; then
  C=$CACHE/src/containerd
  pkg=github.com/containerd/containerd/v2/cmd
  module_of "$C" github.com/containerd/containerd/v2 "$CONTAINERD_VERSION" \
    "$pkg/containerd" "$pkg/containerd-shim-runc-v2" "$pkg/ctr"
  step "containerd, containerd-shim-runc-v2 and ctr $CONTAINERD_VERSION (cold: about 2 minutes)"
  pkg=github.com/containerd/containerd/v2
  (cd "$C" && GOCACHE=$CACHE/go-build go build -trimpath -tags "no_btrfs no_devmapper no_zfs" \
    -ldflags "-s -w -X $pkg/version.Version=$CONTAINERD_VERSION" -o "$CACHE/out/" \
    "$pkg/cmd/containerd" "$pkg/cmd/containerd-shim-runc-v2" "$pkg/cmd/ctr") >&2 ||
    fail "building containerd $CONTAINERD_VERSION failed (see above); rerun to resume from the build cache"
  for b in containerd containerd-shim-runc-v2 ctr; do install -m 0755 "$CACHE/out/$b" "$BIN/$b"; done
fi

# --- Images, each a one-layer OCI archive `ctr images import` takes: $1 name, $2 a folder to
# become its root filesystem, $3 user, $4... entrypoint.
oci_archive() {
  local name=$1 rootfs=$2 user=$3 out=$4
  shift 4
  local w
  w=$(mktemp -d "${TMPDIR:-/tmp}/gpu-operator-oci.XXXXXX")
  umoci init --layout "$w/oci" >&2
  umoci new --image "$w/oci:img" >&2
  umoci unpack --image "$w/oci:img" "$w/bundle" >/dev/null
  cp -a "$rootfs/." "$w/bundle/rootfs/"
  umoci repack --image "$w/oci:img" "$w/bundle" >&2
  local entry=()
  for a in "$@"; do entry+=(--config.entrypoint "$a"); done
  umoci config --image "$w/oci:img" --config.user "$user" "${entry[@]}" >&2
  umoci gc --layout "$w/oci" >&2
  rm -f "$out"
  skopeo copy --quiet "oci:$w/oci:img" "oci-archive:$out:$name" >&2
  rm -rf "$w"
}
P=$(mktemp -d "${TMPDIR:-/tmp}/gpu-operator-images.XXXXXX")
trap 'rm -rf "$P"' EXIT

# The sandbox image: Kubernetes' pause.c of the same module, static (user 65535, as upstream's).
if [ ! -s "$BIN/pause.oci.tar" ] || [ "$(cat "$BIN/pause.image" 2>/dev/null)" != "$PAUSE_IMAGE" ]; then
  step "pause image $PAUSE_IMAGE"
  k8s_module "$CACHE/src/kubernetes" kubelet
  src=$(cd "$CACHE/src/kubernetes" && go list -m -f '{{.Dir}}' k8s.io/kubernetes)/build/pause/linux/pause.c
  [ -s "$src" ] || fail "no build/pause/linux/pause.c in the k8s.io/kubernetes $K8S_VERSION module"
  mkdir -p "$P/pause"
  gcc -Os -Wall -Werror -static -DVERSION="$K8S_VERSION-gpu-operator" -o "$P/pause/pause" "$src" >&2 ||
    fail "compiling $src failed (see above)"
  oci_archive "$PAUSE_IMAGE" "$P/pause" 65535:65535 "$CACHE/out/pause.oci.tar" /pause
  install -m 0644 "$CACHE/out/pause.oci.tar" "$BIN/pause.oci.tar"
  echo "$PAUSE_IMAGE" >"$BIN/pause.image"
fi

# The suite's workload image: busybox from Debian's busybox-static, its applets as links.
if [ ! -s "$BIN/busybox.oci.tar" ]; then
  step "workload image $BUSYBOX_IMAGE (Debian busybox-static)"
  (cd "$P" && apt-get download busybox-static >&2) ||
    { apt-get update -q >&2 && (cd "$P" && apt-get download busybox-static >&2); } ||
    fail "could not download busybox-static from Debian's archive"
  dpkg -x "$P"/busybox-static_*.deb "$P/bb"
  mkdir -p "$P/busybox/bin" "$P/busybox/tmp"
  install -m 0755 "$P/bb/bin/busybox" "$P/busybox/bin/busybox"
  for a in $("$P/busybox/bin/busybox" --list); do
    [ "$a" = busybox ] || ln -s busybox "$P/busybox/bin/$a"
  done
  chmod 1777 "$P/busybox/tmp"
  oci_archive "$BUSYBOX_IMAGE" "$P/busybox" 0:0 "$CACHE/out/busybox.oci.tar" /bin/sh
  install -m 0644 "$CACHE/out/busybox.oci.tar" "$BIN/busybox.oci.tar"
fi

"$BIN/containerd" --version >&2
# The build cache is about 2 GB; the resolved modules stay in GOMODCACHE for a rebuild.
rm -rf "$CACHE/go-build" "$CACHE/out"
echo "$STAMP" >"$BIN/.complete"
step "done"
echo "$BIN"
