#!/usr/bin/env bash
# Builds the project image (operator and node agents, one jar) without a registry or a container
# daemon: a base root filesystem extracted from Debian packages (mmdebstrap), a JRE assembled with
# jlink, the jar and its launcher, assembled into an OCI image with umoci and written as an OCI
# archive with skopeo. Non-root (65532) by default.
#
#   scripts/image.sh            # builds cli/target/image/gpu-operator-<version>.oci.tar (+ oci/ layout)
#   scripts/image.sh --check    # ... then unpacks it and runs its entrypoint's --version as 65532
#   scripts/image.sh --check-only   # only the check, of the image built before
#
# The base root filesystem and the JRE are cached under ~/.cache/gpu-operator/image/, keyed by their
# inputs (deploy/image/packages, deploy/image/jre-modules, the JDK's version); a warm build only
# copies the jar in and repacks (well under a minute). Needs root (we are root on these machines;
# mmdebstrap and umoci unpack keep file owners) and installs mmdebstrap, umoci and skopeo with apt
# when missing. With a registry, the Dockerfile at the repository root builds the same image.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
CHECK=0
BUILD=1
case "${1:-}" in
  --check) CHECK=1 ;;
  --check-only) CHECK=1; BUILD=0 ;;
  "") ;;
  *) echo "usage: scripts/image.sh [--check|--check-only]" >&2; exit 2 ;;
esac

SUITE=${IMAGE_DEBIAN_SUITE:-bookworm}
CACHE=${GPU_OPERATOR_CACHE:-$HOME/.cache/gpu-operator}/image
OUT=$ROOT/cli/target/image
USER_ID=65532
log() { echo "[image $(date +%H:%M:%S)] $*" >&2; }
# Runs a command chrooted into a root filesystem as USER (uid:gid), in a private mount namespace
# with its own /proc and the host's /dev (both go away with it): the image's own JRE, as a
# runtime would run it.
in_rootfs() {
  local rootfs=$1 user=$2
  shift 2
  mkdir -p "$rootfs/proc" "$rootfs/dev"
  unshare --mount --fork bash -c '
    r=$1; u=$2; shift 2
    mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
      exec chroot --userspec="$u" "$r" "$@"' _ "$rootfs" "$user" "$@"
}

need=()
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
command -v umoci >/dev/null || need+=(umoci)
command -v skopeo >/dev/null || need+=(skopeo)
command -v jlink >/dev/null || need+=(openjdk-17-jdk-headless)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]} (apt-get)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >&2 \
    || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >&2; }
fi
mkdir -p "$CACHE" "$OUT"

JAR=$ROOT/cli/target/gpu-operator.jar
# The project's version, as the jar reports it (the first <version> of the root pom).
VERSION=$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' "$ROOT/pom.xml" | sed -n 1p)
TAG=$VERSION
# The reference the operator renders for its own image (api's operand-images.properties), so that
# importing the archive into a node's containerd gives the image the DaemonSets ask for.
REPO=$(sed -n 's/^project.image=\(.*\):.*/\1/p' api/src/main/resources/io/gpuoperator/api/operand-images.properties)
ARCHIVE=$OUT/gpu-operator-$VERSION.oci.tar
LAYOUT=$OUT/oci

if [ "$BUILD" = 1 ]; then
  t0=$(date +%s)
  # The jar: ./gpu-operator builds it when it is missing or older than the sources.
  "$ROOT/gpu-operator" version >/dev/null

  # 1. The base: Debian packages, extracted (no maintainer scripts run, no package manager, no
  #    shell beyond dash: a distroless-like root filesystem), cached by suite and package list.
  pkgs=$(grep -v '^#' deploy/image/packages | xargs | tr ' ' ',')
  base_key=$(printf '%s %s' "$SUITE" "$pkgs" | sha256sum | cut -c1-16)
  BASE=$CACHE/base-$SUITE-$base_key.tar
  if [ ! -s "$BASE" ]; then
    log "building the base root filesystem from Debian $SUITE ($pkgs) with mmdebstrap; cached in $BASE"
    SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000} mmdebstrap --quiet --variant=extract \
      --include="$pkgs" "$SUITE" "${BASE%.tar}.partial.tar" >&2
    mv "${BASE%.tar}.partial.tar" "$BASE"
  fi

  # 2. The JRE: jlink with the modules the jar needs, Java's own CDS archive, cached by JDK
  #    version and module list.
  jdk_version=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/ *java.runtime.version = //p')
  modules=$(grep -v '^#' deploy/image/jre-modules | xargs | tr ' ' ',')
  jre_key=$(printf '%s %s' "$jdk_version" "$modules" | sha256sum | cut -c1-16)
  JRE=$CACHE/jre-$jre_key
  if [ ! -x "$JRE/bin/java" ]; then
    log "assembling the JRE with jlink (JDK $jdk_version: $modules); cached in $JRE"
    rm -rf "$JRE.tmp"
    jlink --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
      --compress=2 --generate-cds-archive --output "$JRE.tmp" >&2
    # Debian's JDK links lib/security/cacerts to /etc/ssl/certs: the image has no such folder, so
    # the JRE gets the file itself (the trust store of this JDK).
    if [ -L "$JRE.tmp/lib/security/cacerts" ]; then
      cp --remove-destination "$(readlink -f /usr/lib/jvm/java-17-openjdk-amd64/lib/security/cacerts)" \
        "$JRE.tmp/lib/security/cacerts" 2>/dev/null || rm -f "$JRE.tmp/lib/security/cacerts"
    fi
    mv "$JRE.tmp" "$JRE"
  fi

  # 3. Assemble: umoci makes an empty image, the bundle's rootfs gets base + JRE + jar, repack
  #    makes it one layer, config sets entrypoint, user and labels.
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-operator-image.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
  log "assembling gpu-operator:$TAG"
  umoci init --layout "$WORK/oci"
  umoci new --image "$WORK/oci:$TAG"
  umoci unpack --image "$WORK/oci:$TAG" "$WORK/bundle" >/dev/null
  R=$WORK/bundle/rootfs
  tar -xf "$BASE" -C "$R"
  # Device nodes come from the runtime, never from a layer.
  find "$R/dev" -mindepth 1 -delete
  mkdir -p "$R/opt/gpu-operator/bin" "$R/tmp" "$R/home/nonroot"
  cp -a "$JRE" "$R/opt/java"
  cp "$JAR" "$R/opt/gpu-operator/gpu-operator.jar"
  install -m 0755 deploy/image/gpu-operator "$R/opt/gpu-operator/bin/gpu-operator"
  ln -sf /opt/gpu-operator/bin/gpu-operator "$R/usr/bin/gpu-operator"
  chmod 1777 "$R/tmp"
  chown "$USER_ID:$USER_ID" "$R/home/nonroot"
  # Users: root for the operands that must be privileged, nonroot (65532) for everything else.
  printf 'root:x:0:0:root:/root:/bin/sh\nnonroot:x:%s:%s:nonroot:/home/nonroot:/usr/sbin/nologin\n' \
    "$USER_ID" "$USER_ID" > "$R/etc/passwd"
  printf 'root:x:0:\nnonroot:x:%s:\n' "$USER_ID" > "$R/etc/group"
  cp LICENSE "$R/opt/gpu-operator/" 2>/dev/null || true
  # Class data sharing: the classes a start loads (deploy/image/classes.lst, from a training run of
  # scripts/cds-classlist.sh) parsed, verified and laid out once here, by the image's own JRE and
  # against the jar at its path in the image; every JVM of the image then maps them from the
  # archive (the launcher passes it when present). At 300 nodes this took the operator's CPU to
  # its first reconcile from about 4.0 to 2.9 s and its peak RSS 11 MiB lower (BENCHMARKS.md).
  # The JVM maps the archive only for a jar of the same size and modification time (in whole
  # seconds); the layer's tar rounds times to the nearest second, so the jar gets a whole second
  # first, or about half the builds would ship an archive that never maps.
  touch -d "@$(stat -c %Y "$R/opt/gpu-operator/gpu-operator.jar")" "$R/opt/gpu-operator/gpu-operator.jar"
  cp deploy/image/classes.lst "$R/tmp/classes.lst"
  in_rootfs "$R" 0:0 /opt/java/bin/java -Xshare:dump -XX:SharedClassListFile=/tmp/classes.lst \
      -XX:SharedArchiveFile=/opt/gpu-operator/gpu-operator.jsa -cp /opt/gpu-operator/gpu-operator.jar \
      > "$WORK/cds.log" 2>&1 || { cat "$WORK/cds.log" >&2; echo "FAIL: -Xshare:dump failed (above)" >&2; exit 1; }
  rm -f "$R/tmp/classes.lst"
  chmod 0644 "$R/opt/gpu-operator/gpu-operator.jsa"
  log "class-data-sharing archive: $(du -m "$R/opt/gpu-operator/gpu-operator.jsa" | cut -f1) MiB of $(grep -vc '^[#@]' deploy/image/classes.lst) listed classes ($(grep -c 'Skipping\|Preload Warning' "$WORK/cds.log") left out: see scripts/cds-classlist.sh)"
  # The rootfs is laid; drop what an extract-only base never uses.
  # (messages' translations and iconv's converters: Java has its own charsets and time zones).
  rm -rf "$R/usr/share/doc" "$R/usr/share/man" "$R/usr/share/info" "$R/usr/share/lintian" \
    "$R/usr/share/locale" "$R/usr/lib/x86_64-linux-gnu/gconv" "$R/var/cache/apt" "$R/var/lib/apt/lists"
  umoci repack --image "$WORK/oci:$TAG" "$WORK/bundle"
  umoci config --image "$WORK/oci:$TAG" \
    --config.user "$USER_ID:$USER_ID" \
    --config.entrypoint /opt/gpu-operator/bin/gpu-operator \
    --config.workingdir /home/nonroot \
    --config.env PATH=/opt/gpu-operator/bin:/opt/java/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --config.env JAVA_HOME=/opt/java \
    --config.label "org.opencontainers.image.title=gpu-operator" \
    --config.label "org.opencontainers.image.version=$VERSION" \
    --config.label "org.opencontainers.image.licenses=Apache-2.0" \
    --config.label "org.opencontainers.image.base.name=debian:$SUITE (extracted packages)"
  umoci gc --layout "$WORK/oci"
  rm -rf "$LAYOUT" "$ARCHIVE"
  cp -a "$WORK/oci" "$LAYOUT"
  skopeo copy --quiet "oci:$LAYOUT:$TAG" "oci-archive:$ARCHIVE:$REPO:$TAG"
  rm -rf "$WORK"
  trap - EXIT
  log "built $REPO:$TAG as $ARCHIVE ($(du -h "$ARCHIVE" | cut -f1) compressed, layout in $LAYOUT) in $(( $(date +%s) - t0 )) s"
  echo "$ARCHIVE"
fi

if [ "$CHECK" = 1 ]; then
  # Unpacks the archive as a runtime would and runs the entrypoint with --version as the image's
  # user, chrooted into the unpacked root filesystem.
  [ -s "$ARCHIVE" ] || { echo "no image at $ARCHIVE: run scripts/image.sh first" >&2; exit 1; }
  CW=$(mktemp -d "${TMPDIR:-/tmp}/gpu-operator-image-check.XXXXXX")
  trap 'rm -rf "$CW"' EXIT
  skopeo copy --quiet "oci-archive:$ARCHIVE" "oci:$CW/oci:check"
  umoci unpack --image "$CW/oci:check" "$CW/bundle" >/dev/null
  # The runtime spec umoci wrote: the user, the environment and the entrypoint, one per line.
  mapfile -t spec < <(python3 -c '
import json,sys
p=json.load(open(sys.argv[1]))["process"]
print("%d:%d" % (p["user"]["uid"], p["user"]["gid"]))
print(len(p.get("env", [])))
for e in p.get("env", []): print(e)
for a in p["args"]: print(a)' "$CW/bundle/config.json")
  user=${spec[0]}
  nenv=${spec[1]}
  envs=("${spec[@]:2:$nenv}")
  entry=("${spec[@]:$((2 + nenv))}")
  [ "${user%%:*}" != 0 ] || { echo "FAIL: the image runs as root by default" >&2; exit 1; }
  size=$(du -sb "$CW/bundle/rootfs" | cut -f1)
  log "unpacked: user $user, entrypoint '${entry[*]}', root filesystem $((size / 1024 / 1024)) MiB"
  # In a private mount namespace (its /proc and /dev mounts go away with it), as the image's
  # user: the entrypoint's --version, then one agent on the simulated backend (the JRE's modules
  # suffice for a real pass: YAML profiles, labels, an atomic file write) and the validator's shell
  # loop's tools.
  inimage() { in_rootfs "$CW/bundle/rootfs" "$user" /usr/bin/env -i "${envs[@]}" "$@"; }
  got=$(inimage "${entry[@]}" --version 2>&1) || {
    echo "FAIL: the entrypoint's --version failed in the unpacked image:" >&2; echo "$got" >&2; exit 1; }
  agent=$(inimage "${entry[@]}" feature-discovery --backend=simulated --node-profile=dgx-h100 \
    --oneshot --output=file -o /tmp/gfd 2>&1 && inimage sh -c 'sleep 0 && cat /tmp/gfd') || {
    echo "FAIL: feature-discovery failed in the unpacked image:" >&2; echo "$agent" >&2; exit 1; }
  echo "$agent" | grep -q '^nvidia.com/gpu.count=8$' || {
    echo "FAIL: feature-discovery in the image wrote no nvidia.com/gpu.count=8:" >&2; echo "$agent" >&2; exit 1; }
  log "feature-discovery (simulated 8x H100) labels in the image: $(echo "$agent" | grep -c '^nvidia.com/')"
  # The class-data-sharing archive maps: -Xshare:on fails the start where it cannot (another jar,
  # another JVM), and the project's classes come from it, not from the jar.
  loads=$(inimage GPU_OPERATOR_JAVA_OPTS="-Xshare:on -Xlog:class+load=info" "${entry[@]}" --version 2>&1) || {
    echo "FAIL: the image's JVM cannot use its class-data-sharing archive:" >&2; echo "$loads" | tail -5 >&2; exit 1; }
  shared=$(echo "$loads" | grep -c ' io\.gpuoperator\..* source: shared objects file' || true)
  [ "$shared" -gt 0 ] || {
    echo "FAIL: no class of the project came from the image's class-data-sharing archive" >&2; exit 1; }
  log "class-data-sharing: $shared of the project's classes of --version from the archive, $(echo "$loads" | grep -c ' source: shared objects file' || true) classes in all"
  case "$got" in
    "gpu-operator $VERSION"*) log "OK: the image's entrypoint runs as $user and prints gpu-operator $VERSION" ;;
    *) echo "FAIL: expected 'gpu-operator $VERSION' first, got: $got" >&2; exit 1 ;;
  esac
fi
