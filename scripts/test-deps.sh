#!/usr/bin/env bash
# Fetches third-party files some tests use, into a cache (idempotent; never touches /etc/apt).
# Called by scripts/test.sh before Maven. A failed fetch is reported, not fatal: the tests that
# need the file skip with a message naming this script.
set -uo pipefail
CACHE=${GPU_OPERATOR_CACHE:-$HOME/.cache/gpu-operator}

# --- libnvidia-ml.so.1 (NVML) from Debian non-free, for the node module's NvmlLibraryTest.
nvml() {
  local dir=$CACHE/nvml
  local lib=$dir/root/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.1
  if [ -e "$lib" ]; then
    echo "[test-deps] libnvidia-ml: $lib" >&2
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
      cd "$dir/deb" && apt-get -q download libnvidia-ml1 >&2 2>&1 | grep -v unsandboxed >&2
  ) || true
  local deb
  deb=$(ls "$dir"/deb/libnvidia-ml1_*.deb 2>/dev/null | head -n 1)
  if [ -z "$deb" ]; then
    echo "[test-deps] WARNING: could not download libnvidia-ml1; NVML tests will skip" >&2
    return 0
  fi
  rm -rf "$dir/root" && dpkg -x "$deb" "$dir/root"
  echo "[test-deps] libnvidia-ml: $lib (from $(basename "$deb"))" >&2
}

nvml
