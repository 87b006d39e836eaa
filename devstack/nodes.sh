# shellcheck shell=bash disable=SC2034  # sourced: it sets variables for its caller
# The network of a multi-node local cluster (./granary up --nodes N), as the nodes of a Kubernetes cluster and a
# remote object store would have it. Sourced, not run; needs root (network namespaces, a bridge, tc).
#
#   the host           10.78.0.1 on the bridge granary0: Kafka, the metadata-service replicas, the preload-service,
#                      the scheduler-hook and the two Services (balancers) in front of the metadata replicas and
#                      the gateways: the control plane
#   the store          10.78.0.2 in the namespace granary-store, behind a link shaped on both ends (--link)
#   node I (1..N)      10.78.0.(10+I) in the namespace granary-node-I: one worker and one gateway
#
# Every namespace hangs off the bridge by a veth pair (eth0 inside); cutting a node is `ip link set eth0 down`
# inside its namespace.
CLUSTER_NET=10.78.0
CLUSTER_HOST=$CLUSTER_NET.1
CLUSTER_STORE_IP=$CLUSTER_NET.2
CLUSTER_BRIDGE=granary0
CLUSTER_STORE_NETNS=granary-store

node_netns() { echo "granary-node-$1"; }
node_ip() { echo "$CLUSTER_NET.$(( 10 + $1 ))"; }

# cluster_check: why this machine cannot hold a cluster, on stderr, and 1; or nothing and 0.
cluster_check() {
  (( EUID == 0 )) || { echo "a multi-node cluster needs root (network namespaces and a bridge): run it as root" >&2; return 1; }
  command -v ip > /dev/null || { echo "a multi-node cluster needs ip (iproute2)" >&2; return 1; }
  ip netns list > /dev/null 2>&1 || { echo "'ip netns' fails here: no network namespaces on this machine" >&2; return 1; }
  if ip link show "$CLUSTER_BRIDGE" > /dev/null 2>&1; then
    echo "the bridge $CLUSTER_BRIDGE exists already: another cluster runs here (./granary down stops it)" >&2; return 1
  fi
}

# cluster_create NODES MBIT DELAY_MS: the bridge, the store's namespace (its link shaped when MBIT > 0) and NODES
# nodes' namespaces.
cluster_create() {
  local nodes=$1 mbit=$2 delay=$3 i
  ip link add "$CLUSTER_BRIDGE" type bridge
  ip addr add "$CLUSTER_HOST/24" dev "$CLUSTER_BRIDGE"
  ip link set "$CLUSTER_BRIDGE" up
  attach_netns "$CLUSTER_STORE_NETNS" "$CLUSTER_STORE_IP" gr-store
  if (( mbit > 0 )); then
    shape_dev gr-store "$mbit" "$delay"
    shape_dev eth0 "$mbit" "$delay" -n "$CLUSTER_STORE_NETNS"
  fi
  for (( i = 1; i <= nodes; i++ )); do
    attach_netns "$(node_netns "$i")" "$(node_ip "$i")" "gr-node$i"
  done
}

# attach_netns NETNS IP HOST-DEV: a namespace with eth0 at IP on the bridge, and its loopback up.
attach_netns() {
  local netns=$1 ip=$2 dev=$3
  ip netns add "$netns"
  ip link add "$dev" type veth peer name eth0 netns "$netns"
  ip link set "$dev" master "$CLUSTER_BRIDGE"
  ip link set "$dev" up
  ip -n "$netns" addr add "$ip/24" dev eth0
  ip -n "$netns" link set eth0 up
  ip -n "$netns" link set lo up
}

# cluster_remove: every namespace and link cluster_create made (each veth goes with its namespace).
cluster_remove() {
  local netns
  for netns in $(ip netns list 2> /dev/null | awk '{ print $1 }' | grep -E '^granary-(store|node-[0-9]+)$'); do
    ip netns del "$netns"
  done
  ip link del "$CLUSTER_BRIDGE" 2> /dev/null || true
}

# shape_dev DEV MBIT DELAY_MS [-n NETNS]: limits what leaves DEV to MBIT (tbf), delayed by DELAY_MS (netem).
shape_dev() {
  local dev=$1 mbit=$2 delay=$3; shift 3
  # A burst of 1 ms at the rate, at least 64 KiB: small, so a 128 KiB object does not pass above the rate.
  local burst=$(( mbit * 125 > 65536 ? mbit * 125 : 65536 ))
  tc "$@" qdisc add dev "$dev" root handle 1: tbf rate "${mbit}mbit" burst "$burst" latency 50ms
  if (( delay > 0 )); then
    tc "$@" qdisc add dev "$dev" parent 1:1 handle 10: netem delay "${delay}ms"
  fi
}
