#!/usr/bin/env bash
# Reads through the gateway against reads straight from S3Proxy, in one run on this machine:
#   - one large object, sequential GET (curl): cold (first read, the cache fills) and warm (from the cache)
#   - many small objects (128 KiB), 8 transfers at once (curl --parallel): cold and warm, files/s
#   - raw loopback TCP and kernel sendfile, the physical limits of one HTTP stream here
#   bench/gateway.sh [--size-mib 1024] [--files 5000] [--rounds 2]
# Needs the services built (./mvnw -DskipTests package); starts Kafka, S3Proxy, a metadata-service, one worker and
# the gateway in a scratch directory, and stops them when it ends.
set -euo pipefail
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
GATEWAY_PORT=$(free_port)
start_service gateway "$GATEWAY_PORT" -Dgranary.gateway.metadata-url="$METADATA_URL" \
  -Dgranary.gateway.secrets-dir="$WORK/secrets" -Dgranary.gateway.auth.credentials-refs=bench-s3 \
  -Dgranary.gateway.spool-dir="$WORK/spool" -Dgranary.gateway.read.membership-refresh=1s
GATEWAY="http://127.0.0.1:$GATEWAY_PORT"
wait_until 30 "$WORK/gateway-$GATEWAY_PORT.log" \
  bash -c "curl -sf '$METADATA_URL/api/v1/workers' | grep -q '\"live\":true'"

echo "writing a ${SIZE_MIB} MiB object and $FILES objects of 128 KiB through S3 ..." >&2
mkdir -p "$WORK/s3/s3/buckets/large" "$WORK/s3/s3/buckets/small" "$WORK/small"
head -c $(( SIZE_MIB << 20 )) /dev/urandom > "$WORK/object.bin"
s3curl -T "$WORK/object.bin" "$S3_URL/large/object.bin" -o /dev/null
rm "$WORK/object.bin"
python3 - "$WORK/small" "$FILES" <<'PY'
import os, sys
root, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    d = os.path.join(root, f"part-{i // 500:03d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"sample-{i:05d}.bin"), "wb") as f:
        f.write(os.urandom(128 * 1024))
PY
python3 "$ROOT/bench/s3.py" put "$S3_URL" "$S3_ACCESS" "$S3_SECRET" small "$WORK/small" 8 > /dev/null
(cd "$WORK/small" && find . -type f | sed 's|^\./||' | sort) > "$WORK/small.keys"
rm -rf "$WORK/small"
create_dataset large large 64MiB
create_dataset small small 1MiB

# The JVMs compile their hot paths on first use. "Cold" below means the cache is cold, not the JIT: warm the
# services up on other objects (their own bucket, so nothing measured is cached by it).
echo "warming up the JVMs on a separate bucket ..." >&2
mkdir -p "$WORK/s3/s3/buckets/warmup" "$WORK/warmup"
for (( i = 0; i < 1000; i++ )); do head -c 131072 /dev/urandom > "$WORK/warmup/w$i.bin"; done
head -c $(( 256 << 20 )) /dev/urandom > "$WORK/warmup/big.bin"
python3 "$ROOT/bench/s3.py" put "$S3_URL" "$S3_ACCESS" "$S3_SECRET" warmup "$WORK/warmup" 8 > /dev/null
(cd "$WORK/warmup" && ls w*.bin) > "$WORK/warmup.keys"
rm -rf "$WORK/warmup"
create_dataset warmup warmup 64MiB
for (( r = 0; r < 3; r++ )); do
  python3 "$ROOT/bench/s3.py" get "$GATEWAY" "$S3_ACCESS" "$S3_SECRET" warmup "$WORK/warmup.keys" 8 > /dev/null
  curl -sf -o /dev/null --aws-sigv4 "aws:amz:us-east-1:s3" --user "$S3_ACCESS:$S3_SECRET" \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$GATEWAY/warmup/big.bin"
done
python3 "$ROOT/bench/s3.py" get "$S3_URL" "$S3_ACCESS" "$S3_SECRET" warmup "$WORK/warmup.keys" 8 > /dev/null

get_large() { curl -sf -o /dev/null -w '%{size_download} %{time_total}\n' "$@"; }
large_mbps() { awk '{ bytes += $1; secs += $2 } END { printf "%.0f", bytes / secs / 1e6 }'; }
# Small objects are read by one curl with 8 transfers in flight (--parallel, connections reused, SigV4 in C): a
# client fast enough that the server, not the client, sets the rate (a Python client tops out near 1,000 files/s).
small_rate() {  # small_rate ENDPOINT: prints files/s and MB/s
  awk -v base="$1" '{ print "url = \"" base "/small/" $1 "\"\noutput = \"/dev/null\"" }' "$WORK/small.keys" > "$WORK/small.curl"
  local start end bytes
  start=$(date +%s.%N)
  bytes=$(curl -sSf --parallel --parallel-immediate --parallel-max 8 --aws-sigv4 "aws:amz:us-east-1:s3" \
    --user "$S3_ACCESS:$S3_SECRET" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -w '%{size_download}\n' \
    -K "$WORK/small.curl" | awk '{ n += $1 } END { print n }')
  end=$(date +%s.%N)
  python3 -c "import sys; f, b, s = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) - float(sys.argv[4]); \
assert b == f * 131072, f'read {b} bytes of {f * 131072}'; print(f'{f / s:.0f} {b / s / 1e6:.0f}')" \
    "$(wc -l < "$WORK/small.keys")" "$bytes" "$end" "$start"
}
gw_large() { get_large --aws-sigv4 "aws:amz:us-east-1:s3" --user "$S3_ACCESS:$S3_SECRET" \
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$GATEWAY/large/object.bin"; }
s3_large() { get_large --aws-sigv4 "aws:amz:us-east-1:s3" --user "$S3_ACCESS:$S3_SECRET" \
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$S3_URL/large/object.bin"; }

echo "direct reads from S3Proxy ..." >&2
DIRECT_LARGE=$(for (( r = 0; r < ROUNDS; r++ )); do s3_large; done | large_mbps)
read -r DIRECT_FILES DIRECT_SMALL_MB <<< "$(small_rate "$S3_URL")"
echo "cold reads through the gateway (the cache fills) ..." >&2
COLD_LARGE=$(gw_large | large_mbps)
read -r COLD_FILES COLD_SMALL_MB <<< "$(small_rate "$GATEWAY")"
echo "warm reads through the gateway ..." >&2
WARM_LARGE=$(for (( r = 0; r < ROUNDS; r++ )); do gw_large; done | large_mbps)
WARM_RUNS=()
for (( r = 0; r < ROUNDS; r++ )); do WARM_RUNS+=("$(small_rate "$GATEWAY")"); done
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
