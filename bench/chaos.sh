#!/usr/bin/env bash
# Faults under load on a multi-node cluster on this machine (./granary up --nodes), every byte checked.
#   bench/chaos.sh [--short] [--faults F,F...] [--nodes N] [--link MBIT[:DELAY_MS]] [--phase SECONDS]
# Starts a cluster of N nodes (3) with the store behind a MBIT link (1000), writes three datasets to the store
# (warm, preloaded; cold, read from an emptied cache pass after pass; load, loaded again and again), mounts warm
# with the FUSE client on node 1, and runs the mixed load of bench/chaos.py: two S3 readers of warm and one of cold
# (boto3, default retries, through the Service in front of the gateways), multipart checkpoints written through,
# DataLoads back to back and a DataLoader-like reader of the mount. After a quiet phase it injects, one per phase
# (SECONDS, 30; 20 with --short), each fault below, then prints per fault the failed operations, wrong bytes,
# DataLoads not completed, uploads lost (read back from the store) and the seconds until warm throughput and the
# hit ratio were back. Exits 1 when any count is not 0.
#   kill-worker     SIGKILL of node 2's worker           kill-kafka      SIGKILL of the Kafka broker
#   kill-gateway    SIGKILL of node 1's gateway          fill-disk       node 3's cache disk filled to the brim
#   kill-metadata   SIGKILL of metadata replica 2        cut-node        node 2's network down for 20 s
#   kill-preload    SIGKILL of the preload-service       corrupt-block   block files of warm on node 1 overwritten
# --short (CI): kill-worker, kill-gateway, kill-metadata, cut-node. --faults: these only, in this order (one may repeat, to run
# a fault until it shows what it does). Needs root, /dev/fuse and boto3 for /usr/bin/python3
# (python3-boto3). Every process it starts is stopped when it ends; KEEP=1 keeps its work directory.
set -euo pipefail
shopt -s inherit_errexit
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=devstack/nodes.sh
source "$ROOT/devstack/nodes.sh"

NODES=3
LINK=1000
PHASE=30
FAULTS=(kill-worker kill-gateway kill-metadata kill-preload kill-kafka fill-disk cut-node corrupt-block)
PYTHON=${CHAOS_PYTHON:-/usr/bin/python3}
die() { echo "chaos: $*" >&2; exit 1; }
usage() { die "usage: bench/chaos.sh [--short] [--faults F,F...] [--nodes N] [--link MBIT[:DELAY_MS]] [--phase SECONDS]"; }
while (( $# )); do
  case $1 in
    --short) FAULTS=(kill-worker kill-gateway kill-metadata cut-node); PHASE=20; shift ;;
    --faults)
      [[ ${2:-} =~ ^[a-z-]+(,[a-z-]+)*$ ]] || usage
      IFS=, read -r -a FAULTS <<< "$2"
      for fault in "${FAULTS[@]}"; do
        [[ " kill-worker kill-gateway kill-metadata kill-preload kill-kafka fill-disk cut-node corrupt-block " == *" $fault "* ]] \
          || die "no fault '$fault'"
      done
      shift 2 ;;
    --nodes) [[ ${2:-} =~ ^[3-9]$ ]] || die "--nodes needs 3 to 9 (the faults use nodes 1 to 3)"; NODES=$2; shift 2 ;;
    --link) [[ ${2:-} =~ ^[0-9]+(:[0-9]+)?$ ]] || usage; LINK=$2; shift 2 ;;
    --phase) [[ ${2:-} =~ ^[0-9]+$ && $2 -ge 20 ]] || die "--phase needs at least 20 seconds"; PHASE=$2; shift 2 ;;
    *) usage ;;
  esac
done
why=$(cluster_check 2>&1) || die "$why"
[[ -e /dev/fuse ]] || die "no /dev/fuse: the FUSE reader cannot mount"
"$PYTHON" -c 'import boto3' 2> /dev/null || die "$PYTHON has no boto3 (apt-get install python3-boto3)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/granary-chaos.XXXXXX")"
export GRANARY_STATE_DIR="$WORK/state"
RUN="$WORK/state/run"
DATA="$WORK/data"
LOAD_PID=
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  touch "$WORK/stop"
  [[ -n $LOAD_PID ]] && { kill "$LOAD_PID" 2> /dev/null; wait "$LOAD_PID" 2> /dev/null; }
  "$ROOT/granary" down > "$WORK/down.log" 2>&1 || { echo "chaos: ./granary down failed:"; cat "$WORK/down.log"; }
  [[ ${KEEP:-} == 1 ]] && { echo "chaos: kept $WORK"; return; }
  rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Small cache levels, so the disk level holds blocks and filling its filesystem matters: 48 MiB of MEM, 400 MiB of
# a 512 MiB disk per node.
export GRANARY_BLOCK_LEVELS_0__QUOTA=48MiB GRANARY_BLOCK_LEVELS_1__QUOTA=400MiB
"$ROOT/granary" up --nodes "$NODES" --link "$LINK" --node-disk 512m --data "$DATA" > "$WORK/up.log" 2>&1 \
  || { cat "$WORK/up.log"; die "the cluster did not start"; }
eval "$("$ROOT/granary" env)"

workers=$(for (( i = 1; i <= NODES; i++ )); do printf '%s"http://%s:8082"' "$( (( i > 1 )) && echo ,)" "$(node_ip "$i")"; done)
cat > "$WORK/config.json" <<EOF
{
  "endpoint": "$AWS_ENDPOINT_URL", "access": "$AWS_ACCESS_KEY_ID", "secret": "$AWS_SECRET_ACCESS_KEY",
  "token": "$GRANARY_TOKEN", "cluster_token": "$(cat "$DATA/.granary/secrets/granary-cluster/token")",
  "store": "http://$CLUSTER_STORE_IP:9000", "store_access": "$(cat "$DATA/.granary/secrets/store/accessKey")",
  "store_secret": "$(cat "$DATA/.granary/secrets/store/secretKey")",
  "work": "$WORK", "stop_file": "$WORK/stop", "marks_file": "$WORK/marks.jsonl", "mount": "$WORK/mnt",
  "workers": [$workers], "block_size": "4MiB", "checkpoint_bytes": $(( 24 << 20 )), "dataload_seconds": 120,
  "datasets": {
    "warm": {$(for i in $(seq 0 99); do printf '%s"train/part-%03d.bin": %d' "$( (( i > 0 )) && echo ,)" "$i" $(( 1 << 20 )); done),
             "train/shard-0.tar": $(( 40 << 20 )), "train/shard-1.tar": $(( 40 << 20 ))},
    "cold": {$(for i in $(seq 0 59); do printf '%s"images/%03d.jpg": %d' "$( (( i > 0 )) && echo ,)" "$i" $(( 512 << 10 )); done)},
    "load": {$(for i in $(seq 0 15); do printf '%s"features/%02d.parquet": %d' "$( (( i > 0 )) && echo ,)" "$i" $(( 4 << 20 )); done)}
  }
}
EOF
echo "chaos: a cluster of $NODES nodes, the store behind a $LINK Mbit/s link; faults: ${FAULTS[*]}, one per ${PHASE}s"
"$PYTHON" "$ROOT/bench/chaos.py" setup "$WORK/config.json"
mkdir -p "$WORK/mnt"
"$ROOT/granary" mount warm "$WORK/mnt" --node 1 > /dev/null
# The load runs below the services: it stands in for jobs with CPU of their own (a pod's request), and on two cores
# shared by three nodes it otherwise took so much that a restarted worker's JVM started in 11 s instead of 1.4.
nice -n 10 "$PYTHON" "$ROOT/bench/chaos.py" run "$WORK/config.json" > "$WORK/load.log" 2>&1 &
LOAD_PID=$!

pid_of() { cat "$RUN/$1.pid"; }
broker_pid() { sed -n 's/^kafka ready at .*(pid \([0-9]*\)).*/\1/p' "$GRANARY_STATE_DIR/logs/kafka.log" | tail -n 1; }
mark() { printf '{"t": %s, "fault": "%s"}\n' "$(date +%s.%N)" "$1" >> "$WORK/marks.jsonl"; echo "chaos: $(date -u +%T) $1"; }
ended() { printf '{"t": %s, "end": "%s"}\n' "$(date +%s.%N)" "$1" >> "$WORK/marks.jsonl"; echo "chaos: $(date -u +%T) $1 ended"; }

# ready_again NAME FAULT PID: a killed service's fault ends once its restart answers its health check (recovery is
# timed from there); prints how long the restart took. Asks that one service every 0.1 s (`./granary status` asks
# every service, a second or more on these cores, which the restart's time would include).
ready_again() {
  local started=$EPOCHREALTIME host port module state
  IFS=: read -r _ _ host port module < <(grep -m1 "^$1:" "$RUN/services")
  # Until the killed process is gone: its listening socket still takes connections while the kernel tears it down,
  # and a broker so "ready" 0.2 s after its kill timed its recovery from then.
  while read -r _ _ state _ 2> /dev/null < "/proc/$3/stat" && [[ $state != Z ]]; do sleep 0.05; done
  sleep 0.2  # the supervisor sees the process gone
  for (( i = 0; i < 1200; i++ )); do
    if [[ $module == kafka ]]; then
      (exec 3<> "/dev/tcp/$host/$port") 2> /dev/null && break
    else
      curl -sf --max-time 1 "http://$host:$port/q/health" 2> /dev/null | grep -q '"status": *"UP"' && break
    fi
    sleep 0.1
  done
  ended "$2"
  echo "chaos: $1 ready again $(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s after the kill"
}

kill_and_wait() {  # kill_and_wait NAME FAULT PID: SIGKILL, then the time until the restart is ready
  kill -9 "$3"
  ready_again "$@"
}

inject() {
  case $1 in
    kill-worker) kill_and_wait block-service@node-2 "$1" "$(pid_of block-service@node-2)" ;;
    kill-gateway) kill_and_wait gateway@node-1 "$1" "$(pid_of gateway@node-1)" ;;
    kill-metadata) kill_and_wait metadata-service-2 "$1" "$(pid_of metadata-service-2)" ;;
    kill-preload) kill_and_wait preload-service "$1" "$(pid_of preload-service)" ;;
    kill-kafka) kill_and_wait kafka "$1" "$(broker_pid)" ;;
    fill-disk)  # everything the filesystem has left, held for half a phase, then given back
      local disk="$DATA/.granary/cache/node-3"
      dd if=/dev/zero of="$disk/filler" bs=1M 2> /dev/null || true
      echo "chaos: node 3's cache disk: $(df -h --output=used,avail "$disk" | tail -n 1)"
      sleep $(( PHASE / 2 ))
      rm -f "$disk/filler"
      ended fill-disk ;;
    cut-node)
      ip -n "$(node_netns 2)" link set eth0 down
      sleep 20
      ip -n "$(node_netns 2)" link set eth0 up
      ended cut-node ;;
    corrupt-block)  # a 4 KiB run of random bytes in the middle of up to 8 of warm's block files on node 1
      local file count=0
      while read -r file; do
        dd if=/dev/urandom of="$file" bs=4096 count=1 seek=$(( $(stat -c %s "$file") / 8192 )) conv=notrunc 2> /dev/null
        count=$(( count + 1 ))
      done < <(find "$(mem_level node-1)/warm" "$DATA/.granary/cache/node-1/ssd/warm" -type f ! -name '*.*' 2> /dev/null | shuf -n 8)
      echo "chaos: corrupted $count block files on node 1" ;;
  esac
}
all_healthy() {  # every service's line says healthy (the FUSE mounts' lines aside)
  local status
  status=$("$ROOT/granary" status | grep -E '^[a-z0-9@-]+ +(pid|not running)' | grep -v '^mount-')
  ! grep -qv ' healthy ' <<< "$status"
}
mem_level() { curl -sf -H "Authorization: Bearer $(cat "$DATA/.granary/secrets/granary-cluster/token")" \
  "http://$(node_ip "${1#node-}"):8082/blocks/stats" | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["levels"][0]["path"])'; }

sleep "$PHASE"
for fault in "${FAULTS[@]}"; do
  mark "$fault"
  inject "$fault"
  sleep "$PHASE"  # from the end of a fault (a cut taken back, a killed service ready): recovery is timed from there
  # Each fault starts from a whole cluster: every service up again.
  for (( waited = 0; ; waited++ )); do
    all_healthy && break
    (( waited < 120 )) || { "$ROOT/granary" status; die "the cluster was not whole again 2 minutes after $fault"; }
    sleep 1
  done
done
touch "$WORK/stop"
wait "$LOAD_PID" || true
LOAD_PID=
"$ROOT/granary" status
echo "restarts:"; sed 's/^/  /' "$GRANARY_STATE_DIR/logs/supervisor.log" 2> /dev/null || true
status=0
"$PYTHON" "$ROOT/bench/chaos.py" report "$WORK/config.json" 2> "$WORK/failures.log" | tee "$WORK/report.md" || status=$?
[[ -s $WORK/failures.log ]] && { echo "operations that failed, took over 3 s or were asked again:"; head -n 40 "$WORK/failures.log"; }
exit "$status"
