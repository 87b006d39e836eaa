# Shared by the bench scripts: start pieces of Granary in a scratch directory, stop them all on exit.
# Each piece runs as its own process, as ./granary up runs it; every PID is remembered and killed on exit.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-bench.XXXXXX")"
PIDS=()
EXTRA_CLEANUP=()
S3_ACCESS=bench-access
S3_SECRET=bench-secret-0123456789

cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK" "${EXTRA_CLEANUP[@]}"
}
trap cleanup EXIT

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

start_s3() {
  S3_PORT=$(free_port)
  S3_URL="http://127.0.0.1:$S3_PORT"
  java -Xmx48m -XX:+UseSerialGC -cp "$ROOT/devstack/target/classes" io.granary.devstack.Devstack s3 \
    --port "$S3_PORT" --data "$WORK/s3" --access-key "$S3_ACCESS" --secret-key "$S3_SECRET" > "$WORK/s3.log" 2>&1 &
  PIDS+=($!)
  wait_until 60 "$WORK/s3.log" grep -q "s3 ready" "$WORK/s3.log"
  mkdir -p "$WORK/secrets/bench-s3"
  printf '%s' "$S3_ACCESS" > "$WORK/secrets/bench-s3/accessKey"
  printf '%s' "$S3_SECRET" > "$WORK/secrets/bench-s3/secretKey"
}

# s3 curl arguments: SigV4 with an unsigned payload, as S3 clients stream large bodies.
s3curl() { curl -sS --aws-sigv4 "aws:amz:us-east-1:s3" --user "$S3_ACCESS:$S3_SECRET" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"; }

start_service() {  # start_service MODULE PORT -Dkey=value...
  local module=$1 port=$2; shift 2
  java -Xmx384m -XX:+UseSerialGC -Dquarkus.http.port="$port" -Dkafka.bootstrap.servers="127.0.0.1:$KAFKA_PORT" "$@" \
    -jar "$ROOT/$module/target/quarkus-app/quarkus-run.jar" > "$WORK/$module-$port.log" 2>&1 &
  PIDS+=($!)
  wait_until 120 "$WORK/$module-$port.log" curl -sf "http://127.0.0.1:$port/q/health/ready"
}

start_metadata() {
  METADATA_PORT=$(free_port)
  local cluster; cluster=$(free_port)
  mkdir -p "$WORK/local"
  start_service metadata-service "$METADATA_PORT" -Dgranary.metadata.data-dir="$WORK/metadata" \
    -Dgranary.metadata.allowed-roots="$WORK/local" \
    -Dgranary.metadata.secrets-dir="$WORK/secrets" -Dgranary.metadata.cluster.bind-port="$cluster" \
    "-Dgranary.metadata.cluster.initial-hosts=127.0.0.1[$cluster]"
  METADATA_URL="http://127.0.0.1:$METADATA_PORT"
}

create_dataset() {  # create_dataset NAME BUCKET BLOCKSIZE
  create_dataset_over "$1" "{\"uri\":\"s3://$2/\",\"credentialsRef\":\"bench-s3\",
    \"options\":{\"endpoint\":\"$S3_URL\",\"region\":\"us-east-1\",\"pathStyle\":\"true\"}}" "$3"
}

create_dataset_over() {  # create_dataset_over NAME MOUNT-JSON BLOCKSIZE [SECONDS]
  curl -sf -XPOST "$METADATA_URL/api/v1/datasets" -H 'content-type: application/json' \
    -d "{\"name\":\"$1\",\"blockSize\":\"$3\",\"mounts\":[$2]}" > /dev/null || die "cannot create dataset $1"
  wait_until "${4:-120}" "$WORK/metadata-service-$METADATA_PORT.log" \
    bash -c "curl -sf '$METADATA_URL/api/v1/datasets/$1' | grep -q '\"phase\":\"Bound\"'"
}

start_worker() {  # start_worker ID MEM-QUOTA DISK-QUOTA: prints nothing, sets WORKER_URL
  local port; port=$(free_port)
  local mem="/dev/shm/granary-bench-$$-$1"
  EXTRA_CLEANUP+=("$mem")
  start_service block-service "$port" -Dgranary.block.worker-id="$1" -Dgranary.block.heartbeat-interval=1s \
    -Dgranary.block.advertised-address="http://127.0.0.1:$port" \
    -Dquarkus.rest-client.metadata.url="$METADATA_URL" -Dgranary.block.secrets-dir="$WORK/secrets" \
    -Dgranary.block.allowed-roots="$WORK/local" \
    -Dgranary.block.levels[0].paths="$mem" -Dgranary.block.levels[0].quota="$2" \
    -Dgranary.block.levels[1].paths="$WORK/$1-disk" -Dgranary.block.levels[1].quota="$3"
  WORKER_URL="http://127.0.0.1:$port"
}

etag_of() { curl -sf "$METADATA_URL/api/v1/datasets/$1/files/$2" | python3 -c 'import json,sys; print(json.load(sys.stdin)["etag"])'; }

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

mbps() {
  python3 - <<'PY'
import socket, threading, time
TOTAL, CHUNK = 2 << 30, 4 << 20
server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(1)
def send():
    conn, _ = server.accept(); data = memoryview(bytearray(CHUNK)); sent = 0
    while sent < TOTAL: conn.sendall(data); sent += CHUNK
    conn.close()
threading.Thread(target=send, daemon=True).start()
client = socket.create_connection(server.getsockname()); buffer = bytearray(CHUNK); view = memoryview(buffer)
start = time.perf_counter(); received = 0
while received < TOTAL:
    n = client.recv_into(view)
    if n == 0: break
    received += n
print(f"{received / (time.perf_counter() - start) / 1e6:.0f}")
PY
}

mbps() { python3 -c "import sys; print(f'{$1 / $2 / 1e6:.0f}')"; }
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
