# Shared by the scripts that build test infrastructure from Go modules (k8s-binaries.sh,
# node-binaries.sh): the machine's Go, and the throwaway module that builds Kubernetes commands.
# Sourced, never run; the caller defines step() and fail() and has sourced k8s-versions.env.

# The machine's own Go, new enough for the pinned modules, no toolchain switch; exports the build
# environment (no cgo, modules resolved as needed). $1 names what is built, for the error.
go_check() {
  PATH=$PATH:/usr/local/go/bin
  command -v go >/dev/null || fail "Go is not installed (looked on PATH and in /usr/local/go/bin).
  Ways out: install Go $GO_MIN or newer at /usr/local/go; or point $1 at prebuilt binaries."
  local have
  have=$(go env GOVERSION | sed 's/^go//')
  if [ "$(printf '%s\n%s\n' "$GO_MIN" "$have" | sort -V | head -n 1)" != "$GO_MIN" ]; then
    fail "Go $have is too old: the pinned modules need Go $GO_MIN or newer.
  Ways out: install Go $GO_MIN+ at /usr/local/go; or export GOTOOLCHAIN=go$GO_MIN or a newer release (Go
  1.21+ then fetches that toolchain through the module proxy); or point $1 at prebuilt binaries."
  fi
  export GOTOOLCHAIN=${GOTOOLCHAIN:-local} CGO_ENABLED=0 GOFLAGS=-mod=mod
}

# Makes $1 a module that requires k8s.io/kubernetes $K8S_VERSION and replaces every staging module
# k8s.io/kubernetes' own go.mod points at ./staging with the published v0.<minor>.<patch> module,
# then resolves the commands $2... (k8s.io/kubernetes/cmd/<name>). Kept while the version and the
# command list stay the same.
k8s_module() {
  local dir=$1
  shift
  local want="$K8S_VERSION $*"
  mkdir -p "$dir"
  resolved_for "$dir" "$want" && return 0
  local modfile
  modfile=$(downloaded_go_mod "$dir" k8s.io/kubernetes "$K8S_VERSION") || exit 1
  local staging_version=v0.${K8S_VERSION#v1.}
  {
    echo "module gpu-operator.local/k8s-build"
    echo
    echo "go $(sed -n 's/^go //p' "$modfile")"
    echo
    echo "require k8s.io/kubernetes $K8S_VERSION"
    echo
    sed -n 's#^\s*\(k8s.io/[^ ]*\) => \./staging/.*#replace \1 => \1 '"$staging_version"'#p' "$modfile"
  } >"$dir/go.mod"
  local pkgs=() c
  for c in "$@"; do pkgs+=("k8s.io/kubernetes/cmd/$c@$K8S_VERSION"); done
  resolve "$dir" "$want" "the Kubernetes modules" "${pkgs[@]}"
}

# Makes $1 a module that requires module $2 at version $3 (keeping its dependencies apart from any
# other build's) and resolves the packages $4... of it. Kept while the version stays the same.
module_of() {
  local dir=$1 module=$2 version=$3
  shift 3
  mkdir -p "$dir"
  resolved_for "$dir" "$version" && return 0
  local modfile
  modfile=$(downloaded_go_mod "$dir" "$module" "$version") || exit 1
  printf 'module gpu-operator.local/%s-build\n\ngo %s\n\nrequire %s %s\n' \
    "$(basename "$dir")" "$(sed -n 's/^go //p' "$modfile")" "$module" "$version" >"$dir/go.mod"
  local pkgs=() p
  for p in "$@"; do pkgs+=("$p@$version"); done
  resolve "$dir" "$version" "$module $version" "${pkgs[@]}"
}

# The steps both kinds of throwaway module share. Whether the module in $1 was resolved for $2
# (its go.sum and the stamp that resolve leaves), so that it is kept as it is.
resolved_for() {
  [ -s "$1/go.sum" ] && [ "$(cat "$1/.resolved" 2>/dev/null)" = "$2" ]
}

# Downloads module $2 at version $3 (from the folder $1) and prints the path of that version's own
# go.mod in the module cache, which the throwaway module's go.mod is written from.
downloaded_go_mod() {
  local modfile
  modfile=$(cd "$1" && go mod download -json "$2@$3" |
    sed -n 's/^\s*"GoMod": "\(.*\)",$/\1/p')
  [ -s "$modfile" ] || fail "could not download $2@$3 from the Go module proxy ($(go env GOPROXY))"
  echo "$modfile"
}

# Resolves the packages $4... (path@version) in the module $1 from its go.mod alone, then stamps it
# as resolved for $2; $3 names what is resolved, for the error.
resolve() {
  local dir=$1 want=$2 what=$3
  shift 3
  rm -f "$dir/go.sum"
  (cd "$dir" && go get "$@") >&2 || fail "resolving $what failed (see above)"
  echo "$want" >"$dir/.resolved"
}

# The version stamps Kubernetes' own build (hack/lib/version.sh) writes, as -ldflags.
k8s_ldflags() {
  local minor=${K8S_VERSION#v1.}
  minor=${minor%%.*}
  local now pkg out=""
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    out+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    out+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$now"
  done
  echo "-s -w$out"
}
