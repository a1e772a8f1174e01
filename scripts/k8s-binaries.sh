#!/usr/bin/env bash
# Builds (once) the real Kubernetes control plane the tests and the simulator run against, from Go
# modules with the machine's Go: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and
# kubectl. No source patches; every binary is version-stamped, so `--version` and the API server's
# discovery report the real version. The result is cached per version and recipe; a complete cache
# returns at once.
#
#   scripts/k8s-binaries.sh            # prints the binaries' directory on its last line
#   GPU_OPERATOR_K8S_DIR=/some/dir scripts/k8s-binaries.sh
#
# Binaries you already have (the envtest convention, or our own variable) are used as they are and
# nothing is built: KUBEBUILDER_ASSETS or GPU_OPERATOR_K8S_BIN, a folder with etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler and kubectl.
set -euo pipefail

# The versions, pinned here only (the Java side reads them from scripts/k8s-versions.env).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=k8s-versions.env
. "$ROOT/scripts/k8s-versions.env"
# Bump when the build recipe changes, so caches built by an older recipe are rebuilt.
RECIPE=1
BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl)

step() { printf '[k8s-binaries] %s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
fail() { printf 'k8s-binaries: %s\n' "$*" >&2; exit 1; }

# --- Binaries given by the user: use them, build nothing.
for var in GPU_OPERATOR_K8S_BIN KUBEBUILDER_ASSETS; do
  dir=${!var:-}
  [ -n "$dir" ] || continue
  missing=()
  for b in "${BINARIES[@]}"; do [ -x "$dir/$b" ] || missing+=("$b"); done
  [ ${#missing[@]} -eq 0 ] ||
    fail "$var=$dir lacks ${missing[*]} (it needs ${BINARIES[*]}, executable); unset it to build them"
  step "using the binaries in $var=$dir (nothing built)"
  (cd "$dir" && pwd)
  exit 0
done

CACHE=${GPU_OPERATOR_K8S_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpu-operator/k8s/$K8S_VERSION-etcd$ETCD_VERSION}
BIN=$CACHE/bin
STAMP="k8s $K8S_VERSION etcd $ETCD_VERSION recipe $RECIPE"

complete() {
  for b in "${BINARIES[@]}"; do [ -x "$BIN/$b" ] || return 1; done
  [ "$(cat "$BIN/.complete" 2>/dev/null)" = "$STAMP" ]
}

if complete; then
  step "cache complete in $BIN"
  echo "$BIN"
  exit 0
fi

# shellcheck source=lib/go-modules.sh
. "$ROOT/scripts/lib/go-modules.sh"
go_check "KUBEBUILDER_ASSETS (or GPU_OPERATOR_K8S_BIN)"
export GOCACHE=$CACHE/go-build
mkdir -p "$BIN" "$CACHE/src"

# --- Kubernetes: a throwaway module (lib/go-modules.sh).
K=$CACHE/src/kubernetes
step "1/4 resolving k8s.io/kubernetes $K8S_VERSION and its staging modules (module proxy; once)"
k8s_module "$K" kube-apiserver kube-controller-manager kube-scheduler kubectl
ldflags=$(k8s_ldflags)

step "2/4 building kube-apiserver kube-controller-manager kube-scheduler kubectl $K8S_VERSION (cold: about 20 minutes on 2 cores)"
(cd "$K" && go build -trimpath -ldflags "$ldflags" -o "$CACHE/src/out/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl) >&2 ||
  fail "building Kubernetes $K8S_VERSION failed (see above); rerun to resume from the build cache"

# --- etcd: its server module holds the main package; a throwaway module keeps its own dependency
# versions apart from Kubernetes'.
E=$CACHE/src/etcd
step "3/4 resolving and building etcd $ETCD_VERSION"
module_of "$E" go.etcd.io/etcd/server/v3 "$ETCD_VERSION" go.etcd.io/etcd/server/v3
(cd "$E" && go build -trimpath -ldflags "-s -w" -o "$CACHE/src/out/etcd" go.etcd.io/etcd/server/v3) >&2 ||
  fail "building etcd $ETCD_VERSION failed (see above)"

step "4/4 installing into $BIN"
for b in "${BINARIES[@]}"; do
  install -m 0755 "$CACHE/src/out/$b" "$BIN/$b.tmp"
  mv -f "$BIN/$b.tmp" "$BIN/$b"
done
"$BIN/kube-apiserver" --version >&2
"$BIN/kubectl" version --client >&2
# sed reads to the end: head would quit early and, under pipefail, etcd's SIGPIPE (141) would fail the build.
"$BIN/etcd" --version | sed -n 1p >&2
"$BIN/kube-apiserver" --version | grep -qx "Kubernetes $K8S_VERSION" ||
  fail "kube-apiserver does not report $K8S_VERSION (version stamping failed)"
# The build cache is 2-3 GB; the resolved modules stay in GOMODCACHE for a rebuild.
if [ "${GPU_OPERATOR_K8S_KEEP_BUILD_CACHE:-}" != 1 ]; then
  rm -rf "$GOCACHE" "$CACHE/src/out"
fi
echo "$STAMP" >"$BIN/.complete"
step "done"
echo "$BIN"
