#!/usr/bin/env bash
# Shuffled epochs of a dataset larger than the cache, through the gateway, for each cache policy in one run: the
# store's reads and the hit ratio of every epoch, and the epoch's files/s.
#   bench/epochs.sh [--files 2000] [--epochs 4] [--mem 64MiB] [--ssd 64MiB]
# 2,000 objects of 128 KiB (250 MiB) against a cache of 128 MiB (51% of it) by default, read 8 at a time in a fresh
# random order each epoch, as a DataLoader with shuffle=True reads them; first with LRU admitting every block (the
# store until now), then with the store's default (CLOCK, TinyLFU admission). Every byte count is checked.
# Needs the services built (./mvnw -DskipTests package); every process it starts is stopped when it ends.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FILES=2000
EPOCHS=4
MEM=64MiB
SSD=64MiB
while (( $# )); do
  case $1 in
    --files) FILES=$2; shift 2 ;;
    --epochs) EPOCHS=$2; shift 2 ;;
    --mem) MEM=$2; shift 2 ;;
    --ssd) SSD=$2; shift 2 ;;
    *) die "usage: bench/epochs.sh [--files N] [--epochs N] [--mem SIZE] [--ssd SIZE]" ;;
  esac
done

require_built metadata-service block-service gateway
echo "starting kafka, s3proxy, metadata-service in $WORK ..." >&2
start_kafka
start_s3
start_metadata
put_small_objects data "$FILES" "$WORK/keys"

# What the store was asked for: by the worker (every miss it filled, or read through without storing it) and by
# the gateway itself (reads around a worker that failed).
store_reads() {
  local url total=0 n
  for url in "$WORKER_URL" "$GATEWAY"; do
    n=$(curl -sf "$url/q/metrics" | awk '/^granary_understore_requests_total\{op="read"\}/ { n += $2 } END { printf "%d", n }')
    total=$(( total + n ))
  done
  echo "$total"
}

fallbacks() {
  curl -sf "$GATEWAY/q/metrics" | awk '/^granary_gateway_fallbacks_total/ { n += $2 } END { printf "%d", n }'
}

live_workers() {
  api_curl -sf "$METADATA_URL/api/v1/workers" | python3 -c 'import json,sys; print(sum(1 for w in json.load(sys.stdin) if w["live"]))'
}

echo
echo "Shuffled epochs through the gateway: $FILES objects of $SMALL_KIB KiB, cache $MEM MEM + $SSD SSD,"
echo "$(nproc) cores, $(date -u +%Y-%m-%d). Store reads and hit ratio of each epoch, 8 reads at a time."
echo
echo "| policy | epoch | store reads | hit ratio | files/s | gateway fallbacks |"
echo "|---|---:|---:|---:|---:|---:|"
for policy in "lru always" "clock tinylfu"; do
  read -r eviction admission <<< "$policy"
  start_worker "epochs-$eviction" "$MEM" "$SSD" -Dgranary.block.eviction="$eviction" \
    -Dgranary.block.admission="$admission"
  worker_pid=${PIDS[-1]}
  start_gateway
  gateway_pid=${PIDS[-1]}
  create_dataset "epochs-$eviction" data 1MiB
  for epoch in $(seq "$EPOCHS"); do
    shuf "$WORK/keys" > "$WORK/epoch.keys"
    before=$(store_reads)
    fell=$(fallbacks)
    read -r rate _ < <(small_rate "$GATEWAY" "epochs-$eviction" "$WORK/epoch.keys")
    reads=$(( $(store_reads) - before ))
    echo "| $eviction, admission $admission | $epoch | $reads | $(python3 -c "print(f'{max(0.0, 1 - $reads / $FILES):.2f}')") | $rate | $(( $(fallbacks) - fell )) |"
  done
  [[ -z ${KEEP_LOGS:-} ]] || cp "$WORK"/block-service-*.log "$WORK"/gateway-*.log "$KEEP_LOGS"/ 2>/dev/null || true
  kill "$worker_pid" "$gateway_pid"
  wait "$worker_pid" "$gateway_pid" 2>/dev/null || true
  # The next worker must own every block: wait until the metadata-service counts this one gone.
  for _ in $(seq 120); do (( $(live_workers) == 0 )) && break; sleep 0.25; done
  (( $(live_workers) == 0 )) || die "worker epochs-$eviction still counted live"
done
