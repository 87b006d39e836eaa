# shellcheck shell=bash disable=SC2034  # sourced: it sets SERVICE_PID for its caller
# Granary's services on this machine, as ./granary up and bench/ start them. Sourced, not run.
#
# Each service runs in the local profile, keyed on one directory: GRANARY_DATA_DIR's files are the under-store and
# its .granary/ holds every service's state; MEM blocks live under GRANARY_MEM_DIR (tmpfs). Each service derives its
# own paths from those two (the %local lines of its application.properties), so a caller passes only what differs
# per instance (-Dkey=value). GRANARY_ROOT is the repository; GRANARY_SERVICE_HEAP the heap option (-Xmx256m);
# GRANARY_BIND the address services listen on (127.0.0.1: nothing is reachable from the network unless asked);
# GRANARY_NETNS, when set, the network namespace a service runs in (a node of a multi-node cluster).
# GRANARY_AUTH is the Authorization value api_curl sends (set by ensure_access).

# ensure_access SECRETS ADMIN-REF: the cluster credential every service shows the others, and an identities file
# with one admin, whose S3 keys are in the secret ADMIN-REF (a bearer token is added to it); exports GRANARY_AUTH
# as that admin's token. Kept if they exist, so keys survive restarts.
ensure_access() {
  local secrets=$1 ref=$2
  (
    umask 077
    mkdir -p "$secrets/granary-cluster" "$secrets/granary-access" "$secrets/$ref"
    [[ -s $secrets/granary-cluster/token ]] || random_token > "$secrets/granary-cluster/token"
    [[ -s $secrets/$ref/token ]] || random_token > "$secrets/$ref/token"
    [[ -s $secrets/granary-access/identities.json ]] || printf '{"identities": [\n  {"name": "admin", "role": "admin", "credentialsRef": "%s"}\n]}\n' \
      "$ref" > "$secrets/granary-access/identities.json"
  )
  GRANARY_AUTH="Bearer $(cat "$secrets/$ref/token")"
  export GRANARY_AUTH
}

random_token() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

# api_curl ARGS...: curl with the caller's credential (GRANARY_AUTH) on a management API.
api_curl() { curl -H "Authorization: ${GRANARY_AUTH:?no credential: ensure_access first}" "$@"; }

# Class-data sharing (the JDK's AppCDS): the classes a service loaded, kept parsed and verified in one archive, make its
# next start cost about 30% less CPU (a block-service's start, on two cores: 5.4 s of CPU without, 3.8 with), which
# counts most where a restart competes with a loaded node. One archive per packaged jar and JDK, beside the jar; a
# stale one (the jar rebuilt since) is not used, and one the JDK refuses only costs that start its speed-up.
#
# class_data_sharing JAR: sets CDS_OPTIONS to the JVM options that use JAR's archive. Without one, and when the caller
# set CDS_RECORD=1 (a supervisor, which sees the process exit), the JVM records one at its exit to CDS_RECORDING,
# which keep_class_data moves into place.
class_data_sharing() {
  local archive
  archive=$(class_data_archive "$1")
  CDS_RECORDING=
  CDS_OPTIONS=()
  if [[ $archive -nt $1 ]]; then
    CDS_OPTIONS=(-XX:SharedArchiveFile="$archive")
  elif [[ ${CDS_RECORD:-} == 1 ]]; then
    CDS_RECORDING="$archive.$BASHPID.tmp"
    CDS_OPTIONS=(-XX:ArchiveClassesAtExit="$CDS_RECORDING")
  fi
  # A recording lists every class it could not keep, and an archive the JDK refuses says so: neither is news.
  (( ${#CDS_OPTIONS[@]} == 0 )) || CDS_OPTIONS+=(-Xlog:cds=off -Xlog:cds+dynamic=off)
}

# class_data_archive JAR: the archive's path, named for the JDK that wrote it (the java binary's change time and size).
class_data_archive() {
  local jdk
  jdk=$(stat -L -c %Z-%s "$(command -v java)")
  printf '%s\n' "${1%/*}/granary-$jdk.jsa"
}

# keep_class_data STATUS: after the recording process exited with STATUS, its archive is put in place, unless the
# process was killed (SIGKILL, 137), perhaps while it wrote it.
keep_class_data() {
  [[ -n ${CDS_RECORDING:-} ]] || return 0
  if [[ $1 != 137 && -s $CDS_RECORDING ]]; then
    mv -f "$CDS_RECORDING" "${CDS_RECORDING%.*.tmp}"
  else
    rm -f "$CDS_RECORDING"
  fi
  CDS_RECORDING=
}

# start_local_service MODULE PORT LOG [-Dkey=value...]: the module's packaged service, in the background, its output
# added to LOG; sets SERVICE_PID. PORT is the HTTP port, or the HTTPS one for the scheduler-hook (it serves TLS only).
start_local_service() {
  local module=$1 port=$2 log=$3 port_key=quarkus.http.port jit=-XX:TieredStopAtLevel=1; shift 3
  local jar="$GRANARY_ROOT/$module/target/quarkus-app/quarkus-run.jar"
  [[ $module == scheduler-hook ]] && port_key=quarkus.http.ssl-port
  # The quick compiler alone starts services faster on two cores. The FUSE client and the gateway, on the path of
  # every warm read, get the optimising one too: a DataLoader epoch measured 12% faster with it, and a warm 128 KiB
  # GET cost the gateway 88 µs of CPU instead of 250.
  [[ $module == fuse-client || $module == gateway || $module == metadata-service ]] && jit=
  # The metadata-service's file store caches its index in soft references, which it never reads back (stats and
  # listings read the file index): cleared at every GC, they no longer fill the heap and thrash it under a big load.
  [[ $module == metadata-service ]] && jit=-XX:SoftRefLRUPolicyMSPerMB=0
  local netns=()
  # Only the network namespace is entered (ip netns exec would give it a mount namespace of its own too, and a FUSE
  # client's mount would be seen by nobody else); nsenter execs java, so SERVICE_PID is the JVM's.
  [[ -n ${GRANARY_NETNS:-} ]] && netns=(nsenter "--net=/run/netns/$GRANARY_NETNS")
  class_data_sharing "$jar"
  # shellcheck disable=SC2086  # the heap and JIT options may be empty or several words
  nohup "${netns[@]}" java ${GRANARY_SERVICE_HEAP:--Xmx256m} -XX:+UseSerialGC $jit "${CDS_OPTIONS[@]}" \
    -Dquarkus.profile=local -D"$port_key=$port" -Dquarkus.http.host="${GRANARY_BIND:-127.0.0.1}" \
    -Dgranary.data-dir="$GRANARY_DATA_DIR" -Dgranary.mem-dir="$GRANARY_MEM_DIR" "$@" \
    -jar "$jar" >> "$log" 2>&1 < /dev/null &
  SERVICE_PID=$!
}

# supervise NAME RUN LOG COMMAND...: runs COMMAND (which starts a process in the background and sets SERVICE_PID),
# and runs it again each time that process ends, as Kubernetes restarts a container: at once the first time, then
# after 1 s, doubling up to 30 s; at once again after a run that lasted a minute. RUN/NAME.pid holds the running process, RUN/NAME.restarts how often it was
# restarted; each restart is a line in LOG. SIGTERM stops the process and the supervisor. Run it in the background.
# A process that recorded a class-data archive (class_data_sharing) has it kept once it exits.
supervise() {
  local name=$1 run=$2 log=$3 restarts=0 backoff=0 started status CDS_RECORD=1 pause=; shift 3
  trap 'kill "$SERVICE_PID" $pause 2> /dev/null; wait "$SERVICE_PID" 2> /dev/null && status=0 || status=$?
    keep_class_data "$status"; exit 0' TERM
  echo 0 > "$run/$name.restarts"
  while true; do
    started=$SECONDS
    "$@"
    echo "$SERVICE_PID" > "$run/$name.pid"
    wait "$SERVICE_PID" && status=0 || status=$?
    keep_class_data "$status"
    (( SECONDS - started >= 60 )) && backoff=0
    echo $(( ++restarts )) > "$run/$name.restarts"
    echo "$(date -u +%FT%TZ) $name (pid $SERVICE_PID) exited with status $status after $(( SECONDS - started ))s;" \
      "restart $restarts in ${backoff}s" >> "$log"
    sleep "$backoff" &
    pause=$!
    wait "$pause" || true
    pause=
    backoff=$(( backoff == 0 ? 1 : backoff * 2 > 30 ? 30 : backoff * 2 ))
  done
}

# create_bound_dataset API SPEC-JSON [SECONDS]: creates the dataset through the management API (a metadata-service or a
# gateway) and waits until its metadata is listed (Bound). Prints why and returns 1 when the API refuses it, when the
# dataset turns Failed, or when it is not Bound within SECONDS (120).
create_bound_dataset() {
  local api=$1 spec=$2 seconds=${3:-120} name answer phase waited
  name=$(printf '%s' "$spec" | sed -n 's/.*"name" *: *"\([^"]*\)".*/\1/p')
  answer=$(api_curl -sS -XPOST "$api/api/v1/datasets" -H 'content-type: application/json' -d "$spec" \
    -w '\n%{http_code}') || { echo "cannot reach $api to create dataset $name" >&2; return 1; }
  [[ ${answer##*$'\n'} == 201 ]] || { echo "creating dataset $name: ${answer%$'\n'*}" >&2; return 1; }
  for (( waited = 0; waited < seconds * 10; waited++ )); do
    answer=$(api_curl -sf "$api/api/v1/datasets/$name") || answer=""
    phase=$(printf '%s' "$answer" | grep -o '"phase":"[A-Za-z]*"' | cut -d'"' -f4)
    case $phase in
      Bound) return 0 ;;
      Failed) echo "dataset $name failed: $(printf '%s' "$answer" | grep -o '"reason":"[^"]*"' | cut -d'"' -f4)" >&2
        return 1 ;;
    esac
    sleep 0.1
  done
  echo "dataset $name was not Bound after ${seconds}s" >&2
  return 1
}
