#!/usr/bin/env bash
# Builds (once) the real Kubernetes control plane the tests and the simulator run against:
# etcd from Debian, and kube-apiserver / kube-controller-manager / kube-scheduler v1.20.2 built from
# Debian bookworm's `kubernetes` source package. The result is cached; a complete cache returns at once.
#
#   scripts/k8s-binaries.sh            # prints the cache directory on its last line
#   GPU_OPERATOR_K8S_DIR=/some/dir scripts/k8s-binaries.sh
#
# Never touches /etc/apt: the source download uses a private apt configuration under the cache.
set -euo pipefail

K8S_VERSION=v1.20.2
# Bump when the build recipe changes, so caches built by an older recipe are rebuilt.
RECIPE=2
CACHE=${GPU_OPERATOR_K8S_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpu-operator/k8s/$K8S_VERSION}
BIN=$CACHE/bin
BINARIES=(kube-apiserver kube-controller-manager kube-scheduler)

step() { printf '[k8s-binaries] %s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

complete() {
  [ -x "$BIN/etcd" ] || return 1
  for b in "${BINARIES[@]}"; do [ -x "$BIN/$b" ] || return 1; done
  [ "$(cat "$BIN/.complete" 2>/dev/null)" = "recipe $RECIPE" ] || return 1
}

if complete; then
  step "cache complete in $BIN"
  echo "$BIN"
  exit 0
fi

if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null; then
  echo "k8s-binaries: installing build packages needs root (apt-get); run as root or install:" \
    "etcd-server golang-go rsync openssl golang-github-modern-go-reflect2-dev golang-github-json-iterator-go-dev" >&2
  exit 1
fi
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo

PKGS=(etcd-server golang-go rsync openssl golang-github-modern-go-reflect2-dev golang-github-json-iterator-go-dev)
missing=()
for p in "${PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  step "1/5 apt-get install ${missing[*]}"
  $SUDO apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}" >&2
else
  step "1/5 build packages already installed"
fi

mkdir -p "$BIN"
ETCD=$(command -v etcd || echo /usr/bin/etcd)
ln -sfn "$ETCD" "$BIN/etcd"

W=$CACHE/src
mkdir -p "$W/apt/lists/partial" "$W/apt/cache/archives/partial"
cd "$W"
if ! ls kubernetes_*.orig.tar.gz >/dev/null 2>&1; then
  step "2/5 downloading Debian's kubernetes source package (private apt config in $W/apt)"
  URI=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$URI" ] || URI=http://deb.debian.org/debian
  echo "deb-src $URI bookworm main" > apt/sources.list
  APTO=(-o "Dir::Etc::SourceList=$W/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
        -o "Dir::State::Lists=$W/apt/lists" -o "Dir::Cache=$W/apt/cache")
  apt-get "${APTO[@]}" update -q >&2
  apt-get "${APTO[@]}" source --download-only kubernetes >&2
else
  step "2/5 source package already downloaded"
fi

TREE=$(ls -d kubernetes-1.20.*/ 2>/dev/null | head -1 || true)
if [ -z "$TREE" ]; then
  step "3/5 unpacking the source tree and replacing vendored reflect2/json-iterator"
  tar xzf kubernetes_*.orig.tar.gz
  TREE=$(ls -d kubernetes-1.20.*/ | head -1)
  # The vendored reflect2 1.0.1 crashes the apiserver (SIGSEGV) on the first server-side apply when
  # built with Go >= 1.18; Debian's newer reflect2 and json-iterator sources fix it.
  for p in github.com/modern-go/reflect2 github.com/json-iterator/go; do
    find "$TREE/vendor/$p" -maxdepth 1 -type f \( -name '*.go' -o -name '*.s' \) -delete
    for f in /usr/share/gocode/src/$p/*.go /usr/share/gocode/src/$p/*.s; do
      [ -f "$f" ] && [[ "$f" != *_test.go ]] && cp "$f" "$TREE/vendor/$p/"
    done
  done
else
  step "3/5 source tree already unpacked"
fi
# Go >= 1.18 made reflect.DeepEqual(reflect.Zero(T), reflect.ValueOf(v)) true for zero values, so the
# vendored OpenAPI validators treat "" (and 0, false) in custom resources as null and reject them
# ("must be of type string"). Built with Go 1.15, as upstream shipped it, only nil counted as null;
# restore exactly that (the same fix kube-openapi made later).
for f in "$TREE/vendor/k8s.io/kube-openapi/pkg/validation/validate/type.go" \
         "$TREE/vendor/github.com/go-openapi/validate/type.go"; do
  sed -i 's/if data == nil || reflect.DeepEqual(reflect.Zero(reflect.TypeOf(data)), reflect.ValueOf(data)) {/if data == nil {/' "$f"
  grep -q 'if data == nil {$' "$f" || { echo "k8s-binaries: could not patch $f" >&2; exit 1; }
done
cd "$TREE"

step "4/5 building ${BINARIES[*]} (about 5 minutes on 2 cores)"
export GOPATH=$PWD/.go CGO_ENABLED=0 GOPROXY=off GOFLAGS=
mkdir -p .go/src/k8s.io
ln -sfn ../../.. .go/src/k8s.io/kubernetes
HOME=$W KUBE_GIT_VERSION=$K8S_VERSION KUBE_GIT_TREE_STATE=clean \
  make WHAT="cmd/kube-apiserver cmd/kube-controller-manager cmd/kube-scheduler" >&2

step "5/5 installing into $BIN"
for b in "${BINARIES[@]}"; do
  install -m 0755 "_output/bin/$b" "$BIN/$b.tmp"
  mv -f "$BIN/$b.tmp" "$BIN/$b"
  "$BIN/$b" --version >&2
done
# The build tree is 2 GB; only the binaries are needed from now on.
if [ "${GPU_OPERATOR_K8S_KEEP_SRC:-}" != 1 ]; then
  rm -rf "$W/$TREE/_output/local" "$W/$TREE/.go"
fi
echo "recipe $RECIPE" > "$BIN/.complete"
step "done"
echo "$BIN"
