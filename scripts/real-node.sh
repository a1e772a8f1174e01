#!/usr/bin/env bash
# A real Kubernetes node on this machine, for the real-node suite (RealNodeE2EIT): containerd with
# Debian's runc and a CNI bridge, and the kubelet, joined to a control plane on 127.0.0.1. Needs
# root and the binaries of scripts/node-binaries.sh. One node per machine: the kubelet's
# /var/lib/kubelet is fixed.
#
#   scripts/real-node.sh up --kubeconfig FILE --api-port PORT --dir DIR [--node-name NAME]
#       [--owner-pid PID] [--image ARCHIVE]... [--device PATH=MAJOR:MINOR]...
#       [--simulated-profile FILE --simulated-dir DIR]
#     Brings the node up and stays in the foreground until SIGTERM/SIGINT (or until the owner
#     process is gone), then tears everything down (a trap): what a kubelet and containerd leave
#     (pods, mounts, cgroups, iptables chains, the bridge, ip_forward) and every host path it
#     created. Prints "[real-node] ready" once containerd and the kubelet serve.
#   scripts/real-node.sh down     # the same teardown, for what a killed run left (idempotent)
#   scripts/real-node.sh check    # lists what is left; exits 1 when anything is
#   scripts/real-node.sh paths    # the host paths a node creates that exist now (compare a
#                                 # listing from before `up` with one after `down`)
#
# Networking stays on this machine: pods get addresses from POD_CIDR on a bridge of their own
# (BRIDGE); forwarding from and to the pod subnet is dropped before the kubelet starts, so pods can
# reach this machine and nothing else. Without kube-proxy, one DNAT rule stands in for the
# `kubernetes` Service: pods reach the API server (bound to 127.0.0.1) at its ClusterIP, as
# in-cluster clients do everywhere.
#
# --image imports an OCI archive into containerd's k8s.io namespace (pods then use
# imagePullPolicy IfNotPresent or Never: nothing is pulled). --device creates a character device
# node (the simulated GPU driver's /dev/nvidia*; an existing path is left alone). --simulated-profile
# copies a node profile to <simulated-dir>/node-profile.yaml, where the agents' simulated backend
# reads this node's GPUs (docs/real-node.md, "Simulated hardware on a real node").
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

STATE=/run/gpu-operator-node
POD_CIDR=${POD_CIDR:-10.88.0.0/16}
POD_GATEWAY=${POD_GATEWAY:-10.88.0.1}
BRIDGE=${BRIDGE:-gpuop0}
# The first address of the control plane's --service-cluster-ip-range (sim's ControlPlane).
SERVICE_IP=${SERVICE_IP:-10.0.0.1}
FILTER_CHAIN=GPU-OPERATOR-NODE
NAT_CHAIN=GPU-OPERATOR-NODE-SVC
# Chains the kubelet creates (pkg/kubelet/kubelet_network_linux.go) in filter, nat and mangle.
KUBELET_CHAINS=(KUBE-FIREWALL KUBE-KUBELET-CANARY KUBE-IPTABLES-HINT KUBE-NODEPORTS)
# Host paths a node run may create; those that did not exist before `up` are removed by `down`.
# containerd runs at its default paths (/etc/containerd/config.toml, /run/containerd), where the
# toolkit agent finds it as on any node; `up` refuses a machine that has them already.
HOST_PATHS=(/etc/containerd /run/containerd /run/nri /run/mount /var/lib/kubelet /var/log/pods /var/log/containers /run/nvidia /var/run/cdi /etc/cdi
  /usr/local/nvidia /etc/kubernetes/node-feature-discovery /var/lib/cni /run/netns /dev/char)

log() { printf '[real-node] %s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
fail() { printf 'real-node: %s\n' "$*" >&2; exit 1; }

need_root() {
  [ "$(id -u)" = 0 ] || fail "a real node needs root (the kubelet, containerd and runc manage mounts,
  cgroups and network namespaces); run it as root"
}

# --- What a run leaves, listed by kind (check and down share these).

# Mount points under the node's paths, deepest first.
node_mounts() {
  local dir=${1:-}
  awk -v d="$dir" '{
      p = $5
      if (p ~ "^/var/lib/kubelet(/|$)" || p ~ "^/run/netns/cni-" || p ~ "^/var/run/netns/cni-" ||
          p ~ "^/run/gpu-operator-node(/|$)" || p ~ "^/run/containerd(/|$)" || (d != "" && index(p, d) == 1))
        print length(p) " " p
    }' /proc/self/mountinfo | sort -rn | cut -d' ' -f2- | sed 's/\\040/ /g'
}

# Cgroup folders the kubelet (kubepods) and containerd (k8s.io) made, deepest first.
node_cgroups() {
  local h
  for h in /sys/fs/cgroup/*/; do
    [ -d "$h" ] || continue
    find "$h" -mindepth 1 -maxdepth 1 -type d \( -name 'kubepods*' -o -name k8s.io \) \
      -exec find {} -depth -type d \; 2>/dev/null
  done
}

# Processes of the node: kubelet, containerd and shims of this state dir or of its containerd, and
# everything in the node's cgroups.
node_pids() {
  {
    pgrep -f "$STATE/" 2>/dev/null || true
    # A long-lived runc shim re-executes itself from the binary's real path (not our link) and
    # stays in containerd's cgroup: it is found by the containerd it serves, which runs at the
    # default address this script owns while the node is up.
    pgrep -f "containerd-shim-runc-v2 .*-address /run/containerd/containerd.sock" 2>/dev/null || true
    local c
    for c in $(node_cgroups); do cat "$c/cgroup.procs" 2>/dev/null || true; done
  } | grep -vx "$$" | sort -un
}

iptables_left() {
  local t c
  command -v iptables >/dev/null || return 0
  for t in filter nat mangle; do
    for c in "$FILTER_CHAIN" "$NAT_CHAIN" "${KUBELET_CHAINS[@]}"; do
      iptables -w -t "$t" -S "$c" >/dev/null 2>&1 && echo "iptables -t $t chain $c"
    done
  done
  return 0
}

check() {
  local left=() p
  for p in $(node_pids); do left+=("process $p: $(tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null | cut -c1-120)"); done
  while IFS= read -r p; do [ -n "$p" ] && left+=("mount $p"); done < <(node_mounts "$(cat "$STATE/dir" 2>/dev/null || true)")
  while IFS= read -r p; do [ -n "$p" ] && left+=("cgroup $p"); done < <(node_cgroups)
  while IFS= read -r p; do [ -n "$p" ] && left+=("$p"); done < <(iptables_left)
  ip link show "$BRIDGE" >/dev/null 2>&1 && left+=("bridge $BRIDGE")
  if [ -s "$STATE/ip_forward" ] && [ "$(cat /proc/sys/net/ipv4/ip_forward)" != "$(cat "$STATE/ip_forward")" ]; then
    left+=("net.ipv4.ip_forward is $(cat /proc/sys/net/ipv4/ip_forward), was $(cat "$STATE/ip_forward")")
  fi
  [ -d "$STATE" ] && left+=("state folder $STATE")
  if [ ${#left[@]} -gt 0 ]; then
    printf 'left behind: %s\n' "${left[@]}"
    return 1
  fi
  echo "nothing of a real node is left"
}

# Records the outermost folder of $1 that does not exist yet (what creating $1 creates).
created() {
  local p=$1 top=""
  while [ -n "$p" ] && [ "$p" != / ] && [ ! -e "$p" ]; do
    top=$p
    p=$(dirname "$p")
  done
  [ -z "$top" ] || grep -qxF "$top" "$STATE/created" || echo "$top" >>"$STATE/created"
}

# --- Teardown: safe to run at any point of `up`, and again.
down() {
  local dir p i
  dir=$(cat "$STATE/dir" 2>/dev/null || true)
  touch "$STATE/stopping" 2>/dev/null || true
  # 1. The kubelet first (it would restart what we stop), then every pod process, then containerd.
  if [ -s "$STATE/kubelet.pid" ]; then
    kill -TERM "$(cat "$STATE/kubelet.pid")" 2>/dev/null || true
  fi
  for i in 1 2 3 4 5 6 7 8 9 10; do
    pgrep -f "$STATE/bin/kubelet" >/dev/null 2>&1 || break
    sleep 0.5
  done
  pkill -KILL -f "$STATE/bin/kubelet" 2>/dev/null || true
  # Containers: freeze-free kill of everything in the pod cgroups, then the shims and containerd.
  for p in $(node_pids); do kill -KILL "$p" 2>/dev/null || true; done
  sleep 0.5
  for p in $(node_pids); do kill -KILL "$p" 2>/dev/null || true; done
  # 2. Mounts, deepest first (lazy when busy).
  while IFS= read -r p; do
    [ -n "$p" ] || continue
    umount "$p" 2>/dev/null || umount -l "$p" 2>/dev/null || log "WARNING: cannot unmount $p"
  done < <(node_mounts "$dir")
  # 3. Cgroups, deepest first (a folder can only go once empty).
  for i in 1 2 3; do
    while IFS= read -r p; do rmdir "$p" 2>/dev/null || true; done < <(node_cgroups)
    [ -z "$(node_cgroups)" ] && break
    sleep 0.5
  done
  # 4. Network: our chains and the kubelet's, the bridge (the pods' veths went with their
  # namespaces), ip_forward as it was.
  if command -v iptables >/dev/null; then
    iptables -w -D FORWARD -j "$FILTER_CHAIN" 2>/dev/null || true
    iptables -w -t nat -D PREROUTING -j "$NAT_CHAIN" 2>/dev/null || true
    iptables -w -t nat -D OUTPUT -j "$NAT_CHAIN" 2>/dev/null || true
    iptables -w -D INPUT -j KUBE-FIREWALL 2>/dev/null || true
    iptables -w -D OUTPUT -j KUBE-FIREWALL 2>/dev/null || true
    local t c
    for t in filter nat mangle; do
      for c in "$FILTER_CHAIN" "$NAT_CHAIN" "${KUBELET_CHAINS[@]}"; do
        iptables -w -t "$t" -F "$c" 2>/dev/null || true
        iptables -w -t "$t" -X "$c" 2>/dev/null || true
      done
    done
    if command -v ip6tables >/dev/null; then
      for t in filter nat mangle; do
        for c in "${KUBELET_CHAINS[@]}"; do
          ip6tables -w -t "$t" -F "$c" 2>/dev/null || true
          ip6tables -w -t "$t" -X "$c" 2>/dev/null || true
        done
      done
    fi
  fi
  ip link del "$BRIDGE" 2>/dev/null || true
  if [ -s "$STATE/ip_forward" ]; then
    echo "$(cat "$STATE/ip_forward")" >/proc/sys/net/ipv4/ip_forward
  fi
  # 5. Mount propagation of / as it was before `up` made it shared (as systemd does).
  if [ "$(cat "$STATE/root-propagation" 2>/dev/null || true)" = private ]; then
    mount --make-rprivate / 2>/dev/null || log "WARNING: cannot make / private again"
  fi
  # 6. Host paths this run created (recorded by `up` before it created any), then its own state.
  if [ -s "$STATE/created" ]; then
    while IFS= read -r p; do
      [ -n "$p" ] && [ -e "$p" -o -L "$p" ] && rm -rf --one-file-system "$p"
    done < <(sort -r "$STATE/created")
  fi
  # The validator's /dev/char links to the simulated device nodes are the only entries a run adds
  # to a folder that may have existed: remove the links to NVIDIA nodes that are gone now.
  for p in /dev/char/*; do
    [ -L "$p" ] && [ ! -e "$p" ] && case "$(readlink "$p")" in *nvidia*) rm -f "$p" ;; esac
  done
  rm -rf /var/lib/cni/networks/gpu-operator-node
  if [ -n "$dir" ] && [ -d "$dir/containerd/root" ]; then
    rm -rf --one-file-system "$dir/containerd/root"
  fi
  rm -rf "$STATE"
}

# --- Bring-up.
up() {
  local kubeconfig="" api_port="" dir="" node_name="" owner="" profile="" sim_dir=""
  local images=() devices=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --kubeconfig) kubeconfig=$2; shift 2 ;;
      --api-port) api_port=$2; shift 2 ;;
      --dir) dir=$2; shift 2 ;;
      --node-name) node_name=$2; shift 2 ;;
      --owner-pid) owner=$2; shift 2 ;;
      --image) images+=("$2"); shift 2 ;;
      --device) devices+=("$2"); shift 2 ;;
      --simulated-profile) profile=$2; shift 2 ;;
      --simulated-dir) sim_dir=$2; shift 2 ;;
      *) fail "up: unknown argument '$1' (see the header of $0)" ;;
    esac
  done
  [ -r "$kubeconfig" ] || fail "up: --kubeconfig FILE is required (the node's credentials)"
  [[ "$api_port" =~ ^[0-9]+$ ]] || fail "up: --api-port PORT is required (the API server on 127.0.0.1)"
  [ -n "$dir" ] || fail "up: --dir DIR is required (configs, logs, containerd's images)"
  [ -z "$profile" ] || [ -n "$sim_dir" ] || fail "up: --simulated-profile needs --simulated-dir"
  node_name=${node_name:-$(hostname)}
  getent hosts "$node_name" | grep -q '^127\.' ||
    fail "up: the node name '$node_name' must resolve to 127.0.0.1 (/etc/hosts): the API server reaches the kubelet by host name"
  if pgrep -x kubelet >/dev/null && ! pgrep -f "$STATE/bin/kubelet" >/dev/null; then
    fail "up: another kubelet runs on this machine (one per machine: /var/lib/kubelet is fixed)"
  fi

  local bin
  bin=$("$ROOT/scripts/node-binaries.sh" | tail -n 1)

  # Whatever an earlier run left, then our own teardown on any exit from here on.
  down
  trap 'trap - EXIT TERM INT; log "tearing down"; down; log "torn down"' EXIT
  trap 'exit 0' TERM INT
  for p in /etc/containerd /run/containerd; do
    [ ! -e "$p" ] || fail "up: $p exists: this machine has a container runtime of its own, and the
  real node runs containerd at its default paths; remove it (or use another machine)"
  done
  mkdir -p "$STATE" "$dir/logs" "$dir/containerd" "$dir/cni/net.d" "$dir/kubelet/pki"
  dir=$(cd "$dir" && pwd)
  echo "$dir" >"$STATE/dir"
  local p
  : >"$STATE/created"
  for p in "${HOST_PATHS[@]}" "${sim_dir:-}"; do
    [ -n "$p" ] && created "$p"
  done
  cat /proc/sys/net/ipv4/ip_forward >"$STATE/ip_forward"
  # The binaries run from links under the state folder, so every process of the node (the
  # shims too: containerd starts them by their PATH name) is found by that path.
  mkdir -p "$STATE/bin"
  for p in kubelet containerd containerd-shim-runc-v2 ctr; do ln -s "$bin/$p" "$STATE/bin/$p"; done
  export PATH=$STATE/bin:$PATH

  # Network: the bridge with the pods' gateway, forwarding out of (and into) the pod subnet
  # dropped, and the kubernetes Service's ClusterIP led to the API server on 127.0.0.1 (which
  # needs route_localnet on the bridge, as kube-proxy sets it for localhost node ports).
  ip link add "$BRIDGE" type bridge
  ip addr add "$POD_GATEWAY/${POD_CIDR#*/}" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  echo 1 >"/proc/sys/net/ipv4/conf/$BRIDGE/route_localnet"
  iptables -w -N "$FILTER_CHAIN"
  iptables -w -A "$FILTER_CHAIN" -s "$POD_CIDR" -j DROP
  iptables -w -A "$FILTER_CHAIN" -d "$POD_CIDR" -j DROP
  iptables -w -I FORWARD 1 -j "$FILTER_CHAIN"
  iptables -w -t nat -N "$NAT_CHAIN"
  iptables -w -t nat -A "$NAT_CHAIN" -s "$POD_CIDR" -d "$SERVICE_IP/32" -p tcp --dport 443 \
    -j DNAT --to-destination "127.0.0.1:$api_port"
  iptables -w -t nat -I PREROUTING 1 -j "$NAT_CHAIN"
  # The usual bridge set-up: the plugin makes the bridge the pods' gateway, which turns
  # ip_forward on (restored by down); the rules above keep the pods on this machine all the same.
  cat >"$dir/cni/net.d/10-gpu-operator-node.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "gpu-operator-node",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$POD_GATEWAY"}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    }
  ]
}
EOF

  # Mounts: Bidirectional volumes need the host path on a shared mount, as systemd makes /.
  if ! grep -qE '^[0-9]+ [0-9]+ [^ ]+ / / [^ ]+ .*shared:' /proc/self/mountinfo; then
    echo private >"$STATE/root-propagation"
    mount --make-rshared /
  fi

  # Simulated GPUs: the driver's device nodes and the node profile the agents read.
  local d path mm
  for d in "${devices[@]}"; do
    path=${d%%=*}
    mm=${d#*=}
    [ -e "$path" ] && continue
    created "$path"
    mkdir -p "$(dirname "$path")"
    mknod -m 0666 "$path" c "${mm%%:*}" "${mm#*:}"
  done
  if [ -n "$profile" ]; then
    mkdir -p "$sim_dir"
    install -m 0644 "$profile" "$sim_dir/node-profile.yaml"
  fi

  # containerd: supervised like systemd's Restart=always, so the toolkit's restart (SIGHUP, on
  # which containerd exits) brings it back with the new configuration.
  local pause
  pause=$(cat "$bin/pause.image")
  mkdir -p /etc/containerd
  cat >/etc/containerd/config.toml <<EOF
version = 3
root = "$dir/containerd/root"
state = "/run/containerd"

[grpc]
  address = "/run/containerd/containerd.sock"

[plugins.'io.containerd.cri.v1.runtime']
  # Even root lacks CAP_SYS_RESOURCE on these machines: without this every sandbox fails with
  # runc's "can't get final child's PID from pipe: EOF".
  restrict_oom_score_adj = true

  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = "runc"

    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"

      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        SystemdCgroup = false

  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ["/usr/lib/cni"]
    conf_dir = "$dir/cni/net.d"

[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"

  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = "$pause"
EOF
  (
    trap - EXIT TERM INT
    while [ ! -e "$STATE/stopping" ]; do
      containerd --config /etc/containerd/config.toml >>"$dir/logs/containerd.log" 2>&1 &
      echo $! >"$STATE/containerd.pid"
      wait $! && rc=0 || rc=$?
      [ -e "$STATE/stopping" ] && break
      echo "[real-node] containerd exited ($rc); starting it again" >>"$dir/logs/containerd.log"
      sleep 0.5
    done
  ) &
  local i
  for i in $(seq 1 100); do
    ctr version >/dev/null 2>&1 && break
    [ "$i" = 100 ] && fail "containerd did not start; last lines of $dir/logs/containerd.log:
$(tail -n 20 "$dir/logs/containerd.log")"
    sleep 0.2
  done
  local a
  for a in "$bin/pause.oci.tar" "${images[@]}"; do
    ctr -n k8s.io images import "$a" >&2 ||
      fail "importing $a into containerd failed (see above)"
  done

  # The kubelet: 127.0.0.1 only, anonymous requests allowed (only this machine reaches it), cgroup
  # v1 with the cgroupfs driver, no image garbage collection (the images cannot be pulled again).
  cat >"$dir/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
failCgroupV1: false
cgroupDriver: cgroupfs
failSwapOn: false
containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: false}
authorization:
  mode: AlwaysAllow
clusterDomain: cluster.local
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1%}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
syncFrequency: 10s
EOF
  "$STATE/bin/kubelet" --config="$dir/kubelet/config.yaml" --kubeconfig="$kubeconfig" \
    --hostname-override="$node_name" --root-dir=/var/lib/kubelet --cert-dir="$dir/kubelet/pki" \
    --v=2 >>"$dir/logs/kubelet.log" 2>&1 &
  echo $! >"$STATE/kubelet.pid"
  for i in $(seq 1 150); do
    curl -sf http://127.0.0.1:10248/healthz >/dev/null 2>&1 && break
    kill -0 "$(cat "$STATE/kubelet.pid")" 2>/dev/null ||
      fail "the kubelet exited; last lines of $dir/logs/kubelet.log:
$(tail -n 30 "$dir/logs/kubelet.log")"
    [ "$i" = 150 ] && fail "the kubelet is not healthy after 30 s; see $dir/logs/kubelet.log"
    sleep 0.2
  done
  log "ready: node $node_name, containerd /run/containerd/containerd.sock, pods in $POD_CIDR on $BRIDGE, logs in $dir/logs"

  # Stay until told to stop, or until the owner is gone.
  while :; do
    if [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null; then
      log "owner $owner is gone"
      exit 0
    fi
    if ! kill -0 "$(cat "$STATE/kubelet.pid")" 2>/dev/null; then
      fail "the kubelet exited; last lines of $dir/logs/kubelet.log:
$(tail -n 30 "$dir/logs/kubelet.log")"
    fi
    sleep 1 &
    wait $! || true
  done
}

case "${1:-}" in
  paths) for p in "${HOST_PATHS[@]}" /dev/nvidia* /etc/gpu-operator; do [ -e "$p" ] && echo "$p"; done; true ;;
  up) need_root; shift; up "$@" ;;
  down) need_root; down; check ;;
  check) check ;;
  *) echo "usage: scripts/real-node.sh up|down|check|paths (see the header of $0)" >&2; exit 2 ;;
esac
