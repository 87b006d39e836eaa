#!/usr/bin/env bash
# ceph/s3-tests, the suite S3 implementations are judged by, against Granary's gateway and against S3Proxy (its
# filesystem backend) in one run, with the same selection and the same harness. Prints passed/failed/errors for
# each and the failures grouped by their first line; the JUnit reports stay in --out.
#
# The suite is not part of Granary: get it with
#   git clone https://github.com/ceph/s3-tests && git -C s3-tests checkout 8f0ae7b   # the commit measured here
# and its Python dependencies from Debian (PyPI is not needed):
#   apt-get install python3-boto3 python3-pytest python3-munch python3-isodate python3-gevent python3-yaml \
#     python3-requests python3-tz python3-httplib2 python3-lxml
#
# Usage: bench/s3-tests.sh --suite DIR [--target granary|s3proxy|both] [--buckets local|s3] [--out DIR] [-- PYTEST-ARGS]
#   --buckets: where Granary keeps the buckets the suite creates: a directory each (local) or a prefix each in one
#              bucket of the S3Proxy (s3)
# Needs the services built (./mvnw -DskipTests package); starts Kafka, S3Proxy, a metadata-service, one worker and
# the gateway in a scratch directory and stops them all on exit.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SUITE="" TARGET=both BUCKETS=local OUT="$ROOT/bench/target/s3-tests" PYTEST_ARGS=()
while (( $# )); do
  case $1 in
    --suite) SUITE=$2; shift 2 ;;
    --target) TARGET=$2; shift 2 ;;
    --buckets) BUCKETS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --) shift; PYTEST_ARGS=("$@"); break ;;
    *) die "usage: bench/s3-tests.sh --suite DIR [--target granary|s3proxy|both] [--buckets local|s3] [--out DIR] [-- PYTEST-ARGS]" ;;
  esac
done
[[ -f $SUITE/s3tests/functional/test_s3.py ]] || die "--suite must be a checkout of https://github.com/ceph/s3-tests"
[[ $TARGET =~ ^(granary|s3proxy|both)$ ]] || die "--target is granary, s3proxy or both"
[[ $BUCKETS =~ ^(local|s3)$ ]] || die "--buckets is local or s3"
PYTHON=/usr/bin/python3
$PYTHON -c 'import boto3, pytest, munch, isodate, gevent, yaml, requests, pytz, httplib2, lxml' 2>/dev/null \
  || die "the suite's Python modules are missing: see the head of this script for the apt-get line"
mkdir -p "$OUT"

# The selection: everything in test_s3.py but versioning, lifecycle, IAM/STS, policies, ACL groups, encryption,
# object lock, tagging, storage classes, S3 Select, website, logging and SigV2 (features Granary does not offer,
# by marker where the suite marks them and by name where it does not).
MARKERS="not (lifecycle or lifecycle_expiration or lifecycle_transition or iam_account or iam_user or iam_role"
MARKERS+=" or iam_tenant or iam_cross_account or bucket_policy or user_policy or role_policy or session_policy"
MARKERS+=" or group_policy or encryption or sse_s3 or bucket_encryption or object_lock or tagging or storage_class"
MARKERS+=" or s3select or s3website or bucket_logging or bucket_logging_cleanup or auth_aws2 or group"
MARKERS+=" or cloud_transition or cloud_restore or test_of_sts or webidentity_test or abac_test)"
KEYWORDS="not (versioning or versioned or version or object_lock or policy or _group_)"

# One identity per user the suite knows. main is an admin of every dataset; alt and tenant are admins of a dataset
# of their own name only, so they create buckets (which they own) and reach main's only where an ACL lets them, as
# other accounts do in S3. S3Proxy knows one key pair only: against it the three users share it.
ALT_ACCESS=bench-alt-access ALT_SECRET=bench-alt-secret-0123456789
TENANT_ACCESS=bench-tenant-access TENANT_SECRET=bench-tenant-secret-0123456789
identities() {
  local ref access secret
  for ref in bench-alt:$ALT_ACCESS:$ALT_SECRET bench-tenant:$TENANT_ACCESS:$TENANT_SECRET; do
    IFS=: read -r ref access secret <<< "$ref"
    mkdir -p "$SECRETS/$ref"
    printf '%s' "$access" > "$SECRETS/$ref/accessKey"
    printf '%s' "$secret" > "$SECRETS/$ref/secretKey"
  done
  cat > "$SECRETS/granary-access/identities.json" <<JSON
{"identities": [
  {"name": "admin", "role": "admin", "credentialsRef": "bench-s3"},
  {"name": "alt", "role": "admin", "datasets": ["alt"], "credentialsRef": "bench-alt"},
  {"name": "tenant", "role": "admin", "datasets": ["tenant"], "credentialsRef": "bench-tenant"}
]}
JSON
}

# The suite empties and deletes its buckets before and after every test, listing object versions and deleting
# with the object-lock bypass header; S3Proxy's filesystem backend has neither, so every test would fail in setup.
# This plain cleanup lists objects where ListObjectVersions is not implemented, sends no bypass header, and leaves
# a bucket it cannot empty rather than fail every later test; the test bodies are untouched, and both servers run
# with it.
cat > "$WORK/s3t_cleanup.py" <<'PY'
import s3tests.functional as suite
from botocore.exceptions import ClientError


def batches(client, bucket):
    try:
        yield from suite.list_versions(client, bucket, 128)
    except ClientError as e:
        if e.response["Error"]["Code"] != "NotImplemented":
            raise
        pages = client.get_paginator("list_objects_v2").paginate(Bucket=bucket, PaginationConfig={"PageSize": 128})
        for page in pages:
            if page.get("Contents"):
                yield [{"Key": o["Key"]} for o in page["Contents"]]


def nuke_bucket(client, bucket):
    for objects in batches(client, bucket):
        client.delete_objects(Bucket=bucket, Delete={"Objects": objects, "Quiet": True})
    try:
        client.delete_bucket(Bucket=bucket)
    except ClientError as e:
        # A bucket one test left behind must not fail every test after it: it stays, named in the log.
        if e.response["Error"]["Code"] != "BucketNotEmpty":
            raise
        print("s3t_cleanup: left", bucket, "(BucketNotEmpty)")


suite.nuke_bucket = nuke_bucket
PY

# run_suite NAME ENDPOINT ALT-KEY ALT-SECRET TENANT-KEY TENANT-SECRET MAIN-ID: the selection against one endpoint;
# the JUnit report in $OUT/NAME.xml. MAIN-ID is the canonical id main's buckets and ACLs name.
run_suite() {
  local name=$1 endpoint=$2 conf="$WORK/$1.conf" host=${2#http://}
  local alt_access=$3 alt_secret=$4 tenant_access=$5 tenant_secret=$6 main_id=$7
  cat > "$conf" <<CONF
[DEFAULT]
host = ${host%:*}
port = ${host##*:}
is_secure = False
ssl_verify = False
[fixtures]
bucket prefix = s3t-{random}-
[s3 main]
display_name = $main_id
user_id = $main_id
email = main@example.com
api_name =
access_key = $S3_ACCESS
secret_key = $S3_SECRET
[s3 alt]
display_name = alt
user_id = alt
email = alt@example.com
access_key = $alt_access
secret_key = $alt_secret
[s3 tenant]
display_name = tenant
user_id = tenant
email = tenant@example.com
tenant = tenant
access_key = $tenant_access
secret_key = $tenant_secret
[iam]
email = iam@example.com
user_id = iam
access_key = $S3_ACCESS
secret_key = $S3_SECRET
display_name = iam
[iam root]
access_key = $S3_ACCESS
secret_key = $S3_SECRET
user_id = iam-root
email = iam-root@example.com
[iam alt root]
access_key = $alt_access
secret_key = $alt_secret
user_id = iam-alt-root
email = iam-alt-root@example.com
CONF
  echo "running the suite against $name ($endpoint) ..." >&2
  # BOTO_DISABLE_CRT: with python3-awscrt installed (Debian's awscli pulls it in), botocore signs some requests
  # with the CRT, which refuses what the suite sends on purpose (a presigned URL expiring in 0 s) before any server
  # sees it.
  (cd "$SUITE" && S3TEST_CONF="$conf" PYTHONPATH="$WORK" BOTO_DISABLE_CRT=true $PYTHON -m pytest -p no:cacheprovider -p s3t_cleanup -q \
    -m "$MARKERS" -k "$KEYWORDS" \
    --junitxml="$OUT/$name.xml" "${PYTEST_ARGS[@]}" s3tests/functional/test_s3.py > "$OUT/$name.log" 2>&1) || true
  tail -n 1 "$OUT/$name.log" >&2
}

require_built metadata-service block-service gateway
start_kafka
start_s3
identities
if [[ $TARGET != s3proxy ]]; then
  buckets=()
  if [[ $BUCKETS == s3 ]]; then
    make_bucket granary-buckets
    buckets=(-Dgranary.gateway.buckets.uri=s3://granary-buckets/ -Dgranary.gateway.buckets.credentials-ref=bench-s3
      -Dgranary.gateway.buckets.options.endpoint="$S3_URL" -Dgranary.gateway.buckets.options.region=us-east-1
      -Dgranary.gateway.buckets.options.pathStyle=true)
  fi
  echo "starting metadata-service, block-service, gateway in $WORK ..." >&2
  start_metadata
  start_worker bench-worker 512MiB 2GiB
  port=$(free_port)
  # Unsigned requests are let in: they reach what an ACL grants everyone, as the suite's anonymous tests expect.
  start_service gateway "$port" -Dgranary.read.membership-refresh=1s -Dgranary.gateway.auth.anonymous=true \
    "${buckets[@]}"
  GATEWAY="http://127.0.0.1:$port"
  run_suite granary "$GATEWAY" "$ALT_ACCESS" "$ALT_SECRET" "$TENANT_ACCESS" "$TENANT_SECRET" admin
fi
[[ $TARGET == granary ]] || run_suite s3proxy "$S3_URL" "$S3_ACCESS" "$S3_SECRET" "$S3_ACCESS" "$S3_SECRET" granary

# passed, failed, errors per target, then the failures grouped by the first line of their message
$PYTHON - "$OUT" "$TARGET" <<'PY'
import collections, os, re, sys
import xml.etree.ElementTree as ET
out, target = sys.argv[1], sys.argv[2]
for name in (["granary", "s3proxy"] if target == "both" else [target]):
    path = os.path.join(out, name + ".xml")
    if not os.path.exists(path):
        continue
    cases = list(ET.parse(path).getroot().iter("testcase"))
    outcome = collections.Counter()
    causes = collections.Counter()
    for case in cases:
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        if bad is not None:
            outcome[bad.tag] += 1
            text = (bad.get("message") or bad.text or "").strip().splitlines()
            causes[re.sub(r"s3t-\w+-\d+", "BUCKET", text[0] if text else "?")[:150]] += 1
        elif case.find("skipped") is not None:
            outcome["skipped"] += 1
        else:
            outcome["passed"] += 1
    print(f"{name}: {len(cases)} tests, {outcome['passed']} passed, {outcome['failure']} failed, "
          f"{outcome['error']} errors, {outcome['skipped']} skipped")
    for cause, count in causes.most_common(40):
        print(f"  {count:4d}  {cause}")
PY
