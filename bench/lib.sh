# shellcheck shell=bash disable=SC2034  # sourced: it sets variables for the scripts that source it
# Shared by the bench scripts: start pieces of Granary in a scratch directory, stop them all on exit.
# Each piece runs as its own process, as ./granary up runs it; every PID is remembered and killed on exit.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=devstack/local.sh
source "$ROOT/devstack/local.sh"
# shellcheck source=devstack/nodes.sh
source "$ROOT/devstack/nodes.sh"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-bench.XXXXXX")"
# Every service runs in the local profile over $WORK/local ($WORK/local/.granary: their state and secrets).
export GRANARY_ROOT="$ROOT" GRANARY_DATA_DIR="$WORK/local" GRANARY_MEM_DIR="/dev/shm/granary-bench-$$"
export GRANARY_SERVICE_HEAP="-Xmx384m ${JAVA_EXTRA_OPTS:-}"
SECRETS="$GRANARY_DATA_DIR/.granary/secrets"
PIDS=()
EXTRA_CLEANUP=()
EXIT_HOOKS=()  # functions run on exit once every process has stopped, e.g. remove_link
S3_ACCESS=bench-access
S3_SECRET=bench-secret-0123456789
SMALL_KIB=128

cleanup() {
  local pid hook
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  for hook in "${EXIT_HOOKS[@]}"; do "$hook" || true; done
  # Never through a mount that is still there: removing its files would delete them from the store.
  rm -rf --one-file-system "$WORK" "$GRANARY_MEM_DIR" "${EXTRA_CLEANUP[@]}"
}
trap cleanup EXIT
# bash does not run the EXIT trap when a signal kills it: turn Ctrl-C and kill into an exit, so cleanup runs.
trap 'exit 130' INT
trap 'exit 143' TERM

die() { echo "bench: $*" >&2; exit 1; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

wait_until() {  # wait_until SECONDS LOG COMMAND...
  local seconds=$1 log=$2; shift 2
  for _ in $(seq $((seconds * 4))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.25; done
  tail -n 30 "$log" >&2; die "not ready after ${seconds}s: $*"
}

require_built() {
  local module
  for module in "$@"; do
    [[ -f "$ROOT/$module/target/quarkus-app/quarkus-run.jar" ]] || {
      echo "building $module (./mvnw -DskipTests package)..."
      (cd "$ROOT" && ./mvnw -B -q -DskipTests -pl "$module" -am package) || die "build failed"
    }
  done
  [[ -d "$ROOT/devstack/target/classes/io/granary/devstack" ]] || die "devstack is not built"
}

start_kafka() {
  KAFKA_PORT=$(free_port)
  java -Xmx48m -XX:+UseSerialGC -cp "$ROOT/devstack/target/classes" io.granary.devstack.Devstack kafka \
    --port "$KAFKA_PORT" --controller-port "$(free_port)" --data "$WORK/kafka" > "$WORK/kafka.log" 2>&1 &
  PIDS+=($!)
  wait_until 120 "$WORK/kafka.log" grep -q "kafka ready" "$WORK/kafka.log"
}

# shellcheck disable=SC2120  # its arguments are optional
start_s3() {  # start_s3 [NETNS HOST]: S3Proxy on loopback, or on HOST inside the network namespace NETNS
  local in_netns=() host=127.0.0.1
  if (( $# )); then in_netns=(ip netns exec "$1"); host=$2; fi
  S3_PORT=$(free_port)
  S3_URL="http://$host:$S3_PORT"
  "${in_netns[@]}" java -Xmx48m -XX:+UseSerialGC -cp "$ROOT/devstack/target/classes" io.granary.devstack.Devstack s3 \
    --host "$host" --port "$S3_PORT" --data "$WORK/s3" --access-key "$S3_ACCESS" --secret-key "$S3_SECRET" \
    > "$WORK/s3.log" 2>&1 &
  PIDS+=($!)
  wait_until 60 "$WORK/s3.log" grep -q "s3 ready" "$WORK/s3.log"
  mkdir -p "$SECRETS/bench-s3"
  printf '%s' "$S3_ACCESS" > "$SECRETS/bench-s3/accessKey"
  printf '%s' "$S3_SECRET" > "$SECRETS/bench-s3/secretKey"
  ensure_access "$SECRETS" bench-s3   # the cluster credential, and bench-s3's keys as the admin's (GRANARY_AUTH)
}

# nginx with proxy_cache in front of the store: the reference cache for the S3 rows, what a team would put there
# without Granary. Its cache under /dev/shm like Granary's MEM level; requests pass signed (Host kept), so the store
# checks them on a miss; a hit is served from nginx's cache file with sendfile. Sets NGINX_URL.
start_nginx() {
  command -v nginx > /dev/null || die "the nginx rows need nginx: apt-get install nginx-light"
  local port; port=$(free_port)
  local dir="$WORK/nginx" cache="/dev/shm/granary-bench-$$-nginx"
  mkdir -p "$dir"
  EXTRA_CLEANUP+=("$cache")
  cat > "$dir/nginx.conf" <<CONF
daemon off;
worker_processes auto;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  client_body_temp_path $dir/body;
  proxy_temp_path $dir/proxy;
  proxy_cache_path $cache levels=1:2 keys_zone=store:32m max_size=64g inactive=1d use_temp_path=off;
  upstream store { server ${S3_URL#http://}; keepalive 16; }
  server {
    listen 127.0.0.1:$port;
    location / {
      proxy_pass http://store;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$http_host;
      proxy_cache store;
      proxy_cache_key \$uri;
      proxy_cache_valid 200 1d;
      proxy_cache_lock on;
    }
  }
}
CONF
  nginx -c "$dir/nginx.conf" -e "$dir/error.log" > "$dir/stdout.log" 2>&1 &
  PIDS+=($!)
  NGINX_URL="http://127.0.0.1:$port"
  wait_until 10 "$dir/error.log" curl -s -o /dev/null "$NGINX_URL/"
}

make_bucket() { mkdir -p "$WORK/s3/s3/buckets/$1"; }  # S3Proxy's filesystem backend: a bucket is a directory

# s3 curl arguments: SigV4 with an unsigned payload, as S3 clients stream large bodies.
s3curl() { curl -sS --aws-sigv4 "aws:amz:us-east-1:s3" --user "$S3_ACCESS:$S3_SECRET" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"; }

start_service() {  # start_service MODULE PORT -Dkey=value...: in the local profile, on this run's broker
  local module=$1 port=$2; shift 2
  start_local_service "$module" "$port" "$WORK/$module-$port.log" -Dkafka.bootstrap.servers="127.0.0.1:$KAFKA_PORT" "$@"
  PIDS+=("$SERVICE_PID")
  wait_until "${READY_SECONDS:-120}" "$WORK/$module-$port.log" curl -sf "http://127.0.0.1:$port/q/health/ready"
}

# shellcheck disable=SC2120  # its settings are optional: most benches start it as it is
start_metadata() {  # start_metadata [-Dkey=value...]
  METADATA_PORT=$(free_port)
  local cluster; cluster=$(free_port)
  mkdir -p "$GRANARY_DATA_DIR"
  start_service metadata-service "$METADATA_PORT" -Dgranary.metadata.cluster.bind-port="$cluster" \
    "-Dgranary.metadata.cluster.initial-hosts=127.0.0.1[$cluster]" "$@"
  METADATA_URL="http://127.0.0.1:$METADATA_PORT"
  export GRANARY_METADATA_URL="$METADATA_URL"  # every service started after it
}

create_dataset() {  # create_dataset NAME BUCKET BLOCKSIZE
  create_dataset_over "$1" "{\"uri\":\"s3://$2/\",\"credentialsRef\":\"bench-s3\",
    \"options\":{\"endpoint\":\"$S3_URL\",\"region\":\"us-east-1\",\"pathStyle\":\"true\"}}" "$3"
}

create_dataset_over() {  # create_dataset_over NAME MOUNT-JSON BLOCKSIZE [SECONDS]
  create_bound_dataset "$METADATA_URL" "{\"name\":\"$1\",\"blockSize\":\"$3\",\"mounts\":[$2]}" "${4:-120}" || die "dataset $1"
}

start_worker() {  # start_worker ID MEM-QUOTA DISK-QUOTA [-Dkey=value...]: prints nothing, sets WORKER_URL
  local port; port=$(free_port)
  start_service block-service "$port" -Dgranary.block.worker-id="$1" -Dgranary.block.heartbeat-interval=1s \
    -Dgranary.block.levels[0].quota="$2" -Dgranary.block.levels[1].quota="$3" "${@:4}"
  WORKER_URL="http://127.0.0.1:$port"
}

etag_of() { api_curl -sf "$METADATA_URL/api/v1/datasets/$1/files/$2" | python3 -c 'import json,sys; print(json.load(sys.stdin)["etag"])'; }

start_preload() {  # sets PRELOAD_URL
  PRELOAD_PORT=$(free_port)
  start_service preload-service "$PRELOAD_PORT"
  PRELOAD_URL="http://127.0.0.1:$PRELOAD_PORT"
}

start_gateway() {  # sets GATEWAY; workers on this machine are read by short-circuit (same node)
  local port; port=$(free_port)
  start_service gateway "$port" -Dgranary.read.membership-refresh=1s ${PRELOAD_URL:+-Dgranary.gateway.preload-url="$PRELOAD_URL"}
  GATEWAY="http://127.0.0.1:$port"
  wait_until 30 "$WORK/gateway-$port.log" \
    bash -c "curl -sf -H 'Authorization: $GRANARY_AUTH' '$METADATA_URL/api/v1/workers' | grep -q '\"live\":true'"
}

dataload() {  # dataload DATASET: a DataLoad of the whole dataset, polled until Complete; prints its id
  local id phase
  id=$(api_curl -sf -XPOST "$PRELOAD_URL/api/v1/dataloads" -H 'content-type: application/json' \
    -d "{\"dataset\":\"$1\",\"targets\":[{\"path\":\"/\"}]}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  # curl and grep only while polling: a Python per poll would take CPU from the load being timed.
  while phase=$(api_curl -sf "$PRELOAD_URL/api/v1/dataloads/$id" | grep -o '"phase":"[A-Za-z]*"'); do
    case $phase in
      *Complete*) echo "$id"; return ;;
      *Failed* | *Cancelled*) die "DataLoad of $1: $(api_curl -sf "$PRELOAD_URL/api/v1/dataloads/$id")" ;;
    esac
    sleep 0.2
  done
  die "cannot read DataLoad $id of $1"
}

put_large_object() {  # put_large_object BUCKET KEY MIB: random bytes, one PUT
  make_bucket "$1"
  head -c $(( $3 << 20 )) /dev/urandom > "$WORK/object.bin"
  s3curl -f -T "$WORK/object.bin" "$S3_URL/$1/$2" -o /dev/null
  rm "$WORK/object.bin"
}

put_small_objects() {  # put_small_objects BUCKET COUNT KEYS-FILE: COUNT random objects of SMALL_KIB, keys listed
  make_bucket "$1"
  python3 - "$WORK/small" "$2" "$SMALL_KIB" <<'PY'
import os, sys
root, count, kib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(count):
    d = os.path.join(root, f"part-{i // 500:03d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"sample-{i:05d}.bin"), "wb") as f:
        f.write(os.urandom(kib * 1024))
PY
  python3 "$ROOT/bench/s3.py" put "$S3_URL" "$S3_ACCESS" "$S3_SECRET" "$1" "$WORK/small" 8 > /dev/null
  (cd "$WORK/small" && find . -type f | sed 's|^\./||' | sort) > "$3"
  rm -rf "$WORK/small"
}

large_get() {  # large_get URL BYTES: one GET by curl; prints bytes and seconds, dies unless all BYTES came
  local bytes secs
  read -r bytes secs < <(s3curl -o /dev/null -w '%{size_download} %{time_total}\n' "$1")
  (( bytes == $2 )) || die "read $bytes bytes of $2 from $1"
  echo "$bytes $secs"
}

# Small objects are read by one curl with 8 transfers in flight (--parallel, connections reused, SigV4 in C): a
# client fast enough that the server, not the client, sets the rate (a Python client tops out near 1,000 files/s).
small_rate() {  # small_rate ENDPOINT BUCKET KEYS-FILE: prints files/s and MB/s, dies unless every byte came
  awk -v base="$1/$2" '{ print "url = \"" base "/" $1 "\"\noutput = \"/dev/null\"" }' "$3" > "$WORK/small.curl"
  local start end bytes files expected
  files=$(wc -l < "$3")
  expected=$(( files * SMALL_KIB * 1024 ))
  start=$(date +%s.%N)
  bytes=$(s3curl --no-progress-meter --parallel --parallel-immediate --parallel-max 8 -w '%{size_download}\n' -K "$WORK/small.curl" \
    | awk '{ n += $1 } END { printf "%d", n }')
  end=$(date +%s.%N)
  (( bytes == expected )) || die "read $bytes bytes of $expected from $1/$2"
  python3 -c "import sys; f, b, s = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) - float(sys.argv[4]); \
print(f'{f / s:.0f} {b / s / 1e6:.0f}')" "$files" "$bytes" "$end" "$start"
}

# An emulated remote store: S3Proxy in a network namespace of its own, reached over a veth pair shaped on both
# ends (egress, so each direction is limited): tbf for the rate, and a netem child for a delay when one is asked.
LINK_NETNS="granary-bench-$$"
LINK_HOST_DEV="gbh$$"
LINK_STORE_DEV="gbs$$"

create_link() {  # create_link DELAY_MS: the namespace and the veth pair, not shaped yet; sets LINK_STORE_IP
  (( EUID == 0 )) || die "--link needs root (a network namespace and tc)"
  ip netns list > /dev/null 2>&1 || die "--link needs 'ip netns', which fails here"
  command -v tc > /dev/null || die "--link needs tc (iproute2)"
  # A /30 of 10.77.0.0/16 chosen by PID, so runs side by side use different addresses.
  local base=$(( $$ % 16384 * 4 ))
  local prefix="10.77.$(( base / 256 ))" host=$(( base % 256 + 1 ))
  LINK_STORE_IP="$prefix.$(( host + 1 ))"
  EXIT_HOOKS+=(remove_link)
  ip netns add "$LINK_NETNS" || die "cannot create the network namespace $LINK_NETNS"
  ip link add "$LINK_HOST_DEV" type veth peer name "$LINK_STORE_DEV" netns "$LINK_NETNS" \
    || die "cannot create the veth pair $LINK_HOST_DEV/$LINK_STORE_DEV"
  ip addr add "$prefix.$host/30" dev "$LINK_HOST_DEV"
  ip link set "$LINK_HOST_DEV" up
  ip -n "$LINK_NETNS" addr add "$LINK_STORE_IP/30" dev "$LINK_STORE_DEV"
  ip -n "$LINK_NETNS" link set "$LINK_STORE_DEV" up
  ip -n "$LINK_NETNS" link set lo up  # S3Proxy's readiness check connects to its own address, through lo
  if (( $1 > 0 )); then  # find out now, not after the setup, whether this kernel can delay packets
    tc qdisc add dev "$LINK_HOST_DEV" root netem delay "$1ms" 2> /dev/null \
      || die "this kernel has no netem qdisc (CONFIG_NET_SCH_NETEM), so no delay can be emulated: use --link MBIT"
    tc qdisc del dev "$LINK_HOST_DEV" root
  fi
}

shape_link() {  # shape_link MBIT DELAY_MS: both ends of the veth pair
  shape_dev "$LINK_HOST_DEV" "$@"
  shape_dev "$LINK_STORE_DEV" "$@" -n "$LINK_NETNS"
}

remove_link() {
  ip link del "$LINK_HOST_DEV" 2> /dev/null  # takes its peer in the namespace with it
  ip netns del "$LINK_NETNS"
}

# The physical limits of one HTTP read on this machine, measured with the same client (curl) as every other row:
#   loopback_mbps        a bare HTTP responder sending 1 GiB from memory: raw loopback TCP
#   sendfile_mbps FILE   the same responder sending FILE with the kernel's sendfile: the limit for serving a file
loopback_mbps() { raw_http_mbps ""; }
sendfile_mbps() { raw_http_mbps "$1"; }

raw_http_mbps() {
  local port_file="$WORK/raw-port" rates
  python3 - "$1" > "$port_file" <<'PY' &
import os, socket, sys
path = sys.argv[1]
size = os.path.getsize(path) if path else 1 << 30
chunk = memoryview(bytearray(4 << 20))
server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(1)
print(server.getsockname()[1], flush=True)
for _ in range(3):
    conn, _ = server.accept(); conn.recv(65536)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % size)
    if path:
        with open(path, "rb") as f: conn.sendfile(f)
    else:
        sent = 0
        while sent < size: conn.sendall(chunk); sent += len(chunk)
    conn.close()
PY
  PIDS+=($!)
  wait_until 10 "$port_file" test -s "$port_file"
  rates=$(for _ in 1 2 3; do curl -s -o /dev/null -w '%{speed_download}\n' "http://127.0.0.1:$(cat "$port_file")/"; done)
  echo "$rates" | awk '{ sum += $1 } END { printf "%.0f", sum / NR / 1e6 }'
}

# PyTorch DataLoader epochs over a mount (bench/posix.py), with the Python that has torch.
TORCH_PYTHON=${TORCH_PYTHON:-/usr/bin/python3}
require_posix() {  # require_posix [HOW-TO-LEAVE-IT-OUT]: before any setup, each missing piece in one line
  local leave=${1:-}
  (( EUID == 0 )) || die "the POSIX section mounts with FUSE and needs root $leave"
  [[ -e /dev/fuse ]] || die "no /dev/fuse on this machine $leave"
  command -v s3fs > /dev/null || die "the POSIX section compares with s3fs: apt-get install s3fs $leave"
  "$TORCH_PYTHON" -c 'import torch' 2> /dev/null \
    || die "no PyTorch for $TORCH_PYTHON: apt-get install python3-torch, or set TORCH_PYTHON $leave"
}

epoch() {  # epoch DIR [--drop]: one DataLoader epoch over $FILES files of $SMALL_BYTES in all; prints files/s, dies
  # unless it read the store's bytes
  local files bytes secs digest
  read -r files bytes secs digest < <("$TORCH_PYTHON" "$ROOT/bench/posix.py" epoch "$@")
  # shellcheck disable=SC2153  # FILES and SMALL_BYTES are the calling script's
  (( files == FILES && bytes == SMALL_BYTES )) || die "an epoch over $1 read $files files, $bytes bytes"
  # The first epoch's digest is the store's bytes (in a file: epochs run in command substitutions).
  [[ -s $WORK/epoch.digest ]] || echo "$digest" > "$WORK/epoch.digest"
  [[ $digest == "$(cat "$WORK/epoch.digest")" ]] || die "an epoch over $1 read other bytes than the store's"
  python3 -c "print(f'{$files / $secs:.0f}')"
}
best_epoch() {  # best_epoch ROUNDS DIR [--drop]: the most files/s of ROUNDS epochs
  local rounds=$1; shift
  for (( r = 0; r < rounds; r++ )); do epoch "$@"; done | sort -n | tail -1
}

# FUSE mounts of the POSIX benchmarks, under $WORK/mnt; each client runs in the foreground of a process of ours.
MOUNTS=()
unmount_all() {
  local dir
  for dir in "${MOUNTS[@]}"; do
    if mounted "$dir"; then fusermount -uz "$dir" 2> /dev/null || umount -l "$dir"; fi
  done
}
mounted() { awk -v dir="$1" '$2 == dir { found = 1 } END { exit !found }' /proc/mounts; }

mount_native() {  # mount_native DIR: Granary's FUSE client, every dataset a directory of DIR; sets MOUNT_URL
  local port; port=$(free_port)
  MOUNT_URL="http://127.0.0.1:$port"
  mkdir -p "$1"
  (( ${#MOUNTS[@]} )) || EXIT_HOOKS+=(unmount_all)
  MOUNTS+=("$1")
  start_local_service fuse-client "$port" "$WORK/fuse-client-$port.log" -Dkafka.bootstrap.servers="127.0.0.1:$KAFKA_PORT" \
    -Dgranary.fuse.mount-point="$1" -Dgranary.fuse.writes.credentials-ref=bench-s3 \
    -Dgranary.fuse.writes.gateway-url="$GATEWAY"
  PIDS+=("$SERVICE_PID")
  wait_until 60 "$WORK/fuse-client-$port.log" mounted "$1"
}

mount_s3fs() {  # mount_s3fs ENDPOINT BUCKET DIR: s3fs with its defaults, path-style, SigV4
  mkdir -p "$3"
  (( ${#MOUNTS[@]} )) || EXIT_HOOKS+=(unmount_all)
  MOUNTS+=("$3")
  [[ -f $WORK/s3fs.passwd ]] || { printf '%s:%s\n' "$S3_ACCESS" "$S3_SECRET" > "$WORK/s3fs.passwd"; chmod 600 "$WORK/s3fs.passwd"; }
  s3fs "$2" "$3" -f -o url="$1" -o use_path_request_style -o endpoint=us-east-1 \
    -o passwd_file="$WORK/s3fs.passwd" > "$WORK/s3fs-${3##*/}.log" 2>&1 &
  PIDS+=($!)
  wait_until 30 "$WORK/s3fs-${3##*/}.log" mounted "$3"
}

# Where the CPU goes during a pass: clock ticks of each process this run started (and their children), named by
# what it runs, and the machine's busy and idle ticks, so a pass's cost per file is read per process.
cpu_snapshot() {  # cpu_snapshot FILE
  local pid
  {
    for pid in "${PIDS[@]}" $(for p in "${PIDS[@]}"; do pgrep -P "$p" || true; done); do
      [[ -r /proc/$pid/stat ]] || continue
      printf '%s %s\n' "$(process_name "$pid")" "$(awk '{ print $14 + $15 }' "/proc/$pid/stat")"
    done
    awk '/^cpu / { print "busy", $2 + $3 + $4 + $7 + $8; print "idle", $5 + $6 }' /proc/stat
  } > "$1"
}
jit_seconds() {  # the time every JVM of this run has spent compiling, summed (jstat)
  local pid secs total=0
  for pid in "${PIDS[@]}"; do
    secs=$(jstat -compiler "$pid" 2>/dev/null | awk 'NR == 2 { print $4 }' || true)
    total=$(python3 -c "print(round($total + ${secs:-0}, 2))")
  done
  echo "$total"
}
# async-profiler on every JVM this run started, when ASYNC_PROFILER names its libasyncProfiler.so: CPU samples of a
# pass, each process's hottest frames (self time) written to $PROFILES/profile-<pass>-<process>.txt and its stacks
# to .collapsed ($PROFILES: a directory that outlives the run, /tmp by default).
is_jvm() { [[ -r /proc/$1/cmdline ]] && tr '\0' ' ' < "/proc/$1/cmdline" | grep -q '^[^ ]*java '; }
profile_start() {  # profile_start
  [[ -n ${ASYNC_PROFILER:-} ]] || return 0
  local pid
  for pid in "${PIDS[@]}"; do
    is_jvm "$pid" || continue
    jcmd "$pid" JVMTI.agent_load "$ASYNC_PROFILER" "\"start,event=cpu,interval=1ms\"" >/dev/null 2>&1 \
      || echo "  cannot profile $(process_name "$pid") ($pid)" >&2
  done
}
profile_stop() {  # profile_stop PASS
  [[ -n ${ASYNC_PROFILER:-} ]] || return 0
  local pid
  for pid in "${PIDS[@]}"; do
    is_jvm "$pid" || continue
    jcmd "$pid" JVMTI.agent_load "$ASYNC_PROFILER" \
      "\"dump,collapsed,file=${PROFILES:-/tmp}/profile-$1-$(process_name "$pid").collapsed\"" >/dev/null 2>&1 || true
    jcmd "$pid" JVMTI.agent_load "$ASYNC_PROFILER" \
      "\"stop,flat=30,traces=0,file=${PROFILES:-/tmp}/profile-$1-$(process_name "$pid").txt\"" >/dev/null 2>&1 || true
  done
  echo "  profiles of the $1 pass: ${PROFILES:-/tmp}/profile-$1-*.txt" >&2
}
process_name() {  # the module a service runs, or kafka / s3proxy / nginx for the other pieces
  tr '\0' ' ' < "/proc/$1/cmdline" | sed -E 's#.*/([a-z-]+)/target/quarkus-app/quarkus-run.jar.*#\1#;
    s#.*(Devstack kafka|kafka\.logs).*#kafka#; s#.*(Devstack s3 |/s3proxy/).*#s3proxy#; s#^nginx: .*#nginx#; s#^([^ ]*/)?([^ /]+) .*#\2#'
}
cpu_per_item() {  # cpu_per_item BEFORE AFTER COUNT UNIT: CPU per item of each process, the rest, and how busy
  python3 - "$@" <<'PY'
import collections, os, sys
def load(path):
    ticks = collections.Counter()
    for line in open(path):
        name, value = line.split()
        ticks[name] += int(value)
    return ticks
before, after, count, unit = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
tick_us = 1e6 / os.sysconf("SC_CLK_TCK")
delta = {name: after[name] - before[name] for name in after}
busy, idle = delta.pop("busy"), delta.pop("idle")
services = sorted(((value, name) for name, value in delta.items() if value > 0), reverse=True)
rest = busy - sum(value for value, _ in services)
parts = [f"{name} {value * tick_us / count:.0f}" for value, name in services]
parts.append(f"the rest (clients, kernel) {max(rest, 0) * tick_us / count:.0f}")
print(f"{busy * tick_us / count:.0f} µs of CPU per {unit} ({', '.join(parts)}); "
      f"the cores were {100 * busy / max(busy + idle, 1):.0f}% busy")
PY
}

mbps() { python3 -c "import sys; print(f'{$1 / $2 / 1e6:.0f}')"; }
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }

# --- reading a dataset through Granary and the store, shared by run.sh and hdfs.sh ---

cached_bytes() { api_curl -sf "$WORKER_URL/blocks/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["cachedBytes"].get(sys.argv[1], 0))' "$1"; }
worker_understore_bytes() { api_curl -sf "$WORKER_URL/blocks/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["underStoreBytesRead"])'; }
gateway_counter() {  # gateway_counter NAME [LABEL]: a counter summed over its series, from /q/metrics
  curl -sf "$GATEWAY/q/metrics" | awk -v name="$1" -v label="${2:-}" \
    '($1 == name || index($1, name "{") == 1) && index($1, label) { n += $NF } END { printf "%.0f", n }'
}

evict() {  # evict DATASET: free its cache through the management API, and wait until the worker holds none of it
  local held
  held=$(cached_bytes "$1")
  api_curl -sf -XDELETE "$GATEWAY/api/v1/datasets/$1/cache" >/dev/null || die "cannot free the cache of $1"
  for (( i = 0; i < 120; i++ )); do
    if [[ $(cached_bytes "$1") == 0 ]]; then
      echo "  evicted $1: $held bytes" >&2
      return
    fi
    sleep 0.5
  done
  die "the worker still holds $(cached_bytes "$1") bytes of $1 a minute after its cache was freed"
}

best_mbps() { awk '{ r = $1 / $2 / 1e6; if (r > best) best = r } END { printf "%.0f", best }'; }  # of large_get lines
best_small() { sort -n | tail -1; }  # of small_rate lines: the most files/s

large_rate() {  # large_rate ENDPOINT ROUNDS: MB/s of the large object, best of ROUNDS
  for (( r = 0; r < $2; r++ )); do large_get "$1/large/object.bin" "$LARGE_BYTES"; done | best_mbps
}
small_rates() {  # small_rates ENDPOINT ROUNDS: files/s and MB/s of the small objects, best of ROUNDS
  for (( r = 0; r < $2; r++ )); do small_rate "$1" small "$WORK/small.keys"; done | best_small
}

preload() {  # preload DATASET BYTES: a DataLoad to Complete; prints its seconds
  local start end id done_bytes
  start=$(date +%s.%N)
  id=$(dataload "$1")
  end=$(date +%s.%N)
  done_bytes=$(api_curl -sf "$PRELOAD_URL/api/v1/dataloads/$id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["bytesDone"])')
  (( done_bytes == $2 )) || die "the DataLoad of $1 loaded $done_bytes bytes of $2"
  (( $(cached_bytes "$1") == $2 )) || die "after its DataLoad the worker holds $(cached_bytes "$1") bytes of $1, not $2"
  python3 -c "print(f'{$end - $start:.2f}')"
}

settle() {  # settle DATASET BYTES: until the metadata-service counts the dataset cached and our JVMs are idle
  wait_until 120 "$WORK/metadata-service-$METADATA_PORT.log" bash -c \
    "curl -sf -H 'Authorization: $GRANARY_AUTH' '$METADATA_URL/api/v1/datasets/$1' | python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)[\"status\"][\"cachedBytes\"] != $2)'"
  wait_until 15 "$WORK/metadata-service-$METADATA_PORT.log" idle
}

idle() {  # true when this run's processes used under a tenth of a core over the last second
  local before after
  cpu_snapshot "$WORK/idle-0.cpu"; sleep 1; cpu_snapshot "$WORK/idle-1.cpu"
  before=$(awk '$1 != "busy" && $1 != "idle" { n += $2 } END { print n + 0 }' "$WORK/idle-0.cpu")
  after=$(awk '$1 != "busy" && $1 != "idle" { n += $2 } END { print n + 0 }' "$WORK/idle-1.cpu")
  (( after - before < $(getconf CLK_TCK) / 10 ))
}
