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

# --- NVML from Debian non-free, for the node module's NVML tests: libnvidia-ml.so.1 (libnvidia-ml1,
# NvmlLibraryTest) and nvml.h (libnvidia-ml-dev, NvmlBindingTest).
nvml() {
  local dir=$CACHE/nvml
  local lib=$dir/root/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.1
  local header=$dir/dev/usr/include/nvml.h
  if [ -e "$lib" ] && [ -e "$header" ]; then
    echo "[test-deps] NVML: $lib, $header" >&2
    return 0
  fi
  apt_download "$(private_apt "$dir/apt")" "$dir/deb" libnvidia-ml1 libnvidia-ml-dev
  unpack "$dir/deb" libnvidia-ml1 "$dir/root"
  unpack "$dir/deb" libnvidia-ml-dev "$dir/dev"
  if [ -e "$lib" ] && [ -e "$header" ]; then
    echo "[test-deps] NVML: $lib, $header" >&2
  else
    echo "[test-deps] WARNING: could not fetch libnvidia-ml1/libnvidia-ml-dev; NVML tests will skip" >&2
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

nvml
prometheus
