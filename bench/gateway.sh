#!/usr/bin/env bash
# Reads through the gateway against reads straight from S3Proxy, in one run on this machine:
#   - one large object, sequential GET (curl): cold (first read, the cache fills) and warm (from the cache)
#   - many small objects (128 KiB), 8 transfers at once (curl --parallel): cold and warm, files/s
#   - raw loopback TCP and kernel sendfile, the physical limits of one HTTP stream here
#   bench/gateway.sh [--size-mib 1024] [--files 5000] [--rounds 2]
# Needs the services built (./mvnw -DskipTests package); starts Kafka, S3Proxy, a metadata-service, one worker and
# the gateway in a scratch directory, and stops them when it ends.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SIZE_MIB=1024
FILES=5000
ROUNDS=2
while (( $# )); do
  case $1 in
    --size-mib) SIZE_MIB=$2; shift 2 ;;
    --files) FILES=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    *) die "usage: bench/gateway.sh [--size-mib N] [--files N] [--rounds N]" ;;
  esac
done

require_built metadata-service block-service gateway
echo "starting kafka, s3proxy, metadata-service, block-service, gateway in $WORK ..." >&2
start_kafka
start_s3
start_metadata
start_worker bench-worker "$(( SIZE_MIB + FILES / 8 + 256 ))MiB" "$(( SIZE_MIB * 2 ))MiB"
start_gateway

echo "writing a ${SIZE_MIB} MiB object and $FILES objects of $SMALL_KIB KiB through S3 ..." >&2
put_large_object large object.bin "$SIZE_MIB"
put_small_objects small "$FILES" "$WORK/small.keys"
create_dataset large large 64MiB
create_dataset small small 1MiB

# The JVMs compile their hot paths on first use. "Cold" below means the cache is cold, not the JIT: warm the
# services up on other objects (their own bucket, so nothing measured is cached by it).
echo "warming up the JVMs on a separate bucket ..." >&2
put_small_objects warmup 1000 "$WORK/warmup.keys"
put_large_object warmup big.bin 256
create_dataset warmup warmup 64MiB
for (( r = 0; r < 3; r++ )); do
  small_rate "$GATEWAY" warmup "$WORK/warmup.keys" > /dev/null
  large_get "$GATEWAY/warmup/big.bin" $(( 256 << 20 )) > /dev/null
done
small_rate "$S3_URL" warmup "$WORK/warmup.keys" > /dev/null

large_mbps() { awk '{ bytes += $1; secs += $2 } END { printf "%.0f", bytes / secs / 1e6 }'; }
gw_large() { large_get "$GATEWAY/large/object.bin" $(( SIZE_MIB << 20 )); }
s3_large() { large_get "$S3_URL/large/object.bin" $(( SIZE_MIB << 20 )); }

echo "direct reads from S3Proxy ..." >&2
DIRECT_LARGE=$(for (( r = 0; r < ROUNDS; r++ )); do s3_large; done | large_mbps)
read -r DIRECT_FILES DIRECT_SMALL_MB <<< "$(small_rate "$S3_URL" small "$WORK/small.keys")"
echo "cold reads through the gateway (the cache fills) ..." >&2
COLD_LARGE=$(gw_large | large_mbps)
read -r COLD_FILES COLD_SMALL_MB <<< "$(small_rate "$GATEWAY" small "$WORK/small.keys")"
echo "warm reads through the gateway ..." >&2
WARM_LARGE=$(for (( r = 0; r < ROUNDS; r++ )); do gw_large; done | large_mbps)
WARM_RUNS=()
for (( r = 0; r < ROUNDS; r++ )); do WARM_RUNS+=("$(small_rate "$GATEWAY" small "$WORK/small.keys")"); done
read -r WARM_FILES WARM_SMALL_MB <<< "$(printf '%s\n' "${WARM_RUNS[@]}" | sort -n | tail -1)"
LOOPBACK=$(loopback_mbps)
PROBE="/dev/shm/granary-bench-$$-probe"; EXTRA_CLEANUP+=("$PROBE")
head -c $(( 64 << 20 )) /dev/urandom > "$PROBE"
SENDFILE=$(sendfile_mbps "$PROBE")
UFS_READS=$(curl -sf "$GATEWAY/q/metrics" | awk '/^granary_gateway_fallbacks_total/ { n += $2 } END { print n + 0 }')

cat <<TABLE

Gateway reads against direct S3Proxy reads, one run, $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(date -u +%Y-%m-%d)
Large: one ${SIZE_MIB} MiB object, sequential GET by curl (64 MiB blocks). Small: $FILES objects of 128 KiB, 8 concurrent transfers (one curl --parallel).

| read | large MB/s | large vs direct | large vs raw loopback | small files/s | small MB/s | small vs direct |
|---|---:|---:|---:|---:|---:|---:|
| direct from S3Proxy | $DIRECT_LARGE | 1.00 | $(ratio "$DIRECT_LARGE" "$LOOPBACK") | $DIRECT_FILES | $DIRECT_SMALL_MB | 1.00 |
| gateway, cold (first read fills the cache) | $COLD_LARGE | $(ratio "$COLD_LARGE" "$DIRECT_LARGE") | $(ratio "$COLD_LARGE" "$LOOPBACK") | $COLD_FILES | $COLD_SMALL_MB | $(ratio "$COLD_FILES" "$DIRECT_FILES") |
| gateway, warm (from the cache) | $WARM_LARGE | $(ratio "$WARM_LARGE" "$DIRECT_LARGE") | $(ratio "$WARM_LARGE" "$LOOPBACK") | $WARM_FILES | $WARM_SMALL_MB | $(ratio "$WARM_FILES" "$DIRECT_FILES") |
| limit: kernel sendfile of a tmpfs file | $SENDFILE | $(ratio "$SENDFILE" "$DIRECT_LARGE") | $(ratio "$SENDFILE" "$LOOPBACK") | | | |
| limit: raw loopback TCP | $LOOPBACK | $(ratio "$LOOPBACK" "$DIRECT_LARGE") | 1.00 | | | |

Fallbacks to the under-store during the run: $UFS_READS (0 means every gateway byte came from the cache or a fill).
TABLE
