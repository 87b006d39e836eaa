#!/usr/bin/env bash
# Granary over HDFS: the same fixtures as run.sh (one large file, many 128 KiB files) written into an HDFS (Hadoop's
# MiniDFSCluster: a NameNode and a DataNode, devstack), read directly with the Hadoop client (a plain
# FileSystem.open, as a job reading HDFS itself does; 1 reader for the large file, 8 at once for the small ones),
# then through Granary's gateway cold (the first read fills the cache), preloaded (a DataLoad) and warm; one table
# with ratios to direct.
#   bench/hdfs.sh [--size-mib 1024] [--files 5000] [--rounds 2]
# Needs the services built (./mvnw -DskipTests package); every process it starts is stopped when it ends.
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SIZE_MIB=1024
FILES=5000
ROUNDS=2
usage() { die "usage: bench/hdfs.sh [--size-mib N] [--files N] [--rounds N]"; }
while (( $# )); do
  case $1 in
    --size-mib) SIZE_MIB=$2; shift 2 ;;
    --files) FILES=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    *) usage ;;
  esac
done
LARGE_BYTES=$(( SIZE_MIB << 20 ))
SMALL_BYTES=$(( FILES * SMALL_KIB * 1024 ))

require_built metadata-service block-service preload-service gateway
HDFS_CLASSPATH=$(java -cp "$ROOT/devstack/target/classes" io.granary.devstack.Devstack hdfs-classpath)
hdfs_client() { java -Xmx512m -XX:+UseSerialGC -cp "$HDFS_CLASSPATH" io.granary.devstack.HdfsClient "$@" 2> "$WORK/hdfs-client.log"; }

start_hdfs() {  # sets HDFS_URL
  local port; port=$(free_port)
  java -Xmx48m -XX:+UseSerialGC -cp "$ROOT/devstack/target/classes" io.granary.devstack.Devstack hdfs \
    --port "$port" --data "$WORK" > "$WORK/hdfs.log" 2>&1 &
  PIDS+=($!)
  wait_until 120 "$WORK/hdfs.log" grep -q "hdfs ready" "$WORK/hdfs.log"
  HDFS_URL="hdfs://127.0.0.1:$port"
  # The gateway's admin keys: s3curl signs with them.
  mkdir -p "$SECRETS/bench-s3"
  printf '%s' "$S3_ACCESS" > "$SECRETS/bench-s3/accessKey"
  printf '%s' "$S3_SECRET" > "$SECRETS/bench-s3/secretKey"
  ensure_access "$SECRETS" bench-s3
}

direct_large() {  # MB/s of the large file, best of ROUNDS in one client JVM
  hdfs_client read "$HDFS_URL" /bench/large 1 "$ROUNDS" | awk '{ printf "%.0f", $2 / $3 / 1e6 }'
}
direct_small() {  # files/s and MB/s of the small files, 8 readers, best of ROUNDS in one client JVM
  hdfs_client read "$HDFS_URL" /bench/small 8 "$ROUNDS" | awk '{ printf "%.0f %.0f", $1 / $3, $2 / $3 / 1e6 }'
}

# The JVMs compile their hot paths on first use: "cold" below means the cache is cold, not the JIT. Every path
# (cold read, eviction, DataLoad, warm read) runs first on a dataset of its own.
warm_up() {
  hdfs_client put "$HDFS_URL" /warmup 64 2000 "$SMALL_KIB"
  for (( i = 0; i < 2000; i++ )); do printf 'small/part-%03d/sample-%05d.bin\n' $(( i / 500 )) "$i"; done > "$WORK/warmup.keys"
  create_dataset_over warmup "{\"uri\":\"$HDFS_URL/warmup\",\"options\":{\"dfs.replication\":\"1\"}}" 1MiB
  local round
  for (( round = 0; round < 3; round++ )); do
    small_rate "$GATEWAY" warmup "$WORK/warmup.keys" > /dev/null
    large_get "$GATEWAY/warmup/large/object.bin" $(( 64 << 20 )) > /dev/null
    evict warmup
  done
  dataload warmup > /dev/null
  for (( round = 0; round < 8; round++ )); do
    small_rate "$GATEWAY" warmup "$WORK/warmup.keys" > /dev/null
    large_get "$GATEWAY/warmup/large/object.bin" $(( 64 << 20 )) > /dev/null
  done
  evict warmup
}

echo "starting kafka, hdfs, metadata-service, block-service, preload-service, gateway in $WORK ..." >&2
start_kafka
start_hdfs
start_metadata
start_worker bench-worker "$(( (SIZE_MIB + FILES * SMALL_KIB / 1024 + 64 + 2000 * SMALL_KIB / 1024) * 5 / 4 + 64 ))MiB" \
  "$(( SIZE_MIB * 2 ))MiB"
start_preload
start_gateway

echo "writing a ${SIZE_MIB} MiB file and $FILES files of $SMALL_KIB KiB into HDFS with the Hadoop client ..." >&2
hdfs_client put "$HDFS_URL" /bench "$SIZE_MIB" "$FILES" "$SMALL_KIB"
for (( i = 0; i < FILES; i++ )); do printf 'part-%03d/sample-%05d.bin\n' $(( i / 500 )) "$i"; done > "$WORK/small.keys"
create_dataset_over large "{\"uri\":\"$HDFS_URL/bench/large\",\"options\":{\"dfs.replication\":\"1\"}}" 64MiB
create_dataset_over small "{\"uri\":\"$HDFS_URL/bench/small\",\"options\":{\"dfs.replication\":\"1\"}}" 1MiB

echo "warming the JVMs up on a dataset of their own ..." >&2
warm_up
echo "direct reads with the Hadoop client ..." >&2
DIRECT_LARGE=$(direct_large)
read -r DIRECT_FILES DIRECT_SMALL_MB <<< "$(direct_small)"
echo "cold reads through Granary (the cache fills) ..." >&2
COLD_LARGE=$(large_rate "$GATEWAY" 1)
read -r COLD_FILES COLD_SMALL_MB <<< "$(small_rates "$GATEWAY" 1)"
echo "evicting both datasets, then preloading them (DataLoad) ..." >&2
evict large
evict small
PRELOAD_LARGE_SECS=$(preload large "$LARGE_BYTES")
PRELOAD_SMALL_SECS=$(preload small "$SMALL_BYTES")
settle large "$LARGE_BYTES"
settle small "$SMALL_BYTES"
echo "warm reads through Granary ..." >&2
UFS_BEFORE=$(worker_understore_bytes)
WARM_LARGE=$(large_rate "$GATEWAY" "$ROUNDS")
read -r WARM_FILES WARM_SMALL_MB <<< "$(small_rates "$GATEWAY" "$ROUNDS")"
WARM_UFS=$(( $(worker_understore_bytes) - UFS_BEFORE ))

PRELOAD_LARGE=$(mbps "$LARGE_BYTES" "$PRELOAD_LARGE_SECS")
PRELOAD_FILES=$(python3 -c "print(f'{$FILES / $PRELOAD_SMALL_SECS:.0f}')")
PRELOAD_SMALL_MB=$(mbps "$SMALL_BYTES" "$PRELOAD_SMALL_SECS")
row() {  # row LABEL LARGE-MBPS FILES SMALL-MBPS
  printf '| %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$(ratio "$2" "$DIRECT_LARGE")" "$3" "$4" "$(ratio "$3" "$DIRECT_FILES")"
}
cat <<HEADER

Granary over HDFS: $(nproc) cores, $(date -u +%Y-%m-%d). HDFS: MiniDFSCluster (one NameNode, one DataNode) on loopback.
Large: one $SIZE_MIB MiB file (64 MiB blocks), one curl GET through the gateway, one Hadoop client reader directly.
Small: $FILES files of $SMALL_KIB KiB (1 MiB blocks), 8 at once (one curl --parallel; 8 Hadoop client threads).
Direct and warm: the best of $ROUNDS rounds (direct in one client JVM); cold and preload: one pass, after the
services' JVMs ran every path on a dataset of their own.

| read | large MB/s | large vs direct | small files/s | small MB/s | small vs direct |
|---|---:|---:|---:|---:|---:|
HEADER
row "direct, Hadoop client" "$DIRECT_LARGE" "$DIRECT_FILES" "$DIRECT_SMALL_MB"
row "Granary cold (first read fills the cache)" "$COLD_LARGE" "$COLD_FILES" "$COLD_SMALL_MB"
row "preload: DataLoad (large $PRELOAD_LARGE_SECS s, small $PRELOAD_SMALL_SECS s)" "$PRELOAD_LARGE" "$PRELOAD_FILES" "$PRELOAD_SMALL_MB"
row "Granary warm (from the cache)" "$WARM_LARGE" "$WARM_FILES" "$WARM_SMALL_MB"
echo
echo "HDFS bytes the worker read during the warm pass: $WARM_UFS (0: every warm byte came from the cache)."
