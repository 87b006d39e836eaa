#!/usr/bin/env bash
# The one end-to-end benchmark: starts Granary, writes the dataset to the store and prints one table of
#   direct reads from the store, cold reads through Granary (the first read fills the cache), the preload time
#   (a DataLoad), warm reads through Granary, and raw loopback TCP as the physical limit,
# for one large object (MB/s) and many 128 KiB objects read 8 at a time (files/s, MB/s), with ratios to direct;
# then a POSIX table: PyTorch DataLoader epochs over the small objects through Granary's FUSE client, s3fs on the
# gateway and s3fs on the store, cold and warm, and a 1 GiB dd through the FUSE client, cold and warm.
#   bench/run.sh [--size-mib 1024] [--files 5000] [--rounds 2] [--link MBIT[:DELAY_MS]] [--no-posix]
# The POSIX section needs root, /dev/fuse, s3fs and PyTorch for $TORCH_PYTHON (Debian's python3-torch);
# --no-posix leaves it out.
# --link (root) puts the store behind an emulated link: S3Proxy in a network namespace, reached over a veth pair
# limited to MBIT Mbit/s (and delayed by DELAY_MS each way) in both directions, as a remote object store is.
# ASYNC_PROFILER=/path/to/libasyncProfiler.so profiles every JVM of the run through the cold small-file pass (the
# hottest frames of each in $PROFILES, /tmp by default).
# Needs the services built (./mvnw -DskipTests package); every process it starts is stopped when it ends.
set -euo pipefail
shopt -s inherit_errexit  # a failure inside $(...) stops the run too
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SIZE_MIB=1024
FILES=5000
ROUNDS=2
LINK_MBIT=
LINK_DELAY_MS=0
POSIX=1
usage() { die "usage: bench/run.sh [--size-mib N] [--files N] [--rounds N] [--link MBIT[:DELAY_MS]] [--no-posix]"; }
while (( $# )); do
  case $1 in
    --size-mib) SIZE_MIB=$2; shift 2 ;;
    --files) FILES=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --link)
      [[ $2 =~ ^([0-9]+)(:([0-9]+))?$ ]] || usage
      LINK_MBIT=${BASH_REMATCH[1]}; LINK_DELAY_MS=${BASH_REMATCH[3]:-0}; shift 2 ;;
    --no-posix) POSIX=; shift ;;
    *) usage ;;
  esac
done
LARGE_BYTES=$(( SIZE_MIB << 20 ))
SMALL_BYTES=$(( FILES * SMALL_KIB * 1024 ))
WARMUP_FILES=2000  # enough requests that the gateway's optimising JIT has compiled its paths before they are timed
# Four of the large dataset's 64 MiB blocks: a warm-up object of one block never took the read-ahead of the next
# blocks, so the measured 1 GiB read deoptimised the shared read path and the cold small pass recompiled it.
WARMUP_MIB=256

fill_breakdown() {  # fill_breakdown N: each stage of a cold read between two scrapes of the gateway and the worker
  python3 - "$WORK/gateway-$1.prom" "$WORK/gateway-$(( $1 + 1 )).prom" "$WORK/fills-$1.prom" "$WORK/fills-$(( $1 + 1 )).prom" <<'PY'
import re, sys
def scrape(path, metric):
    found = {}
    for line in open(path):
        m = re.match(metric + r'_(sum|count)\{stage="([a-z_]+)".*\} (\S+)', line)
        if m:
            found[(m.group(2), m.group(1))] = float(m.group(3))
    return found
def stages(metric, before, after, names):
    before, after = scrape(before, metric), scrape(after, metric)
    delta = lambda stage, kind: after.get((stage, kind), 0) - before.get((stage, kind), 0)
    return ", ".join(f"{s.replace('_', ' ')} {delta(s, 'sum') / max(delta(s, 'count'), 1) * 1000:.2f} ms"
                     f" ({delta(s, 'count'):.0f})" for s in names)
print("gateway: " + stages("granary_gateway_cold_stage_seconds", sys.argv[1], sys.argv[2], ["metadata", "fill"])
      + "; worker, of the fill: " + stages("granary_block_fill_stage_seconds", sys.argv[3], sys.argv[4],
      ["reserve", "first_byte", "body", "write", "commit", "event"]))
PY
}

jit_snapshot() {  # jit_snapshot FILE: seconds each JVM of this run has spent compiling so far, by process
  local pid secs
  for pid in "${PIDS[@]}"; do
    secs=$(jstat -compiler "$pid" 2>/dev/null | awk 'NR == 2 { print $4 }' || true)
    if [[ -n $secs ]]; then
      printf '%s %s\n' "$(process_name "$pid")" "$secs"
    fi
  done > "$1"
}
jit_per_file() {  # jit_per_file BEFORE AFTER COUNT: µs of compiling per file, by process, where any
  python3 - "$@" <<'PY'
import sys
def read(path):
    return {name: float(secs) for name, secs in (line.split() for line in open(path))}
before, after, count = read(sys.argv[1]), read(sys.argv[2]), int(sys.argv[3])
parts = [(name, (after[name] - before.get(name, 0)) * 1e6 / count) for name in after]
print(", ".join(f"{name} {us:.0f}" for name, us in sorted(parts, key=lambda p: -p[1]) if us >= 1) or "none")
PY
}

# The JVMs compile their hot paths on first use. "Cold" below means the cache is cold, not the JIT: run every
# path once (cold read, eviction, DataLoad, warm read, direct read) on a small bucket of its own.
warm_up() {
  put_large_object warmup big.bin "$WARMUP_MIB"
  put_small_objects warmup "$WARMUP_FILES" "$WORK/warmup.keys"
  create_dataset warmup warmup 64MiB
  # The store's JVM too: its path for a worker's ranged, If-Match GETs is not the direct one. Until the JIT has
  # settled on the cold path (it compiled for 0.3-0.45 ms of the gateway's CPU per file of a 5,000-file cold pass
  # after three rounds), at most ten rounds.
  local round jit last_jit=-1
  for (( round = 0; round < 10; round++ )); do
    small_rate "$GATEWAY" warmup "$WORK/warmup.keys" > /dev/null
    large_get "$GATEWAY/warmup/big.bin" $(( WARMUP_MIB << 20 )) > /dev/null
    evict warmup
    jit=$(jit_seconds)
    echo "  warm-up cold round $(( round + 1 )): the JVMs have compiled for ${jit} s" >&2
    (( round >= 2 )) && python3 -c "import sys; sys.exit($jit - $last_jit >= 0.5)" && break
    last_jit=$jit
  done
  dataload warmup > /dev/null
  # The warm path is the cheapest to warm up, and the one most sensitive to the JIT: C2, sharing two cores with
  # the client, was still compiling the gateway's warm path after 16,000 GETs, and settled by about 40,000.
  for (( round = 0; round < 24; round++ )); do
    small_rate "$GATEWAY" warmup "$WORK/warmup.keys" > /dev/null
    large_get "$GATEWAY/warmup/big.bin" $(( WARMUP_MIB << 20 )) > /dev/null
  done
  # Then the cold path once more. In the warm rounds C2 recompiles the code both paths share from warm reads alone
  # (a stat always in the near cache, say), without the miss branches, and the first cold read after them would
  # be the timed 1 GiB GET, compiling it again (1.3 s in a run of 24 warm rounds, then cold ones). A branch once
  # taken stays in the profile later compiles use, so one round should do.
  evict warmup
  small_rate "$GATEWAY" warmup "$WORK/warmup.keys" > /dev/null
  large_get "$GATEWAY/warmup/big.bin" $(( WARMUP_MIB << 20 )) > /dev/null
  evict warmup
  small_rate "$S3_URL" warmup "$WORK/warmup.keys" > /dev/null
  large_get "$S3_URL/warmup/big.bin" $(( WARMUP_MIB << 20 )) > /dev/null
}

dd_mbps() {  # dd_mbps FILE ROUNDS: MB/s of dd bs=1M from a cold page cache, best of ROUNDS
  local bytes secs
  for (( r = 0; r < $2; r++ )); do
    read -r bytes secs < <("$TORCH_PYTHON" "$ROOT/bench/posix.py" dd "$1")
    (( bytes == LARGE_BYTES )) || die "dd read $bytes bytes of $LARGE_BYTES from $1"
    echo "$bytes $secs"
  done | best_mbps
}

require_built metadata-service block-service preload-service gateway
[[ -z $POSIX ]] || { require_posix "(--no-posix leaves the POSIX section out)"; require_built fuse-client; }
if [[ -n $LINK_MBIT ]]; then
  create_link "$LINK_DELAY_MS"
  LINK_SETTING="emulated link: $LINK_MBIT Mbit/s, $( (( LINK_DELAY_MS )) && echo "$LINK_DELAY_MS ms each way" || echo "no added delay") (S3Proxy in a network namespace, veth shaped both ways)"
else
  LINK_SETTING="loopback, no emulation"
fi
echo "starting kafka, s3proxy, metadata-service, block-service, preload-service, gateway in $WORK ..." >&2
start_kafka
if [[ -n $LINK_MBIT ]]; then start_s3 "$LINK_NETNS" "$LINK_STORE_IP"; else start_s3; fi
start_metadata
# One worker on the gateway's node (its blocks are read by short-circuit), its MEM level big enough for
# everything with room below the high watermark (0.95), so nothing spills or is evicted behind the benchmark's back.
start_worker bench-worker "$(( (SIZE_MIB + FILES * SMALL_KIB / 1024 + WARMUP_MIB + WARMUP_FILES * SMALL_KIB / 1024) * 5 / 4 + 64 ))MiB" \
  "$(( SIZE_MIB * 2 ))MiB"
start_preload
start_gateway
start_nginx

# Written while the link is not shaped yet, so the setup takes seconds, not minutes.
echo "writing a ${SIZE_MIB} MiB object and $FILES objects of $SMALL_KIB KiB to the store ..." >&2
put_large_object large object.bin "$SIZE_MIB"
put_small_objects small "$FILES" "$WORK/small.keys"
create_dataset large large 64MiB
create_dataset small small 1MiB
echo "warming the JVMs up on a separate bucket ..." >&2
warm_up
if [[ -n $LINK_MBIT ]]; then
  echo "shaping the link to the store ..." >&2
  shape_link "$LINK_MBIT" "$LINK_DELAY_MS"
fi

echo "direct reads from the store ..." >&2
DIRECT_LARGE=$(large_rate "$S3_URL" "$ROUNDS")
cpu_snapshot "$WORK/direct-0.cpu"
DIRECT_SMALL=$(small_rates "$S3_URL" "$ROUNDS")
cpu_snapshot "$WORK/direct-1.cpu"
echo "nginx proxy_cache in front of the store: cold (its first read fills its cache), then warm ..." >&2
NGINX_COLD_LARGE=$(large_rate "$NGINX_URL" 1)
NGINX_COLD_SMALL=$(small_rates "$NGINX_URL" 1)
NGINX_WARM_LARGE=$(large_rate "$NGINX_URL" "$ROUNDS")
cpu_snapshot "$WORK/nginx-0.cpu"
NGINX_WARM_SMALL=$(small_rates "$NGINX_URL" "$ROUNDS")
cpu_snapshot "$WORK/nginx-1.cpu"
echo "cold reads through Granary (the cache fills) ..." >&2
curl -sf "$WORKER_URL/q/metrics" > "$WORK/fills-0.prom"
curl -sf "$GATEWAY/q/metrics" > "$WORK/gateway-0.prom"
COLD_LARGE=$(large_rate "$GATEWAY" 1)
curl -sf "$WORKER_URL/q/metrics" > "$WORK/fills-1.prom"
curl -sf "$GATEWAY/q/metrics" > "$WORK/gateway-1.prom"
jit_snapshot "$WORK/cold-0.jit"
profile_start
cpu_snapshot "$WORK/cold-0.cpu"
COLD_SMALL=$(small_rates "$GATEWAY" 1)
cpu_snapshot "$WORK/cold-1.cpu"
profile_stop cold
jit_snapshot "$WORK/cold-1.jit"
curl -sf "$WORKER_URL/q/metrics" > "$WORK/fills-2.prom"
curl -sf "$GATEWAY/q/metrics" > "$WORK/gateway-2.prom"
echo "evicting both datasets from the cache ..." >&2
evict large
evict small
echo "preloading both datasets (DataLoad) ..." >&2
PRELOAD_LARGE_SECS=$(preload large "$LARGE_BYTES")
cpu_snapshot "$WORK/preload-0.cpu"
PRELOAD_SMALL_SECS=$(preload small "$SMALL_BYTES")
cpu_snapshot "$WORK/preload-1.cpu"
# A DataLoad ends when the worker holds every block, but the block events it sent are still being counted by the
# metadata-service for a while, on the same two cores: measure the warm path once the system has settled.
settle large "$LARGE_BYTES"
settle small "$SMALL_BYTES"
echo "warm reads through Granary ..." >&2
UFS_WORKER_BEFORE=$(worker_understore_bytes)
UFS_GATEWAY_BEFORE=$(gateway_counter granary_gateway_served_bytes_total 'source="understore"')
WARM_LARGE=$(large_rate "$GATEWAY" "$ROUNDS")
cpu_snapshot "$WORK/warm-0.cpu"
WARM_SMALL=$(small_rates "$GATEWAY" "$ROUNDS")
cpu_snapshot "$WORK/warm-1.cpu"
WARM_UFS_WORKER=$(( $(worker_understore_bytes) - UFS_WORKER_BEFORE ))
WARM_UFS_GATEWAY=$(( $(gateway_counter granary_gateway_served_bytes_total 'source="understore"') - UFS_GATEWAY_BEFORE ))
FALLBACKS=$(gateway_counter granary_gateway_fallbacks_total)
if [[ -n $POSIX ]]; then
  echo "POSIX: mounting Granary's FUSE client, s3fs on the store and s3fs on the gateway ..." >&2
  NATIVE="$WORK/mnt/granary"
  mount_native "$NATIVE"
  mount_s3fs "$S3_URL" small "$WORK/mnt/store-small"
  mount_s3fs "$GATEWAY" small "$WORK/mnt/gateway-small"
  echo "POSIX: warming the FUSE client's JVM up on the warm-up bucket ..." >&2
  for _ in 1 2 3; do "$TORCH_PYTHON" "$ROOT/bench/posix.py" epoch "$NATIVE/warmup" --drop > /dev/null; done
  "$TORCH_PYTHON" "$ROOT/bench/posix.py" dd "$NATIVE/warmup/big.bin" > /dev/null
  echo "POSIX: DataLoader epochs over s3fs on the store ..." >&2
  STORE_COLD=$(epoch "$WORK/mnt/store-small")
  STORE_WARM=$(best_epoch "$ROUNDS" "$WORK/mnt/store-small")
  echo "POSIX: over s3fs on the gateway, from an empty cache ..." >&2
  evict small
  GATEWAY_COLD=$(epoch "$WORK/mnt/gateway-small")
  GATEWAY_WARM=$(best_epoch "$ROUNDS" "$WORK/mnt/gateway-small")
  echo "POSIX: over Granary's FUSE client, from an empty cache ..." >&2
  evict small
  NATIVE_COLD=$(epoch "$NATIVE/small" --drop)
  NATIVE_WARM=$(best_epoch "$ROUNDS" "$NATIVE/small" --drop)
  NATIVE_PAGES=$(best_epoch "$ROUNDS" "$NATIVE/small")
  echo "POSIX: the same epoch over a copy of the files in tmpfs (the DataLoader's own limit here) ..." >&2
  LIMIT_DIR="/dev/shm/granary-bench-$$-epoch"
  EXTRA_CLEANUP+=("$LIMIT_DIR")
  cp -r "$NATIVE/small" "$LIMIT_DIR"
  LIMIT_EPOCH=$(best_epoch "$ROUNDS" "$LIMIT_DIR")
  rm -rf "$LIMIT_DIR"
  echo "POSIX: dd of the large object through the FUSE client, from an empty cache, then warm ..." >&2
  evict large
  NATIVE_DD_COLD=$(dd_mbps "$NATIVE/large/object.bin" 1)
  NATIVE_DD=$(dd_mbps "$NATIVE/large/object.bin" "$ROUNDS")
fi
echo "raw loopback TCP ..." >&2
LOOPBACK=$(loopback_mbps)

read -r DIRECT_FILES DIRECT_SMALL_MB <<< "$DIRECT_SMALL"
read -r COLD_FILES COLD_SMALL_MB <<< "$COLD_SMALL"
read -r WARM_FILES WARM_SMALL_MB <<< "$WARM_SMALL"
read -r NGINX_COLD_FILES NGINX_COLD_SMALL_MB <<< "$NGINX_COLD_SMALL"
read -r NGINX_WARM_FILES NGINX_WARM_SMALL_MB <<< "$NGINX_WARM_SMALL"
PRELOAD_LARGE=$(mbps "$LARGE_BYTES" "$PRELOAD_LARGE_SECS")
PRELOAD_FILES=$(python3 -c "print(f'{$FILES / $PRELOAD_SMALL_SECS:.0f}')")
PRELOAD_SMALL_MB=$(mbps "$SMALL_BYTES" "$PRELOAD_SMALL_SECS")
row() {  # row LABEL LARGE-MBPS FILES SMALL-MBPS [NGINX-LARGE NGINX-FILES]: ratios to direct, and to nginx when given
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$(ratio "$2" "$DIRECT_LARGE")" "$3" "$4" \
    "$(ratio "$3" "$DIRECT_FILES")" "$([[ -n ${5:-} ]] && ratio "$2" "$5")" "$([[ -n ${6:-} ]] && ratio "$3" "$6")"
}

cat <<HEADER

Granary end to end: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) RAM, $(date -u +%Y-%m-%d). Store: $LINK_SETTING.
Large: one $SIZE_MIB MiB object (64 MiB blocks), one curl GET. Small: $FILES objects of $SMALL_KIB KiB (1 MiB blocks), 8 transfers at once (one curl --parallel).
Direct and warm: the best round of $ROUNDS; cold and preload: one pass. One worker, on the gateway's node.
nginx: Debian's, proxy_cache in tmpfs in front of the same store, read by the same client in the same run.

| read | large MB/s | large vs direct | small files/s | small MB/s | small vs direct | large vs nginx | small vs nginx |
|---|---:|---:|---:|---:|---:|---:|---:|
HEADER
row "direct from the store" "$DIRECT_LARGE" "$DIRECT_FILES" "$DIRECT_SMALL_MB"
row "nginx proxy_cache cold (first read fills its cache)" "$NGINX_COLD_LARGE" "$NGINX_COLD_FILES" "$NGINX_COLD_SMALL_MB"
row "Granary cold (first read fills the cache)" "$COLD_LARGE" "$COLD_FILES" "$COLD_SMALL_MB" \
  "$NGINX_COLD_LARGE" "$NGINX_COLD_FILES"
row "preload: DataLoad of each dataset (large $PRELOAD_LARGE_SECS s, small $PRELOAD_SMALL_SECS s)" \
  "$PRELOAD_LARGE" "$PRELOAD_FILES" "$PRELOAD_SMALL_MB"
row "nginx proxy_cache warm" "$NGINX_WARM_LARGE" "$NGINX_WARM_FILES" "$NGINX_WARM_SMALL_MB"
row "Granary warm (from the cache)" "$WARM_LARGE" "$WARM_FILES" "$WARM_SMALL_MB" "$NGINX_WARM_LARGE" "$NGINX_WARM_FILES"
printf '| limit: raw loopback TCP | %s | %s | | | | | |\n' "$LOOPBACK" "$(ratio "$LOOPBACK" "$DIRECT_LARGE")"
echo
echo "Granary warm 1 GiB GET against raw loopback TCP: $(ratio "$WARM_LARGE" "$LOOPBACK")."
echo
if [[ -n $LINK_MBIT ]]; then
  LINK_MBPS=$(python3 -c "print(f'{$LINK_MBIT / 8:g}')")
  echo "The link measured: direct large reads ran at $DIRECT_LARGE MB/s, $(ratio "$DIRECT_LARGE" "$LINK_MBPS") of the configured $LINK_MBIT Mbit/s ($LINK_MBPS MB/s)."
fi
echo "A cold read, mean time of each stage and how many there were: the gateway's (a stat the near cache did not"
echo "have; a fill asked of the worker, until it answered) and, within the fill, the worker's (event is part of commit):"
echo "- large object: $(fill_breakdown 0)"
echo "- small objects: $(fill_breakdown 1)"
echo "CPU per small file, by process (user + system):"
echo "- direct: $(cpu_per_item "$WORK/direct-0.cpu" "$WORK/direct-1.cpu" $(( FILES * ROUNDS )) file)"
echo "- cold: $(cpu_per_item "$WORK/cold-0.cpu" "$WORK/cold-1.cpu" "$FILES" file)"
echo "  of which the JIT compiling (µs per file, by process): $(jit_per_file "$WORK/cold-0.jit" "$WORK/cold-1.jit" "$FILES")"
echo "- DataLoad: $(cpu_per_item "$WORK/preload-0.cpu" "$WORK/preload-1.cpu" "$FILES" file)"
echo "- warm: $(cpu_per_item "$WORK/warm-0.cpu" "$WORK/warm-1.cpu" $(( FILES * ROUNDS )) file)"
echo "- nginx warm: $(cpu_per_item "$WORK/nginx-0.cpu" "$WORK/nginx-1.cpu" $(( FILES * ROUNDS )) file)"
echo "Under-store bytes read during the warm pass: $WARM_UFS_WORKER by the worker, $WARM_UFS_GATEWAY by the gateway (0: every warm byte came from the cache)."
echo "Gateway fallbacks to the under-store in the whole run: $FALLBACKS."

if [[ -n $POSIX ]]; then
  posix_row() {  # posix_row LABEL COLD WARM
    printf '| %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$(ratio "$3" "$STORE_WARM")" "$(ratio "$3" "$GATEWAY_WARM")"
  }
  cat <<POSIX_HEADER

POSIX: one PyTorch DataLoader epoch (4 workers, batches of 64, shuffled) over the $FILES small files, each read
whole with open().read(). Cold: the first epoch, the cache empty; warm: the best of $ROUNDS epochs after it, the
FUSE client's page cache dropped before each (posix_fadvise), so every read reaches the filesystem.

| mount | cold files/s | warm files/s | warm vs s3fs on the store | warm vs s3fs on the gateway |
|---|---:|---:|---:|---:|
POSIX_HEADER
  posix_row "s3fs on the store (no cache of its own)" "$STORE_COLD" "$STORE_WARM"
  posix_row "s3fs on Granary's gateway" "$GATEWAY_COLD" "$GATEWAY_WARM"
  posix_row "Granary's FUSE client" "$NATIVE_COLD" "$NATIVE_WARM"
  posix_row "Granary's FUSE client, page cache kept (a later epoch)" "" "$NATIVE_PAGES"
  posix_row "limit: the same files in tmpfs, no filesystem between" "" "$LIMIT_EPOCH"
  echo
  echo "Sequential: the $SIZE_MIB MiB object read by dd bs=1M through the FUSE client, warm, page cache dropped: $NATIVE_DD MB/s," \
    "$(ratio "$NATIVE_DD" "$WARM_LARGE") of the gateway's warm S3 GET of the same object in this run ($WARM_LARGE MB/s)."
  echo "Its first read, from an empty cache: $NATIVE_DD_COLD MB/s, $(ratio "$NATIVE_DD_COLD" "$DIRECT_LARGE") of the direct GET" \
    "from the store ($DIRECT_LARGE MB/s)."
  echo "Every epoch read the same bytes as the store's (order-free CRC32 digest $(cat "$WORK/epoch.digest"))."
fi
