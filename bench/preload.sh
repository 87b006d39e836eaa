#!/usr/bin/env bash
# Preload throughput (MB/s and files/s) of a DataLoad onto two workers, against reading the same files straight
# from S3Proxy with 8 threads, in one run.
#   bench/preload.sh [--files 2000] [--file-kib 128] [--big-mib 256]
# Needs the services built (./mvnw -DskipTests package).
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FILES=2000
FILE_KIB=128
BIG_MIB=256
while (( $# )); do
  case $1 in
    --files) FILES=$2; shift 2 ;;
    --file-kib) FILE_KIB=$2; shift 2 ;;
    --big-mib) BIG_MIB=$2; shift 2 ;;
    *) die "usage: bench/preload.sh [--files N] [--file-kib N] [--big-mib N]" ;;
  esac
done

require_built metadata-service block-service preload-service
echo "starting kafka, s3proxy, metadata-service, two workers, preload-service in $WORK ..." >&2
start_kafka
start_s3
start_metadata
start_worker bench-w1 1GiB 4GiB
start_worker bench-w2 1GiB 4GiB
start_preload

echo "writing $FILES files of $FILE_KIB KiB and one of $BIG_MIB MiB through S3 ..." >&2
python3 - "$WORK/gen" "$FILES" "$FILE_KIB" "$BIG_MIB" <<'PY'
import os, sys
root, files, kib, big = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
for i in range(files):
    d = os.path.join(root, "train", f"shard-{i % 20:02d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"sample-{i:06d}.bin"), "wb") as f:
        f.write(os.urandom(kib * 1024))
os.makedirs(os.path.join(root, "ckpt"), exist_ok=True)
with open(os.path.join(root, "ckpt", "model.bin"), "wb") as f:
    for _ in range(big):
        f.write(os.urandom(1 << 20))
PY
mkdir -p "$WORK/s3/s3/buckets/bench"
python3 "$ROOT/bench/s3.py" put "$S3_URL" "$S3_ACCESS" "$S3_SECRET" bench "$WORK/gen" 8 > /dev/null
(cd "$WORK/gen" && find . -type f | sed 's#^\./##' | sort) > "$WORK/keys.txt"
TOTAL_BYTES=$(find "$WORK/gen" -type f -printf "%s\n" | awk "{ s += \$1 } END { print s }")
rm -rf "$WORK/gen"
create_dataset bench bench 16MiB
wait_until 60 "$WORK/kafka.log" bash -c "curl -sf -H 'Authorization: $GRANARY_AUTH' '$METADATA_URL/api/v1/workers' | grep -o '\"live\":true' | wc -l | grep -q 2"

# A short DataLoad first, so the services' JIT has compiled the load path: the table is about steady state.
echo "warming the services up with a small DataLoad ..." >&2
mkdir -p "$WORK/warmup/w" "$WORK/s3/s3/buckets/warmup"
for i in $(seq 300); do head -c $(( FILE_KIB * 1024 )) /dev/urandom > "$WORK/warmup/w/$i"; done
python3 "$ROOT/bench/s3.py" put "$S3_URL" "$S3_ACCESS" "$S3_SECRET" warmup "$WORK/warmup" 8 > /dev/null
create_dataset warmup warmup 16MiB
dataload warmup > /dev/null

echo "reading every object straight from S3Proxy (8 threads) ..." >&2
read -r _ DIRECT_BYTES DIRECT_SECS < <(python3 "$ROOT/bench/s3.py" get "$S3_URL" "$S3_ACCESS" "$S3_SECRET" bench "$WORK/keys.txt" 8)

echo "preloading the dataset ..." >&2
START=$(date +%s.%N)
ID=$(dataload bench)
END=$(date +%s.%N)
PRELOAD_SECS=$(python3 -c "print(f'{$END - $START:.3f}')")
PRELOADED=$(api_curl -sf "$PRELOAD_URL/api/v1/dataloads/$ID" | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["filesDone"], s["bytesDone"])')
read -r _ PRE_BYTES <<< "$PRELOADED"
[[ $PRE_BYTES == "$TOTAL_BYTES" ]] || die "preloaded $PRE_BYTES bytes of $TOTAL_BYTES"

N=$(( FILES + 1 ))
cat <<TABLE

Preload of $N objects ($FILES x $FILE_KIB KiB + one of $BIG_MIB MiB, $(( TOTAL_BYTES >> 20 )) MiB) from S3Proxy onto two
workers, 16 MiB blocks, after a warm-up DataLoad of 300 files; $(nproc) cores, $(date -u +%Y-%m-%d)

| path | seconds | MB/s | files/s | vs direct |
|---|---:|---:|---:|---:|
| DataLoad through the preload-service (polled to Complete) | $PRELOAD_SECS | $(mbps "$PRE_BYTES" "$PRELOAD_SECS") | $(python3 -c "print(f'{$N / $PRELOAD_SECS:.0f}')") | $(ratio "$DIRECT_SECS" "$PRELOAD_SECS") |
| the same objects read straight from S3Proxy, 8 threads | $DIRECT_SECS | $(mbps "$DIRECT_BYTES" "$DIRECT_SECS") | $(python3 -c "print(f'{$N / $DIRECT_SECS:.0f}')") | 1.00 |
TABLE
