#!/usr/bin/env bash
# Shuffled epochs of a dataset larger than the cache, for each cache policy in one run: the store's reads and the
# hit ratio of every epoch, and the epoch's files/s.
#   bench/epochs.sh [--reader s3|mount] [--files 2000] [--epochs 4] [--mem 64MiB] [--ssd 64MiB] [--link MBIT]
# 2,000 objects of 128 KiB (250 MiB) against a cache of 128 MiB (51% of it) by default, in a fresh random order each
# epoch: first with LRU admitting every block (the store until now), then with the store's default (CLOCK, TinyLFU
# admission), and with --reader mount that default again with each epoch's order told to Granary first (a
# GranarySampler plan: the preload-service fetches ahead of the reader). Every byte count is checked. Each epoch's
# CPU per file and process goes to stderr (and, with a plan, the plan's status).
#   --reader s3     (default) S3 GETs through the gateway, 8 at a time
#   --reader mount  a PyTorch DataLoader (4 workers, shuffle=True, the page cache dropped before each epoch) over
#                   Granary's FUSE mount, then over s3fs on the store itself as the baseline; needs root, /dev/fuse,
#                   s3fs and PyTorch for $TORCH_PYTHON
#   --link MBIT     (root) the store behind an emulated link of MBIT Mbit/s, as in bench/run.sh
#   --only ROW      one row of policies: lru, default or plan (mount only); the s3fs baseline runs all the same
#   --warm-up N     (mount only) before each row's first epoch, its services and mount read another dataset of N
#                   files, cold then warm (with the row's plan), its cache freed after each round, until the JVMs
#                   stop compiling much: they have compiled their miss and hit paths, as on a node that has served
#                   jobs before. Without it every row starts on JVMs just started (s3fs, native code, has no JIT).
# ASYNC_PROFILER=/path/to/libasyncProfiler.so profiles every JVM through each epoch (as bench/run.sh; PROFILES=dir).
# Needs the services built (./mvnw -DskipTests package); every process it starts is stopped when it ends.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

READER=s3
FILES=2000
EPOCHS=4
MEM=64MiB
SSD=64MiB
LINK_MBIT=
ONLY=
WARM_UP=0
while (( $# )); do
  case $1 in
    --reader) READER=$2; shift 2 ;;
    --files) FILES=$2; shift 2 ;;
    --epochs) EPOCHS=$2; shift 2 ;;
    --mem) MEM=$2; shift 2 ;;
    --ssd) SSD=$2; shift 2 ;;
    --link) LINK_MBIT=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --warm-up) WARM_UP=$2; shift 2 ;;
    *) die "usage: bench/epochs.sh [--reader s3|mount] [--files N] [--epochs N] [--mem SIZE] [--ssd SIZE] [--link MBIT] [--only lru|default|plan] [--warm-up N]" ;;
  esac
done
[[ $READER == s3 || $READER == mount ]] || die "--reader is s3 or mount, not '$READER'"
[[ $WARM_UP =~ ^[0-9]+$ ]] || die "--warm-up is a number of files, not '$WARM_UP'"
(( WARM_UP == 0 )) || [[ $READER == mount ]] || die "--warm-up needs --reader mount"
SMALL_BYTES=$(( FILES * SMALL_KIB * 1024 ))

require_built metadata-service block-service gateway
if [[ $READER == mount ]]; then
  require_posix "(--reader s3 needs none of it)"
  require_built fuse-client preload-service
fi
if [[ -n $LINK_MBIT ]]; then
  create_link 0
  STORE_SETTING="an emulated link of $LINK_MBIT Mbit/s"
else
  STORE_SETTING="loopback"
fi
echo "starting kafka, s3proxy, metadata-service in $WORK ..." >&2
start_kafka
if [[ -n $LINK_MBIT ]]; then start_s3 "$LINK_NETNS" "$LINK_STORE_IP"; else start_s3; fi
# One worker at a time, stopped between policies: counted gone once silent for its heartbeats, not after the
# minute a lone worker's silence is otherwise forgiven (a broker restart silences every worker at once).
start_metadata -Dgranary.metadata.quiet-limit=2s
[[ $READER == s3 ]] || start_preload
put_small_objects data "$FILES" "$WORK/keys"
(( WARM_UP == 0 )) || put_small_objects warm-up "$WARM_UP" "$WORK/warm-up.keys"
# A store is a long-running server: read every object twice before anything is measured, so its JVM's warm-up
# falls on no row (it fell on the first policy's first epoch; s3fs, run last, met a warm store).
small_rate "$S3_URL" data "$WORK/keys" > /dev/null
small_rate "$S3_URL" data "$WORK/keys" > /dev/null
[[ -z $LINK_MBIT ]] || shape_link "$LINK_MBIT" 0

# What the store was asked for: by the worker (every miss it filled, or read through without storing it), by the
# gateway itself (reads around a worker that failed) and by the mount (the same).
store_reads() {
  local url total=0 n
  for url in "$WORKER_URL" "$GATEWAY" ${MOUNT_URL:+"$MOUNT_URL"}; do
    n=$(curl -sf "$url/q/metrics" | awk '/^granary_understore_requests_total\{op="read"\}/ { n += $2 } END { printf "%d", n }')
    total=$(( total + n ))
  done
  echo "$total"
}

# Reads the mount served from its own memory (its block cache holds blocks read over HTTP: those the worker did
# not take); 0 for the S3 reader.
mount_memory() {
  [[ -n ${MOUNT_URL:-} ]] || { echo 0; return; }
  curl -sf "$MOUNT_URL/q/metrics" | awk '/^granary_fuse_reads_total\{source="memory"\}/ { n += $2 } END { printf "%d", n }'
}

fallbacks() {
  curl -sf "$GATEWAY/q/metrics" | awk '/^granary_gateway_fallbacks_total/ { n += $2 } END { printf "%d", n }'
}

live_workers() {
  api_curl -sf "$METADATA_URL/api/v1/workers" | python3 -c 'import json,sys; print(sum(1 for w in json.load(sys.stdin) if w["live"]))'
}

# warm_up DATASET: rounds of a cold pass and a warm one through the mount (with the row's plan), each followed by
# freeing the dataset's cache, until a round compiles for under half a second (as run.sh warms its JVMs), at most
# eight. After one round of 3,000 files the FUSE client cost 678-789 µs a file in the next epoch; after eight
# (every round still compiled about a second, across all the JVMs) 449-514; settled, 315-358.
warm_up() {
  local round pass files jit last_jit=-1
  for (( round = 1; round <= 8; round++ )); do
    for pass in cold warm; do
      read -r files _ < <("$TORCH_PYTHON" "$ROOT/bench/posix.py" epoch "$WORK/mnt/granary/$1" --drop \
        --seed "$round" ${PLAN:+--plan "$1"})
      (( files == WARM_UP )) || die "warm-up round $round ($pass) read $files files of $WARM_UP"
    done
    evict "$1"
    jit=$(jit_seconds)
    echo "  warm-up round $round: the JVMs have compiled for $jit s" >&2
    (( round >= 2 )) && python3 -c "import sys; sys.exit($jit - $last_jit >= 0.5)" && break
    last_jit=$jit
  done
}

hit_ratio() { python3 -c "print(f'{max(0.0, 1 - $1 / $FILES):.2f}')"; }

# One epoch in a fresh order: prints files/s.
read_epoch() {  # read_epoch DATASET EPOCH
  if [[ $READER == s3 ]]; then
    shuf "$WORK/keys" > "$WORK/epoch.keys"
    small_rate "$GATEWAY" "$1" "$WORK/epoch.keys" | cut -d' ' -f1
  else
    epoch "$WORK/mnt/granary/$1" --drop --seed "$2" ${PLAN:+--plan "$1"}
  fi
}

reader_setting() {
  [[ $READER == s3 ]] && echo "S3 GETs through the gateway, 8 at a time" \
    || echo "a PyTorch DataLoader over the FUSE mount (4 workers, shuffled, page cache dropped)"
}

echo
echo "Shuffled epochs: $FILES objects of $SMALL_KIB KiB, cache $MEM MEM + $SSD SSD, $(reader_setting); the store on"
echo "$STORE_SETTING; $(nproc) cores, $(date -u +%Y-%m-%d). Store reads, hit ratio and files/s of each epoch."
(( WARM_UP == 0 )) || echo "Each row's services first read $WARM_UP other files until their JIT settled (--warm-up)."
echo
echo "| policy | epoch | store reads | hit ratio | of which the mount's memory | files/s | gateway fallbacks |"
echo "|---|---:|---:|---:|---:|---:|---:|"
case $ONLY in
  "") POLICIES=("lru always" "clock tinylfu"); [[ $READER == s3 ]] || POLICIES+=("clock tinylfu plan") ;;
  lru) POLICIES=("lru always") ;;
  default) POLICIES=("clock tinylfu") ;;
  plan) [[ $READER == mount ]] || die "--only plan needs --reader mount"; POLICIES=("clock tinylfu plan") ;;
  *) die "--only is lru, default or plan, not '$ONLY'" ;;
esac
for policy in "${POLICIES[@]}"; do
  read -r eviction admission PLAN <<< "$policy"
  name="epochs-$eviction${PLAN:+-plan}"
  start_worker "$name" "$MEM" "$SSD" -Dgranary.block.eviction="$eviction" -Dgranary.block.admission="$admission"
  worker_pid=${PIDS[-1]}
  start_gateway
  gateway_pid=${PIDS[-1]}
  export GRANARY_ENDPOINT=$GATEWAY GRANARY_TOKEN=${GRANARY_AUTH#Bearer }  # where GranarySampler sends its plans
  create_dataset "$name" data 1MiB
  (( WARM_UP == 0 )) || create_dataset "$name-warm-up" warm-up 1MiB
  mount_pid=
  if [[ $READER == mount ]]; then
    mount_native "$WORK/mnt/granary"
    mount_pid=${PIDS[-1]}
  fi
  (( WARM_UP == 0 )) || warm_up "$name-warm-up"
  for epoch in $(seq "$EPOCHS"); do
    before=$(store_reads)
    fell=$(fallbacks)
    memory=$(mount_memory)
    cpu_snapshot "$WORK/epoch-0.cpu"
    profile_start
    rate=$(read_epoch "$name" "$epoch")
    profile_stop "$name-epoch-$epoch"
    cpu_snapshot "$WORK/epoch-1.cpu"
    echo "$name epoch $epoch: $(cpu_per_item "$WORK/epoch-0.cpu" "$WORK/epoch-1.cpu" "$FILES" file)" >&2
    reads=$(( $(store_reads) - before ))
    memory=$(python3 -c "print(f'{($(mount_memory) - $memory) / $FILES:.2f}')")
    [[ -z $PLAN ]] || echo "plan after epoch $epoch: $(api_curl -sf "$PRELOAD_URL/api/v1/plans/bench.0")" >&2
    echo "| $eviction, admission $admission${PLAN:+, epoch plans} | $epoch | $reads | $(hit_ratio "$reads") | $memory | $rate | $(( $(fallbacks) - fell )) |"
  done
  [[ -z ${KEEP_LOGS:-} ]] || cp "$WORK"/block-service-*.log "$WORK"/gateway-*.log "$WORK"/preload-service-*.log "$WORK"/fuse-client-*.log \
    "$KEEP_LOGS"/ 2>/dev/null || true
  if [[ -n $mount_pid ]]; then
    fusermount -uz "$WORK/mnt/granary" 2> /dev/null || umount -l "$WORK/mnt/granary"
    kill "$mount_pid"
    wait "$mount_pid" 2>/dev/null || true
    MOUNT_URL=
  fi
  kill "$worker_pid" "$gateway_pid"
  wait "$worker_pid" "$gateway_pid" 2>/dev/null || true
  # The next worker must own every block: wait until the metadata-service counts this one gone.
  for _ in $(seq 120); do (( $(live_workers) == 0 )) && break; sleep 0.25; done
  (( $(live_workers) == 0 )) || die "worker $name still counted live"
done
if [[ $READER == mount ]]; then
  # The baseline: the same DataLoader over s3fs on the store, which keeps nothing between epochs (each epoch reads
  # every file from the store: store reads are the files).
  mount_s3fs "$S3_URL" data "$WORK/mnt/store"
  for epoch in $(seq "$EPOCHS"); do
    cpu_snapshot "$WORK/epoch-0.cpu"
    rate=$(epoch "$WORK/mnt/store" --drop --seed "$epoch")
    cpu_snapshot "$WORK/epoch-1.cpu"
    echo "s3fs epoch $epoch: $(cpu_per_item "$WORK/epoch-0.cpu" "$WORK/epoch-1.cpu" "$FILES" file)" >&2
    echo "| s3fs on the store (no cache) | $epoch | $FILES | 0.00 | - | $rate | - |"
  done
fi
