#!/usr/bin/env bash
# Warm block reads from one block-service worker (MEM level and disk level, over HTTP) against reading the same
# bytes straight from S3Proxy, and against raw loopback TCP: the worker alone, before any gateway.
#   bench/block-read.sh [--size-mib 512] [--rounds 3]
# Needs the services built (./mvnw -DskipTests package); starts Kafka, S3Proxy, a metadata-service and a worker in
# a scratch directory and stops them when it ends.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SIZE_MIB=512
ROUNDS=3
while (( $# )); do
  case $1 in
    --size-mib) SIZE_MIB=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    *) die "usage: bench/block-read.sh [--size-mib N] [--rounds N]" ;;
  esac
done
BLOCK_MIB=64
BLOCKS=$(( (SIZE_MIB + BLOCK_MIB - 1) / BLOCK_MIB ))

require_built metadata-service block-service
echo "starting kafka, s3proxy, metadata-service, block-service in $WORK ..." >&2
start_kafka
start_s3
start_metadata
# A MEM level smaller than the file, so part of it spills to the disk level and both are measured.
start_worker bench-worker "$(( SIZE_MIB / 2 ))MiB" "$(( SIZE_MIB * 2 ))MiB"
WORKER=$WORKER_URL

echo "writing a ${SIZE_MIB} MiB object through S3 ..." >&2
mkdir -p "$WORK/s3/s3/buckets/bench"
head -c $(( SIZE_MIB << 20 )) /dev/urandom > "$WORK/object.bin"
s3curl -T "$WORK/object.bin" "$S3_URL/bench/object.bin" -o /dev/null
rm "$WORK/object.bin"
create_dataset bench bench "${BLOCK_MIB}MiB"
ETAG=$(etag_of bench object.bin)

block_url() { echo "$WORKER/blocks/bench/$1?path=object.bin&etag=$ETAG"; }
# A worker's block API takes Granary's own cluster credential only, as the gateway sends it.
CLUSTER_AUTH="Authorization: Bearer $(cat "$SECRETS/granary-cluster/token")"
for (( i = 0; i < BLOCKS; i++ )); do curl -sf -H "$CLUSTER_AUTH" -o /dev/null "$(block_url "$i")"; done   # cold: fill every block

echo "measuring ($ROUNDS rounds of $BLOCKS blocks of $BLOCK_MIB MiB) ..." >&2
for (( r = 0; r < ROUNDS; r++ )); do
  for (( i = 0; i < BLOCKS; i++ )); do
    curl -sf -H "$CLUSTER_AUTH" -o /dev/null -w '%{size_download} %{time_total} %header{x-granary-level}\n' "$(block_url "$i")"
  done
done > "$WORK/warm.txt"
for (( r = 0; r < ROUNDS; r++ )); do
  for (( i = 0; i < BLOCKS; i++ )); do
    first=$(( i * (BLOCK_MIB << 20) )); last=$(( first + (BLOCK_MIB << 20) - 1 ))
    s3curl -f -o /dev/null -H "Range: bytes=$first-$last" -w '%{size_download} %{time_total} S3\n' \
      "$S3_URL/bench/object.bin"
  done
done > "$WORK/direct.txt"
LOOPBACK=$(loopback_mbps)
head -c $(( BLOCK_MIB << 20 )) /dev/urandom > "$GRANARY_MEM_DIR/sendfile-probe"
SENDFILE=$(sendfile_mbps "$GRANARY_MEM_DIR/sendfile-probe")

rate() { awk -v level="$1" '$3 == level { bytes += $1; secs += $2 } END { if (secs > 0) printf "%.0f", bytes / secs / 1e6; else print "n/a" }' "$2"; }
MEM=$(rate MEM "$WORK/warm.txt")
SSD=$(rate SSD "$WORK/warm.txt")
DIRECT=$(rate S3 "$WORK/direct.txt")
cmp() { if [[ $1 == n/a ]]; then echo "n/a"; else ratio "$1" "$2"; fi; }

cat <<TABLE

Warm block reads, one worker, one client stream (curl), ${BLOCK_MIB} MiB blocks of a ${SIZE_MIB} MiB object, $ROUNDS rounds
$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(date -u +%Y-%m-%d)

| read | MB/s | vs direct S3Proxy | vs kernel sendfile | vs raw loopback TCP |
|---|---:|---:|---:|---:|
| worker, MEM level (tmpfs, sendfile) | $MEM | $(cmp "$MEM" "$DIRECT") | $(cmp "$MEM" "$SENDFILE") | $(cmp "$MEM" "$LOOPBACK") |
| worker, SSD level (disk dir, sendfile) | $SSD | $(cmp "$SSD" "$DIRECT") | $(cmp "$SSD" "$SENDFILE") | $(cmp "$SSD" "$LOOPBACK") |
| S3Proxy direct, same ranges | $DIRECT | 1.00 | $(ratio "$DIRECT" "$SENDFILE") | $(ratio "$DIRECT" "$LOOPBACK") |
| limit: kernel sendfile of a tmpfs block over loopback | $SENDFILE | $(ratio "$SENDFILE" "$DIRECT") | 1.00 | $(ratio "$SENDFILE" "$LOOPBACK") |
| limit: raw loopback TCP, memory to socket | $LOOPBACK | $(ratio "$LOOPBACK" "$DIRECT") | $(ratio "$LOOPBACK" "$SENDFILE") | 1.00 |

Every row is read by curl into /dev/null. The limits are a bare Python responder: "kernel sendfile" is the most a
server of block files can do here; "raw loopback TCP" sends from memory, which no file server can.
TABLE
