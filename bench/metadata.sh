#!/usr/bin/env bash
# The metadata cache: time and heap to list a dataset of 100,000 files into it, listing throughput from the cache against
# listing the same objects from S3Proxy, and a second replica joining (time, heap), in one run.
#   bench/metadata.sh [--files 100000] [--s3-objects 5000] [--heap 384m]
# --files 10000000 --heap 1g needs about 30 GB of disk and 10 M free inodes, and an hour; above a million files are
# written empty (4 KiB of disk each otherwise).
# Needs the services built (./mvnw -DskipTests package).
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FILES=100000
S3_OBJECTS=5000
HEAP=384m
while (( $# )); do
  case $1 in
    --files) FILES=$2; shift 2 ;;
    --s3-objects) S3_OBJECTS=$2; shift 2 ;;
    --heap) HEAP=$2; shift 2 ;;
    *) die "usage: bench/metadata.sh [--files N] [--s3-objects N] [--heap SIZE]" ;;
  esac
done

require_built metadata-service
export GRANARY_SERVICE_HEAP=-Xmx$HEAP
echo "starting kafka, s3proxy, metadata-service in $WORK ..." >&2
start_kafka
start_s3
# Two replicas' cluster ports up front: the second joins later, and each lists both.
CLUSTER_A=$(free_port)
CLUSTER_B=$(free_port)
HOSTS="127.0.0.1[$CLUSTER_A],127.0.0.1[$CLUSTER_B]"
METADATA_PORT=$(free_port)
mkdir -p "$GRANARY_DATA_DIR"
start_service metadata-service "$METADATA_PORT" -Dgranary.metadata.cluster.bind-port="$CLUSTER_A" \
  "-Dgranary.metadata.cluster.initial-hosts=$HOSTS"
METADATA_PID=${PIDS[-1]}  # the java process start_service just launched
METADATA_URL="http://127.0.0.1:$METADATA_PORT"

echo "writing $FILES local files and $S3_OBJECTS S3 objects ..." >&2
python3 - "$WORK/local/many" "$FILES" "$WORK/s3/s3/buckets/listing" "$S3_OBJECTS" <<'PY'
import os, sys
def tree(root, count):
    shards = max(100, count // 10000)  # about a thousand files a directory at most
    empty = count > 1_000_000
    made = set()
    for i in range(count):
        d = os.path.join(root, f"shard-{i % shards:04d}", f"class-{i % (shards * 10) // shards}")
        if d not in made:
            os.makedirs(d, exist_ok=True)
            made.add(d)
        fd = os.open(os.path.join(d, f"img-{i:08d}.jpg"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        if not empty:
            os.write(fd, b"x" * (i % 97))
        os.close(fd)
tree(sys.argv[1], int(sys.argv[2])); tree(sys.argv[3], int(sys.argv[4]))
PY

heap_used() {  # heap_used PID: bytes of the live objects on the heap (a class histogram after a full GC)
  jcmd "$1" GC.class_histogram | awk '$1 == "Total" { print $3 }'
}

# list_cache DATASET [API]: lists a whole dataset from the cache, page by page; prints entries.
list_cache() {
  python3 - "${2:-$METADATA_URL}/api/v1/datasets/$1/files" <<'PY'
import json, os, sys, urllib.parse, urllib.request
url, cursor, entries = sys.argv[1], None, 0
while True:
    query = {"limit": "1000"} | ({"cursor": cursor} if cursor else {})
    request = urllib.request.Request(url + "?" + urllib.parse.urlencode(query),
                                     headers={"Authorization": os.environ["GRANARY_AUTH"]})
    with urllib.request.urlopen(request) as response:
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

HEAP_BEFORE=$(heap_used "$METADATA_PID")
FIRST_LISTING_SECS=$(timed create_dataset_over many "{\"uri\":\"file://$WORK/local/many\"}" 16MiB 7200)
HEAP_AFTER=$(heap_used "$METADATA_PID")
echo "listed into the cache in $FIRST_LISTING_SECS s, heap $HEAP_BEFORE -> $HEAP_AFTER bytes" >&2
COUNT=$(api_curl -sf "$METADATA_URL/api/v1/datasets/many" | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"]["fileCount"])')
[[ $COUNT == "$FILES" ]] || die "dataset many has $COUNT files, expected $FILES"
LIST_SECS=$(timed list_cache many)
echo "listed in $LIST_SECS s" >&2
[[ $(cat "$WORK/timed.out") == "$FILES" ]] || die "the cache listed $(cat "$WORK/timed.out") files"

create_dataset_over listing "{\"uri\":\"s3://listing/\",\"credentialsRef\":\"bench-s3\",\"options\":{\"endpoint\":\"$S3_URL\",\"pathStyle\":\"true\"}}" 16MiB 600
CACHE_SECS=$(timed list_cache listing)
[[ $(cat "$WORK/timed.out") == "$S3_OBJECTS" ]] || die "the cache listed $(cat "$WORK/timed.out") objects"
S3_SECS=$(timed list_s3 listing)
[[ $(cat "$WORK/timed.out") == "$S3_OBJECTS" ]] || die "S3Proxy listed $(cat "$WORK/timed.out") objects"

# A second replica joins: the state transfer and the rebuild of its file index before it is ready.
SECOND_PORT=$(free_port)
JOIN_START=$(date +%s.%N)
READY_SECONDS=7200 start_service metadata-service "$SECOND_PORT" -Dgranary.metadata.cluster.bind-port="$CLUSTER_B" \
  "-Dgranary.metadata.cluster.initial-hosts=$HOSTS" -Dgranary.metadata.data-dir="$WORK/metadata-2"
JOIN_SECS=$(python3 -c "print(f'{$(date +%s.%N) - $JOIN_START:.1f}')")
SECOND_URL="http://127.0.0.1:$SECOND_PORT"
SECOND_COUNT=$(api_curl -sf "$SECOND_URL/api/v1/datasets/many" | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"]["fileCount"])')
[[ $SECOND_COUNT == "$FILES" ]] || die "the second replica has $SECOND_COUNT files, expected $FILES"
SECOND_HEAP=$(heap_used "${PIDS[-1]}")
SECOND_LIST_SECS=$(timed list_cache many "$SECOND_URL")

per_s() { python3 -c "print(f'{$1 / $2:,.0f}')"; }
cat <<TABLE

Metadata cache, metadata-service replicas with -Xmx$HEAP, $(nproc) cores, $(date -u +%Y-%m-%d)

| measure | result |
|---|---:|
| first listing of $FILES files into the cache (file:// mount) | $FIRST_LISTING_SECS s ($(per_s "$FILES" "$FIRST_LISTING_SECS") files/s) |
| live heap after the listing (after full GC), and its growth per file | $(python3 -c "print(f'{$HEAP_AFTER / 1048576:.1f} MiB; {($HEAP_AFTER - $HEAP_BEFORE) / $FILES:.0f} B per file')") |
| list all $FILES from the cache (pages of 1000) | $LIST_SECS s ($(per_s "$FILES" "$LIST_SECS") entries/s) |
| a second replica joins (state transfer, file index built, ready) | $JOIN_SECS s |
| its live heap after the join (after full GC) | $(python3 -c "print(f'{$SECOND_HEAP / 1048576:.1f} MiB')") |
| list all $FILES from the second replica | $SECOND_LIST_SECS s ($(per_s "$FILES" "$SECOND_LIST_SECS") entries/s) |
| file index on disk, first replica | $(du -sh "$GRANARY_DATA_DIR/.granary/metadata/file-index" | cut -f1) |

| list $S3_OBJECTS objects, pages of 1000 | seconds | entries/s | vs S3Proxy |
|---|---:|---:|---:|
| metadata cache (REST) | $CACHE_SECS | $(per_s "$S3_OBJECTS" "$CACHE_SECS") | $(ratio "$S3_SECS" "$CACHE_SECS") |
| S3Proxy ListObjectsV2 (curl) | $S3_SECS | $(per_s "$S3_OBJECTS" "$S3_SECS") | 1.00 |
TABLE
