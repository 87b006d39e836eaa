#!/usr/bin/env bash
# The metadata cache: time and heap to load a dataset of 100,000 files, and listing throughput from the cache
# against listing the same objects from S3Proxy, in one run.
#   bench/metadata.sh [--files 100000] [--s3-objects 5000]
# Needs the services built (./mvnw -DskipTests package).
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FILES=100000
S3_OBJECTS=5000
while (( $# )); do
  case $1 in
    --files) FILES=$2; shift 2 ;;
    --s3-objects) S3_OBJECTS=$2; shift 2 ;;
    *) die "usage: bench/metadata.sh [--files N] [--s3-objects N]" ;;
  esac
done

require_built metadata-service
echo "starting kafka, s3proxy, metadata-service in $WORK ..." >&2
start_kafka
start_s3
start_metadata
METADATA_PID=${PIDS[-1]}  # the java process start_service just launched

echo "writing $FILES local files and $S3_OBJECTS S3 objects ..." >&2
python3 - "$WORK/local/many" "$FILES" "$WORK/s3/s3/buckets/listing" "$S3_OBJECTS" <<'PY'
import os, sys
def tree(root, count):
    for i in range(count):
        d = os.path.join(root, f"shard-{i % 100:03d}", f"class-{i % 1000 // 100}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"img-{i:07d}.jpg"), "wb") as f:
            f.write(b"x" * (i % 97))
tree(sys.argv[1], int(sys.argv[2])); tree(sys.argv[3], int(sys.argv[4]))
PY

heap_used() {  # bytes of heap in use after a full GC
  jcmd "$METADATA_PID" GC.run > /dev/null
  sleep 1
  curl -sf "$METADATA_URL/q/metrics" | python3 -c 'import sys
print(round(sum(float(l.split()[-1]) for l in sys.stdin if l.startswith("jvm_memory_used_bytes{area=\"heap\""))))'
}

# Lists a whole dataset from the cache, page by page; prints entries.
list_cache() {
  python3 - "$METADATA_URL/api/v1/datasets/$1/files" <<'PY'
import json, sys, urllib.parse, urllib.request
url, cursor, entries = sys.argv[1], None, 0
while True:
    query = {"limit": "1000"} | ({"cursor": cursor} if cursor else {})
    with urllib.request.urlopen(url + "?" + urllib.parse.urlencode(query)) as response:
        page = json.load(response)
    entries += len(page["files"])
    cursor = page.get("nextCursor")
    if not cursor: break
print(entries)
PY
}

# Lists the bucket from S3Proxy with ListObjectsV2, page by page (start-after the last key); prints entries.
list_s3() {
  local after="" entries=0 page keys
  while :; do
    page=$(s3curl "$S3_URL/$1?list-type=2&max-keys=1000${after:+&start-after=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$after")}")
    keys=$(grep -o '<Key>[^<]*' <<< "$page" | cut -c6- || true)
    [[ -n $keys ]] || break
    entries=$(( entries + $(wc -l <<< "$keys") ))
    after=$(tail -n 1 <<< "$keys")
    grep -q '<IsTruncated>true' <<< "$page" || break
  done
  echo "$entries"
}

timed() { local start end; start=$(date +%s.%N); "$@" > "$WORK/timed.out"; end=$(date +%s.%N); python3 -c "print(f'{$end - $start:.3f}')"; }

HEAP_BEFORE=$(heap_used)
LOAD_SECS=$(timed create_dataset_over many "{\"uri\":\"file://$WORK/local/many\"}" 16MiB 600)
HEAP_AFTER=$(heap_used)
COUNT=$(api_curl -sf "$METADATA_URL/api/v1/datasets/many" | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"]["fileCount"])')
[[ $COUNT == "$FILES" ]] || die "dataset many has $COUNT files, expected $FILES"
LIST_SECS=$(timed list_cache many)
[[ $(cat "$WORK/timed.out") == "$FILES" ]] || die "the cache listed $(cat "$WORK/timed.out") files"

create_dataset_over listing "{\"uri\":\"s3://listing/\",\"credentialsRef\":\"bench-s3\",\"options\":{\"endpoint\":\"$S3_URL\",\"pathStyle\":\"true\"}}" 16MiB 600
CACHE_SECS=$(timed list_cache listing)
[[ $(cat "$WORK/timed.out") == "$S3_OBJECTS" ]] || die "the cache listed $(cat "$WORK/timed.out") objects"
S3_SECS=$(timed list_s3 listing)
[[ $(cat "$WORK/timed.out") == "$S3_OBJECTS" ]] || die "S3Proxy listed $(cat "$WORK/timed.out") objects"

per_s() { python3 -c "print(f'{$1 / $2:,.0f}')"; }
cat <<TABLE

Metadata cache, one metadata-service replica (-Xmx384m), $(nproc) cores, $(date -u +%Y-%m-%d)

| measure | result |
|---|---:|
| load $FILES files (file:// mount, listed once) | $LOAD_SECS s ($(per_s "$FILES" "$LOAD_SECS") files/s) |
| heap held after the load (after full GC) | $(python3 -c "print(f'{($HEAP_AFTER - $HEAP_BEFORE) / 1048576:.1f} MiB, {($HEAP_AFTER - $HEAP_BEFORE) / $FILES:.0f} B per file')") |
| list all $FILES from the cache (pages of 1000) | $LIST_SECS s ($(per_s "$FILES" "$LIST_SECS") entries/s) |

| list $S3_OBJECTS objects, pages of 1000 | seconds | entries/s | vs S3Proxy |
|---|---:|---:|---:|
| metadata cache (REST) | $CACHE_SECS | $(per_s "$S3_OBJECTS" "$CACHE_SECS") | $(ratio "$S3_SECS" "$CACHE_SECS") |
| S3Proxy ListObjectsV2 (curl) | $S3_SECS | $(per_s "$S3_OBJECTS" "$S3_SECS") | 1.00 |
TABLE
