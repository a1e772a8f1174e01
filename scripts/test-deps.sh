#!/usr/bin/env bash
# Fetches third-party files some tests use, into a cache (idempotent; never touches /etc/apt).
# Called by scripts/test.sh before Maven. A failed fetch is reported, not fatal: the tests that
# need the file skip with a message naming this script.
set -uo pipefail
CACHE=${GPU_OPERATOR_CACHE:-$HOME/.cache/gpu-operator}

# A private apt configuration under $1: the system's mirrors, suites and keyring plus the non-free
# component, with its own lists and cache, so the system's apt state is never changed. Prints the
# path of its apt.conf.
private_apt() {
  local a=$1
  mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/etc/sources.list.d" \
    "$a/etc/preferences.d"
  awk '/^Components:/{print "Components: main non-free non-free-firmware"; next} {print}' \
    /etc/apt/sources.list.d/debian.sources >"$a/etc/sources.list.d/nonfree.sources"
  cat >"$a/apt.conf" <<CONF
Dir::Etc::SourceList "/dev/null";
Dir::Etc::SourceParts "$a/etc/sources.list.d";
Dir::Etc::Preferences "/dev/null";
Dir::Etc::PreferencesParts "$a/etc/preferences.d";
Dir::State::Lists "$a/lists";
Dir::Cache "$a/cache";
CONF
  echo "$a/apt.conf"
}

# As private_apt, for the non-free component of another Debian suite $2 (e.g. trixie) on the
# system's first mirror: for a file only a newer release ships. Prints the path of its apt.conf.
private_apt_suite() {
  local a=$1 suite=$2 conf uri
  conf=$(private_apt "$a")
  uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  cat >"$a/etc/sources.list.d/nonfree.sources" <<SRC
Types: deb
URIs: ${uri:-http://deb.debian.org/debian}
Suites: $suite
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  echo "$conf"
}

# Downloads Debian packages ($3...) with the private apt configuration $1 into directory $2.
apt_download() {
  local conf=$1 into=$2
  shift 2
  mkdir -p "$into"
  (
    export APT_CONFIG=$conf
    apt-get -q update 2>&1 | grep -v unsandboxed >&2 &&
      cd "$into" && apt-get -q download "$@" 2>&1 | grep -v unsandboxed >&2
  ) || true
}

# Unpacks the newest downloaded .deb of package $2 from directory $1 into directory $3.
unpack() {
  local deb
  deb=$(ls "$1/$2"_*.deb 2>/dev/null | sort -V | tail -n 1)
  if [ -n "$deb" ]; then
    rm -rf "$3" && mkdir -p "$3" && dpkg -x "$deb" "$3"
  fi
}

# --- NVML from Debian non-free, for the node module's NVML tests: libnvidia-ml.so.1 (bookworm's
# libnvidia-ml1 535, NvmlLibraryTest) and nvml.h (trixie's libnvidia-ml-dev 12.4, NvmlBindingTest:
# bookworm's 11.8 header predates the fabric API the binding uses; every other check passes on both).
nvml() {
  local dir=$CACHE/nvml
  local lib=$dir/root/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.1
  local header=$dir/dev-trixie/usr/include/nvml.h
  if [ ! -e "$lib" ]; then
    apt_download "$(private_apt "$dir/apt")" "$dir/deb" libnvidia-ml1
    unpack "$dir/deb" libnvidia-ml1 "$dir/root"
  fi
  if [ ! -e "$header" ]; then
    apt_download "$(private_apt_suite "$dir/apt-trixie" trixie)" "$dir/deb-trixie" libnvidia-ml-dev
    unpack "$dir/deb-trixie" libnvidia-ml-dev "$dir/dev-trixie"
  fi
  if [ -e "$lib" ] && [ -e "$header" ]; then
    echo "[test-deps] NVML: $lib, $header" >&2
  else
    echo "[test-deps] WARNING: could not fetch libnvidia-ml1 (bookworm) or libnvidia-ml-dev (trixie); NVML tests will skip" >&2
  fi
}

# --- Prometheus, promtool and node-exporter from Debian main, for the exporter's component tests
# (ExporterPrometheusIT, PromtoolCheckTest, ExporterBenchmark): static Go binaries, run from the
# unpacked packages without installing them (about 30 MB of .debs, fetched once).
prometheus() {
  local dir=$CACHE/prometheus
  local bin=$dir/root/usr/bin
  if [ -x "$bin/prometheus" ] && [ -x "$bin/promtool" ] && [ -x "$dir/root/usr/bin/prometheus-node-exporter" ]; then
    echo "[test-deps] Prometheus: $bin" >&2
    return 0
  fi
  apt_download "$(private_apt "$dir/apt")" "$dir/deb" prometheus prometheus-node-exporter
  local tmp=$dir/unpack
  rm -rf "$tmp" "$dir/root" && mkdir -p "$dir/root/usr/bin"
  unpack "$dir/deb" prometheus "$tmp/prometheus"
  unpack "$dir/deb" prometheus-node-exporter "$tmp/node-exporter"
  for f in "$tmp"/prometheus/usr/bin/prometheus "$tmp"/prometheus/usr/bin/promtool \
    "$tmp"/node-exporter/usr/bin/prometheus-node-exporter; do
    [ -x "$f" ] && cp "$f" "$dir/root/usr/bin/"
  done
  rm -rf "$tmp"
  if [ -x "$bin/prometheus" ] && [ -x "$bin/promtool" ] && [ -x "$bin/prometheus-node-exporter" ]; then
    echo "[test-deps] Prometheus: $bin ($("$bin/prometheus" --version 2>&1 | head -n 1))" >&2
  else
    echo "[test-deps] WARNING: could not fetch prometheus/prometheus-node-exporter; the exporter's Prometheus tests will skip" >&2
  fi
}

# --- The CDI JSON schema (draft-07, schema.json and defs.json) from Debian's container-device-interface
# Go source package, for the CDI spec tests (CdiGenerateTest, CdiSpecModelTest): only the package's
# files, nothing is installed (about 100 kB).
cdi_schema() {
  local dir=$CACHE/cdi-schema
  local pkg=golang-github-container-orchestrated-devices-container-device-interface-dev
  local schema=$dir/root/usr/share/gocode/src/github.com/container-orchestrated-devices/container-device-interface/schema/schema.json
  if [ -e "$schema" ]; then
    echo "[test-deps] CDI schema: $schema" >&2
    return 0
  fi
  apt_download "$(private_apt "$dir/apt")" "$dir/deb" "$pkg"
  unpack "$dir/deb" "$pkg" "$dir/root"
  rm -rf "$dir/deb" "$dir/apt"
  if [ -e "$schema" ]; then
    echo "[test-deps] CDI schema: $schema" >&2
  else
    echo "[test-deps] WARNING: could not fetch $pkg; the CDI schema tests will skip (fail under CI=true)" >&2
  fi
}

# --- containerd 1.6 from Debian, for the toolkit's component tests (ContainerdComponentTest runs its
# `config dump`, no daemon): only the containerd binary of the package (about 26 MB download, 48 MB
# kept); no service, no runc. containerd 2.x is built from Go modules by scripts/containerd-binaries.sh.
containerd_debian() {
  local dir=$CACHE/containerd/debian
  local bin=$dir/bin/containerd
  if [ -x "$bin" ]; then
    echo "[test-deps] containerd: $bin" >&2
    return 0
  fi
  apt_download "$(private_apt "$dir/apt")" "$dir/deb" containerd
  unpack "$dir/deb" containerd "$dir/root"
  if [ -x "$dir/root/usr/bin/containerd" ]; then
    mkdir -p "$dir/bin" && mv "$dir/root/usr/bin/containerd" "$bin.tmp" && mv -f "$bin.tmp" "$bin"
  fi
  rm -rf "$dir/root" "$dir/deb" "$dir/apt"
  if [ -x "$bin" ]; then
    echo "[test-deps] containerd: $bin ($("$bin" --version | awk '{print $3}'))" >&2
  else
    echo "[test-deps] WARNING: could not fetch Debian's containerd; its toolkit component tests will skip (fail under CI=true)" >&2
  fi
}

# Caches files of Go module $2 (path@version, from the Go module proxy) in folder $1: each argument
# after $4, SRC:DEST, copies SRC (a file or folder of the module) to $1/DEST. Kept once the first
# DEST exists. $3 names the files for the log; $4 the tests that skip without them.
go_module_files() {
  local dir=$1 module=$2 what=$3 tests=$4
  shift 4
  local first=${1#*:} src pair
  if [ -e "$dir/$first" ]; then
    echo "[test-deps] $what: $dir/$first" >&2
    return 0
  fi
  src=$(PATH=$PATH:/usr/local/go/bin GOFLAGS=-mod=mod go mod download -json "$module" 2>/dev/null |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  if [ -n "$src" ] && [ -e "$src/${1%%:*}" ] && rm -rf "$dir.tmp"; then
    for pair in "$@"; do
      mkdir -p "$(dirname "$dir.tmp/${pair#*:}")" && cp -r "$src/${pair%%:*}" "$dir.tmp/${pair#*:}"
    done
    chmod -R u+w "$dir.tmp" && rm -rf "$dir" && mv "$dir.tmp" "$dir"
    echo "[test-deps] $what: $dir/$first" >&2
  else
    echo "[test-deps] WARNING: could not download $module; $tests will skip (fail under CI=true)" >&2
  fi
}

# --- The original chart's own values.yaml (NVIDIA/gpu-operator deployments/gpu-operator, from its Go
# module at the version pinned in k8s-versions.env), for ChartOriginalValuesTest and
# ChartOriginalValuesIT: that file must render and install unchanged.
# shellcheck source=k8s-versions.env
ORIGINAL_CHART_VERSION=$(. "$(dirname "${BASH_SOURCE[0]}")/k8s-versions.env" && echo "$ORIGINAL_OPERATOR_VERSION")
original_chart() {
  go_module_files "$CACHE/original-chart/$ORIGINAL_CHART_VERSION" \
    "github.com/NVIDIA/gpu-operator@$ORIGINAL_CHART_VERSION" "the original chart's values.yaml" \
    "the tests of its values.yaml" deployments/gpu-operator/values.yaml:values.yaml
}

# --- OLM's own CRDs (ClusterServiceVersion, OperatorGroup, Subscription ...), the crds/ folder of the
# github.com/operator-framework/api Go module (Apache-2.0, its LICENSE alongside) at the version
# pinned in k8s-versions.env, for OlmBundleIT: it installs them on the control plane and creates
# the OLM bundle there.
# shellcheck source=k8s-versions.env
OLM_API_VERSION=$(. "$(dirname "${BASH_SOURCE[0]}")/k8s-versions.env" && echo "$OLM_API_VERSION")
olm_crds() {
  go_module_files "$CACHE/olm-api/$OLM_API_VERSION" \
    "github.com/operator-framework/api@$OLM_API_VERSION" "OLM's CRDs" OlmBundleIT \
    crds:crds LICENSE:LICENSE
}

# --- operator-verify, OLM's bundle validator (cmd/operator-verify of the same github.com/operator-
# framework/api version), built once with go install (about 2.5 minutes on 2 cores with the modules
# cached; 50 MB), for OlmBundleVerifyTest.
olm_verify() {
  local dir=$CACHE/olm-verify/$OLM_API_VERSION
  if [ -x "$dir/operator-verify" ]; then
    echo "[test-deps] operator-verify: $dir/operator-verify" >&2
    return 0
  fi
  rm -rf "$dir.tmp"
  if PATH=$PATH:/usr/local/go/bin GOTOOLCHAIN=${GOTOOLCHAIN:-local} CGO_ENABLED=0 GOFLAGS=-mod=mod \
    GOBIN=$dir.tmp go install "github.com/operator-framework/api/cmd/operator-verify@$OLM_API_VERSION" >&2 &&
    [ -x "$dir.tmp/operator-verify" ]; then
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
    echo "[test-deps] operator-verify: $dir/operator-verify" >&2
  else
    echo "[test-deps] WARNING: could not build operator-verify $OLM_API_VERSION; OlmBundleVerifyTest will skip (fail under CI=true)" >&2
  fi
}

# --- NVIDIA's original GPU Operator, built from its Go module at the same pinned version by
# scripts/original-operator.sh, for the migration test (cli's MigrationIT); cold 7.5 minutes on
# 2 cores, cached under $CACHE/original-operator/<version>.
original_operator() {
  "$(dirname "${BASH_SOURCE[0]}")/original-operator.sh" >/dev/null ||
    echo "[test-deps] WARNING: could not build NVIDIA's operator; MigrationIT will skip (fail under CI=true)" >&2
}

nvml
prometheus
cdi_schema
original_chart
olm_crds
olm_verify
containerd_debian
original_operator
"$(dirname "${BASH_SOURCE[0]}")/containerd-binaries.sh" >&2 || true
