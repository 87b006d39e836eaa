#!/usr/bin/env bash
# The published claims of cached training, measured on a multi-node cluster on this machine (./granary up --nodes),
# each against the same job reading the store directly, every byte checked.
#   bench/scenarios.sh [--short] [--only fanout,failover,training] [--nodes N] [--link MBIT[:DELAY_MS]]
#                      [--checkpoint MIB] [--failover a,b,c]
#   fanout     a checkpoint (4 safetensors-like shards, 2048 MiB) written once through the gateways, then restored by
#              every node at once through its own mount: right after the write, cold, after a DataLoad, from one
#              node's cache only; and every node reading the store itself. Time until every node has it, what the
#              store sent, each node's MB/s.
#   failover   a reader on node 1 reads a preloaded dataset through its mount when (a) node 1's worker is killed,
#              (b) node 1's FUSE client is killed, (c) node 1 is cut off and the job moves to node 2: seconds until
#              it is back at full speed, reads failed, what the store sent meanwhile.
#   training   a PyTorch DataLoader with a stand-in GPU (a sleep per batch, half what s3fs takes to bring a batch)
#              over the mount against s3fs on the store: cold, after a DataLoad, a dataset twice the cache.
# --short (CI): a 128 MiB checkpoint (not restored from node 1 only) and the failover (a), in shorter phases.
# Needs root, /dev/fuse, boto3, s3fs and PyTorch for /usr/bin/python3 (python3-boto3, python3-torch). Every
# process it starts is stopped when it ends; KEEP=1 keeps its work directory.
set -euo pipefail
shopt -s inherit_errexit
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=devstack/nodes.sh
source "$ROOT/devstack/nodes.sh"

NODES=3
LINK=1000
CHECKPOINT=2048
ONLY=fanout,failover,training
FAILOVER=a,b,c
SHORT=false
PYTHON=${SCENARIOS_PYTHON:-/usr/bin/python3}
die() { echo "scenarios: $*" >&2; exit 1; }
usage() { die "usage: bench/scenarios.sh [--short] [--only fanout,failover,training] [--nodes N] [--link MBIT[:DELAY_MS]] [--checkpoint MIB] [--failover a,b,c]"; }
while (( $# )); do
  case $1 in
    --short) ONLY=fanout,failover; CHECKPOINT=128; FAILOVER=a; SHORT=true; shift ;;
    --only) [[ ${2:-} =~ ^(fanout|failover|training)(,(fanout|failover|training))*$ ]] || usage; ONLY=$2; shift 2 ;;
    --nodes) [[ ${2:-} =~ ^[2-9]$ ]] || die "--nodes needs 2 to 9"; NODES=$2; shift 2 ;;
    --link) [[ ${2:-} =~ ^[0-9]+(:[0-9]+)?$ ]] || usage; LINK=$2; shift 2 ;;
    --checkpoint) [[ ${2:-} =~ ^[0-9]+$ && $2 -ge 16 && $(( $2 % 16 )) == 0 ]] || die "--checkpoint needs MiB, a multiple of 16"
      CHECKPOINT=$2; shift 2 ;;
    --failover) [[ ${2:-} =~ ^[abc](,[abc])*$ ]] || usage; FAILOVER=$2; shift 2 ;;
    *) usage ;;
  esac
done
why=$(cluster_check 2>&1) || die "$why"
[[ -e /dev/fuse ]] || die "no /dev/fuse: the nodes' mounts cannot start"
"$PYTHON" -c 'import boto3' 2> /dev/null || die "$PYTHON has no boto3 (apt-get install python3-boto3)"
if [[ ,$ONLY, == *,training,* ]]; then
  command -v s3fs > /dev/null || die "the training scenario compares with s3fs: apt-get install s3fs"
  "$PYTHON" -c 'import torch' 2> /dev/null || die "$PYTHON has no PyTorch (apt-get install python3-torch)"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-scenarios.XXXXXX")"
export GRANARY_STATE_DIR="$WORK/state"
DATA="$WORK/data"
UP=
# shellcheck disable=SC2317  # run by the EXIT trap and between clusters
down() {
  [[ -n $UP ]] || return 0
  local dir
  for dir in "$WORK"/mnt/s3fs-*; do [[ -d $dir ]] && { fusermount -u "$dir" 2> /dev/null || umount -l "$dir" 2> /dev/null || true; }; done
  "$ROOT/granary" down > "$WORK/down.log" 2>&1 || { echo "scenarios: ./granary down failed:"; cat "$WORK/down.log"; }
  UP=
}
# shellcheck disable=SC2317
cleanup() {
  down
  [[ ${KEEP:-} == 1 ]] && { echo "scenarios: kept $WORK"; return; }
  rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# up MEM DISK: a cluster whose workers each hold MEM in memory and DISK on their disk; the config the scenarios read.
up() {
  rm -rf --one-file-system "$DATA" "$GRANARY_STATE_DIR"
  UP=1
  GRANARY_BLOCK_LEVELS_0__QUOTA=$1 GRANARY_BLOCK_LEVELS_1__QUOTA=$2 \
    "$ROOT/granary" up --nodes "$NODES" --link "$LINK" --data "$DATA" > "$WORK/up.log" 2>&1 \
    || { cat "$WORK/up.log"; die "the cluster did not start"; }
  eval "$("$ROOT/granary" env)"
  cat > "$WORK/config.json" <<EOF
{
  "root": "$ROOT", "work": "$WORK", "run": "$GRANARY_STATE_DIR/run", "nodes": $NODES, "link_mbit": ${LINK%%:*},
  "endpoint": "$AWS_ENDPOINT_URL", "access": "$AWS_ACCESS_KEY_ID", "secret": "$AWS_SECRET_ACCESS_KEY",
  "token": "$GRANARY_TOKEN", "store": "http://$CLUSTER_STORE_IP:9000", "store_dev": "gr-store",
  "store_access": "$(cat "$DATA/.granary/secrets/store/accessKey")",
  "store_secret": "$(cat "$DATA/.granary/secrets/store/secretKey")",
  "torch_python": "$PYTHON", "shards": 4, "shard_bytes": $(( CHECKPOINT / 4 << 20 )),
  "short": $SHORT, "baseline_seconds": $([[ $SHORT == true ]] && echo 5 || echo 8),
  "after_seconds": $([[ $SHORT == true ]] && echo 12 || echo 30),
  "datasets": $3
}
EOF
  "$PYTHON" "$ROOT/bench/scenarios.py" setup "$WORK/config.json"
}

echo "scenarios: $NODES nodes, the store behind a $LINK Mbit/s link; $ONLY; $(nproc) cores, $(date -u +%Y-%m-%d)"
if [[ ,$ONLY, == *,fanout,* || ,$ONLY, == *,failover,* ]]; then
  # Room for the checkpoint twice over on every node (the dataset over all nodes and the one on node 1 only).
  up 256MiB "$(( CHECKPOINT * 2 + 512 ))MiB" '{"frames": {"prefix": "frames/", "files": 64, "bytes": 4194304, "block_size": "4MiB"}}'
  [[ ,$ONLY, != *,fanout,* ]] || "$PYTHON" "$ROOT/bench/scenarios.py" fanout "$WORK/config.json"
  # shellcheck disable=SC2046  # the cases are words
  [[ ,$ONLY, != *,failover,* ]] || "$PYTHON" "$ROOT/bench/scenarios.py" failover "$WORK/config.json" $(tr , ' ' <<< "$FAILOVER")
  down
fi
if [[ ,$ONLY, == *,training,* ]]; then
  # 384 MiB of cache on each node; the job runs on node 1 and its datasets are cached there (a nodeSelector, as
  # the scheduler-hook pairs a job with its data): train (250 MiB) fits, big (750 MiB) is about twice the cache.
  up 192MiB 192MiB '{"train": {"prefix": "images/", "files": 2000, "bytes": 131072, "block_size": "1MiB",
                               "node_selector": {"kubernetes.io/hostname": "node-1"}},
                     "big": {"prefix": "images/", "files": 6000, "bytes": 131072, "block_size": "1MiB",
                             "node_selector": {"kubernetes.io/hostname": "node-1"}}}'
  "$PYTHON" "$ROOT/bench/scenarios.py" training "$WORK/config.json"
  down
fi
