#!/usr/bin/env bash
# Fetches third-party files some tests use, into a cache (idempotent; never touches /etc/apt).
# Called by scripts/test.sh before Maven. A failed fetch is reported, not fatal: the tests that
# need the file skip with a message naming this script.
set -uo pipefail
CACHE=${GPU_OPERATOR_CACHE:-$HOME/.cache/gpu-operator}

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
  local a=$dir/apt
  mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/etc/sources.list.d" \
    "$a/etc/preferences.d" "$dir/deb"
  # Same mirrors, suites and keyring as the system, plus the non-free component.
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
  (
    export APT_CONFIG=$a/apt.conf
    apt-get -q update >&2 &&
      cd "$dir/deb" && apt-get -q download libnvidia-ml1 libnvidia-ml-dev 2>&1 |
      grep -v unsandboxed >&2
  ) || true
  local deb
  deb=$(ls "$dir"/deb/libnvidia-ml1_*.deb 2>/dev/null | head -n 1)
  if [ -n "$deb" ]; then
    rm -rf "$dir/root" && dpkg -x "$deb" "$dir/root"
  fi
  deb=$(ls "$dir"/deb/libnvidia-ml-dev_*.deb 2>/dev/null | head -n 1)
  if [ -n "$deb" ]; then
    rm -rf "$dir/dev" && dpkg -x "$deb" "$dir/dev"
  fi
  if [ -e "$lib" ] && [ -e "$header" ]; then
    echo "[test-deps] NVML: $lib, $header" >&2
  else
    echo "[test-deps] WARNING: could not fetch libnvidia-ml1/libnvidia-ml-dev; NVML tests will skip" >&2
  fi
}

# --- The CDI JSON schema (draft-07) from Debian's container-device-interface Go source package, for
# the CDI spec tests (CdiSchemaTest): only the package's files, nothing is installed.
cdi_schema() {
  local dir=$CACHE/cdi-schema
  local schema=$dir/root/usr/share/gocode/src/github.com/container-orchestrated-devices/container-device-interface/schema/schema.json
  if [ -e "$schema" ]; then
    echo "[test-deps] CDI schema: $schema" >&2
    return 0
  fi
  local pkg=golang-github-container-orchestrated-devices-container-device-interface-dev
  mkdir -p "$dir/deb"
  (cd "$dir/deb" && apt-get -q download "$pkg" 2>&1 | grep -v unsandboxed >&2) || true
  if ! ls "$dir"/deb/"$pkg"_*.deb >/dev/null 2>&1; then
    apt-get -q update >&2 || true
    (cd "$dir/deb" && apt-get -q download "$pkg" 2>&1 | grep -v unsandboxed >&2) || true
  fi
  local deb
  deb=$(ls "$dir"/deb/"$pkg"_*.deb 2>/dev/null | head -n 1)
  if [ -n "$deb" ]; then
    rm -rf "$dir/root" && dpkg -x "$deb" "$dir/root"
  fi
  if [ -e "$schema" ]; then
    echo "[test-deps] CDI schema: $schema" >&2
  else
    echo "[test-deps] WARNING: could not fetch $pkg; the CDI schema test will skip" >&2
  fi
}

nvml
cdi_schema
# containerd 1.6 (Debian) and 2.x (built from Go modules) for the toolkit's component tests.
"$(dirname "${BASH_SOURCE[0]}")/containerd-binaries.sh" >&2 || true
