"""The load and the bookkeeping of bench/chaos.sh: real clients against a multi-node cluster, every byte checked.

  chaos.py setup  CONFIG          objects in the store, datasets over them, the warm one preloaded
  chaos.py run    CONFIG          the mixed load until CONFIG's stop file appears: ops.jsonl, samples.jsonl
  chaos.py report CONFIG          per fault: failed operations, wrong bytes, DataLoads not completed, uploads
                                  lost, seconds until throughput and hit ratio were back; exit 1 if a goal failed

CONFIG is a JSON file chaos.sh writes: endpoints, keys, the work directory, the FUSE mount, the sizes.
S3 clients are boto3 with its default retries (legacy mode: 5 attempts), as a training job's would be.
"""
import hashlib
import json
import os
import random
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

import boto3
import botocore.exceptions
from boto3.s3.transfer import TransferConfig
from botocore.config import Config

MIB = 1 << 20


def load_config(path):
    with open(path) as f:
        return json.load(f)


def s3_client(endpoint, access, secret):
    # A session per client: boto3's default session is not safe to create clients from several threads at once.
    return boto3.session.Session().client(
        "s3", endpoint_url=endpoint, aws_access_key_id=access, aws_secret_access_key=secret,
        region_name="us-east-1", config=Config(s3={"addressing_style": "path"}))


def api(cfg, method, path, body=None, key=None):
    """A management call through the gateways' Service, as the admin: (status, parsed body or None, the seconds a
    503's Retry-After asks for); status 0 when no answer came within 10 s, -1 when the connection was refused or
    reset before an answer (the gateway that had it was killed). key: a POST's Idempotency-Key."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Authorization": "Bearer " + cfg["token"], "Content-Type": "application/json"}
    if key is not None:
        headers["Idempotency-Key"] = key
    request = urllib.request.Request(cfg["endpoint"] + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            text = answer.read()
            return answer.status, json.loads(text) if text else None, 0
    except urllib.error.HTTPError as e:
        return e.code, None, float(e.headers.get("Retry-After", "1") or 1)
    except (urllib.error.URLError, OSError) as e:
        timed_out = isinstance(e, TimeoutError) or isinstance(getattr(e, "reason", None), TimeoutError)
        return (0, None, 0) if timed_out else (-1, None, 0.5)


def digest(data):
    return hashlib.sha256(data).hexdigest()


# --- setup -----------------------------------------------------------------------------------------------------

def setup(cfg):
    store = s3_client(cfg["store"], cfg["store_access"], cfg["store_secret"])
    rng = random.Random(20)
    manifest = {}
    for dataset, files in cfg["datasets"].items():
        store.create_bucket(Bucket=dataset)
        manifest[dataset] = {}
        for key, size in files.items():
            body = rng.randbytes(size)
            store.put_object(Bucket=dataset, Key=key, Body=body)
            manifest[dataset][key] = {"size": size, "sha256": digest(body)}
    store.create_bucket(Bucket="ckpt")
    for dataset in list(cfg["datasets"]) + ["ckpt"]:
        spec = {"name": dataset, "blockSize": cfg["block_size"], "mounts": [{
            "uri": f"s3://{dataset}/", "credentialsRef": "store",
            "options": {"endpoint": cfg["store"], "region": "us-east-1", "pathStyle": "true"}}]}
        status, _, _ = api(cfg, "POST", "/api/v1/datasets", spec)
        if status != 201:
            sys.exit(f"chaos: creating dataset {dataset} answered {status}")
        wait_for(lambda: (api(cfg, "GET", f"/api/v1/datasets/{dataset}")[1] or {}).get("status", {}).get("phase")
                 == "Bound", 120, f"dataset {dataset} Bound")
    with open(os.path.join(cfg["work"], "manifest.json"), "w") as f:
        json.dump(manifest, f)
    phase, errors = dataload(cfg, "warm", 300)
    if phase != "Complete":
        sys.exit(f"chaos: the warm dataset's DataLoad ended {phase}: {errors}")


def wait_for(check, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return
        time.sleep(0.5)
    sys.exit(f"chaos: not true after {seconds}s: {what}")


def dataload(cfg, dataset, seconds, rec=None):
    """A DataLoad of the whole dataset, followed to its end: (its phase, or 'Timeout' / 'NotCreated'; its errors).
    With rec, every management call that fails is a failed operation (kind api); the load goes on as a user's
    retry would."""
    created = None
    key = f"chaos-{uuid.uuid4()}"  # the same key for every attempt: a POST asked again starts one load
    for _ in range(10):
        status, created = managed(cfg, rec, "POST", "/api/v1/dataloads", {"dataset": dataset, "targets": [{"path": "/"}]},
                                  key=key)
        if status in (201, 202) and created:
            break
        time.sleep(2)
    else:
        return "NotCreated", []
    deadline = time.time() + seconds
    while time.time() < deadline:
        _, load = managed(cfg, rec, "GET", f"/api/v1/dataloads/{created['id']}")
        phase = load.get("phase", load.get("status", {}).get("phase")) if isinstance(load, dict) else None
        if phase in ("Complete", "Failed", "Cancelled"):
            return phase, load.get("errors", [])
        time.sleep(0.5)
    return "Timeout", []


def managed(cfg, rec, method, path, body=None, key=None):
    """A management call made as an HTTP client with an SDK's default retries would: a 503 (the service that answers
    it restarting) asked again after its Retry-After, and an idempotent call (not a POST, unless it carries an
    Idempotency-Key, as an SDK's idempotency token) whose connection was refused or reset asked again, 5 attempts in
    all; no answer within 10 s is not asked again (a stall counts). What still failed (no answer, or a 5xx) is
    recorded when rec is given."""
    started = time.time()
    for attempt in range(5):
        status, answer, retry_after = api(cfg, method, path, body, key)
        again = status == 503 or (status == -1 and (method != "POST" or key is not None))
        if not again or attempt == 4:
            break
        time.sleep(retry_after)
    if rec is not None and (status <= 0 or status >= 500):
        reason = {0: "no answer in 10 s", -1: "connection refused or reset"}.get(status, f"status {status}")
        rec.op("api", False, started=started, key=f"{method} {path}", error=reason)
    return status, answer


# --- run -------------------------------------------------------------------------------------------------------

class Recorder:
    """Every operation as one JSON line: when it ended, its kind, whether it failed, wrong bytes, its bytes."""

    def __init__(self, path):
        self.file = open(path, "a", buffering=1)
        self.lock = threading.Lock()

    def op(self, kind, ok, nbytes=0, wrong=0, started=None, **extra):
        line = {"t": time.time(), "kind": kind, "ok": ok, "bytes": nbytes, "wrong": wrong}
        if started is not None:
            line["seconds"] = round(time.time() - started, 3)
        line.update(extra)
        with self.lock:
            self.file.write(json.dumps(line) + "\n")


def stopping(cfg):
    return os.path.exists(cfg["stop_file"])


def s3_reader(cfg, manifest, rec, kind, dataset, seed):
    client = s3_client(cfg["endpoint"], cfg["access"], cfg["secret"])
    keys = sorted(manifest[dataset])
    rng = random.Random(seed)
    while not stopping(cfg):
        if kind == "cold":  # every pass over the dataset starts from an emptied cache: each read is a first read
            for key in keys:
                read_one(client, dataset, key, manifest, rec, kind, cfg)
                if stopping(cfg):
                    return
            managed(cfg, rec, "DELETE", f"/api/v1/datasets/{dataset}/cache")
        else:
            read_one(client, dataset, rng.choice(keys), manifest, rec, kind, cfg)


STREAM_BROKE = (botocore.exceptions.ResponseStreamingError, botocore.exceptions.IncompleteReadError,
                botocore.exceptions.ReadTimeoutError, botocore.exceptions.ConnectionClosedError)


def damage(cfg, dataset, key, body, request_id=None):
    """What is wrong with a body, against the object as the store holds it, for whoever traces the cause: where the
    first wrong byte is, how many differ, whether the body holds HTTP text (responses mixed on a connection) or the
    object's own bytes from elsewhere (a read resumed from the wrong offset). The body is kept in the work
    directory's wrong/."""
    try:
        original = s3_client(cfg["store"], cfg["store_access"], cfg["store_secret"]).get_object(
            Bucket=dataset, Key=key)["Body"].read()
    except Exception as e:
        return f"the store's copy could not be read: {e!r}"[:300]
    os.makedirs(os.path.join(cfg["work"], "wrong"), exist_ok=True)
    kept = os.path.join(cfg["work"], "wrong", f"{time.time():.3f}-{dataset}-{key.replace('/', '_')}")
    with open(kept, "wb") as f:
        f.write(body)
    first = next((i for i, (a, b) in enumerate(zip(body, original)) if a != b), min(len(body), len(original)))
    differing = sum(1 for a, b in zip(body, original) if a != b) + abs(len(body) - len(original))
    where = ""
    if first < len(body):
        sample = body[first:first + 64]
        found = original.find(sample[:32]) if len(sample) >= 32 else -1
        where = (f"; bytes from {first} are the object's from {found}" if found >= 0
                 else "; HTTP text in the body" if b"HTTP/1." in body else "")
    return (f"{len(body)} bytes of {len(original)}, first wrong at {first}, {differing} differ{where}; "
            f"request {request_id}; kept {kept}")


def read_one(client, dataset, key, manifest, rec, kind, cfg):
    """One GET, read to its end. boto3 retries a request that got no answer; a body whose stream broke half way (the
    gateway sending it was killed: no server can finish that connection) is asked for again as boto3's own download
    (s3transfer) does, 5 attempts in all, and the op records the errors it rode out."""
    started = time.time()
    broken = []
    while True:
        try:
            answer = client.get_object(Bucket=dataset, Key=key)
            body = answer["Body"].read()
            break
        except STREAM_BROKE as e:
            broken.append(repr(e)[:300])
            if len(broken) < 5:
                continue
            rec.op(kind, False, started=started, key=key, error=broken[-1], broken=broken)
            return
        except Exception as e:  # after boto3's own retries: a failed operation
            rec.op(kind, False, started=started, key=key, error=repr(e)[:300], broken=broken)
            return
    expected = manifest[dataset][key]
    wrong = 0 if len(body) == expected["size"] and digest(body) == expected["sha256"] else max(len(body), expected["size"])
    extra = {}
    retries = answer.get("ResponseMetadata", {}).get("RetryAttempts", 0)
    if retries:  # boto3 asked again (no answer, a 5xx): for whoever traces a slow read
        extra["retries"] = retries
    if wrong:
        extra["error"] = damage(cfg, dataset, key, body, answer.get("ResponseMetadata", {}).get("RequestId"))
    rec.op(kind, wrong == 0, len(body), wrong, started=started, key=key, broken=broken, **extra)


def fuse_reader(cfg, manifest, rec, seed):
    keys = sorted(manifest["warm"])
    rng = random.Random(seed)
    while not stopping(cfg):
        key = rng.choice(keys)
        started = time.time()
        try:
            with open(os.path.join(cfg["mount"], key), "rb") as f:
                body = f.read()
        except OSError as e:  # a DataLoader worker would die on it: no retry
            rec.op("fuse", False, started=started, key=key, error=repr(e)[:300])
            time.sleep(0.2)
            continue
        expected = manifest["warm"][key]
        wrong = 0 if digest(body) == expected["sha256"] and len(body) == expected["size"] else max(len(body), expected["size"])
        extra = {"error": damage(cfg, "warm", key, body)} if wrong else {}
        rec.op("fuse", wrong == 0, len(body), wrong, started=started, key=key, **extra)


def checkpoint_writer(cfg, rec):
    """Checkpoints through the gateways, multipart (boto3's transfer manager: 8 MiB parts), one after another."""
    client = s3_client(cfg["endpoint"], cfg["access"], cfg["secret"])
    transfer = TransferConfig(multipart_threshold=8 * MIB, multipart_chunksize=8 * MIB, max_concurrency=2)
    step = 0
    while not stopping(cfg):
        step += 1
        # Not random.randbytes: it holds the GIL throughout, 4-6 s for 24 MiB on a loaded machine, and every reader
        # thread of this process stalled with it: the slowest reads of each fault's window were that stall.
        body = os.urandom(cfg["checkpoint_bytes"])
        path = os.path.join(cfg["work"], "checkpoint.bin")
        with open(path, "wb") as f:
            f.write(body)
        key = f"step-{step:05d}.bin"
        started = time.time()
        try:
            client.upload_file(path, "ckpt", key, Config=transfer)
        except Exception as e:
            rec.op("upload", False, started=started, key=key, error=repr(e)[:300])
            continue
        rec.op("upload", True, len(body), started=started, key=key, sha256=digest(body))


def dataloader(cfg, rec):
    """DataLoads of the load dataset back to back, each after its cache was freed, each followed to its end."""
    while not stopping(cfg):
        managed(cfg, rec, "DELETE", "/api/v1/datasets/load/cache")
        started = time.time()
        phase, errors = dataload(cfg, "load", cfg["dataload_seconds"], rec)
        rec.op("dataload", phase == "Complete", started=started, phase=phase, error=json.dumps(errors)[:300])


def sampler(cfg, path):
    """Each second: every worker's hit and miss counts (a worker that cannot be asked is left out)."""
    with open(path, "a", buffering=1) as out:
        while not stopping(cfg):
            sample = {"t": time.time(), "workers": {}}
            for worker in cfg["workers"]:
                try:
                    request = urllib.request.Request(worker + "/blocks/stats",
                                                     headers={"Authorization": "Bearer " + cfg["cluster_token"]})
                    with urllib.request.urlopen(request, timeout=0.8) as answer:
                        stats = json.load(answer)
                    sample["workers"][worker] = {"hits": stats["hits"], "misses": stats["misses"]}
                except (urllib.error.URLError, OSError, ValueError, KeyError):
                    pass
            out.write(json.dumps(sample) + "\n")
            time.sleep(max(0.0, 1 - (time.time() - sample["t"])))


def run(cfg):
    with open(os.path.join(cfg["work"], "manifest.json")) as f:
        manifest = json.load(f)
    rec = Recorder(os.path.join(cfg["work"], "ops.jsonl"))
    threads = [
        threading.Thread(target=s3_reader, args=(cfg, manifest, rec, "warm", "warm", 1)),
        threading.Thread(target=s3_reader, args=(cfg, manifest, rec, "warm", "warm", 2)),
        threading.Thread(target=s3_reader, args=(cfg, manifest, rec, "cold", "cold", 3)),
        threading.Thread(target=checkpoint_writer, args=(cfg, rec)),
        threading.Thread(target=dataloader, args=(cfg, rec)),
        threading.Thread(target=sampler, args=(cfg, os.path.join(cfg["work"], "samples.jsonl"))),
    ]
    if cfg.get("mount"):
        threads.append(threading.Thread(target=fuse_reader, args=(cfg, manifest, rec, 5)))
    for thread in threads:
        thread.start()
    print("chaos: load running", flush=True)
    for thread in threads:
        thread.join()


# --- report ----------------------------------------------------------------------------------------------------

def read_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def lost_uploads(cfg, ops):
    """Uploads the gateways acknowledged whose bytes the store does not hold: read back from the store itself."""
    store = s3_client(cfg["store"], cfg["store_access"], cfg["store_secret"])
    lost = []
    for op in ops:
        if op["kind"] == "upload" and op["ok"]:
            try:
                body = store.get_object(Bucket="ckpt", Key=op["key"])["Body"].read()
                if digest(body) != op["sha256"]:
                    lost.append(op)
            except Exception:
                lost.append(op)
    return lost


def windows(marks, end):
    """(name, start, end, ended) of each fault: from its injection to the next one's (the last to the end of the
    run); ended is when a lasting fault (a cut, a full disk) was taken back or a killed service's restart answered
    its health check, else its start."""
    starts = [mark for mark in marks if "fault" in mark]
    found = []
    for i, mark in enumerate(starts):
        stop = starts[i + 1]["t"] if i + 1 < len(starts) else end
        # Its own end: the first after it (a fault run again has one each).
        ended = min((m["t"] for m in marks if m.get("end") == mark["fault"] and m["t"] >= mark["t"]), default=mark["t"])
        found.append((mark["fault"], mark["t"], stop, ended))
    return found


def warm_rate(ops, start, end):
    """Bytes per second of warm S3 reads that completed in [start, end)."""
    total = sum(op["bytes"] for op in ops if op["kind"] == "warm" and op["ok"] and start <= op["t"] < end)
    return total / max(end - start, 1e-9)


def hit_ratio(samples, start, end):
    """Cluster hit ratio between two instants, from the workers' counters (a restarted worker counts from 0)."""
    inside = [s for s in samples if start <= s["t"] <= end]
    if len(inside) < 2:
        return None
    hits = misses = 0
    for worker in {w for s in inside for w in s["workers"]}:
        seen = [s["workers"][worker] for s in inside if worker in s["workers"]]
        for before, after in zip(seen, seen[1:]):
            hits += after["hits"] - before["hits"] if after["hits"] >= before["hits"] else after["hits"]
            misses += after["misses"] - before["misses"] if after["misses"] >= before["misses"] else after["misses"]
    return hits / (hits + misses) if hits + misses else None


def recovery(ops, samples, start, ended, end, baseline_seconds=10, step=1.0, window=3.0):
    """Seconds from the end of the fault (its injection for a kill) until warm throughput is back to 80% of the 10 s
    before it began (over a 3 s window), and until the hit ratio is back within 0.05 of its own; None when not back
    before the next fault."""
    base_rate = warm_rate(ops, start - baseline_seconds, start)
    base_hits = hit_ratio(samples, start - baseline_seconds, start)
    rate_back = hits_back = None
    t = ended
    while t + window <= end and (rate_back is None or hits_back is None):
        if rate_back is None and warm_rate(ops, t, t + window) >= 0.8 * base_rate:
            rate_back = t + window - ended
        ratio = hit_ratio(samples, t, t + window)
        if hits_back is None and (base_hits is None or (ratio is not None and ratio >= base_hits - 0.05)):
            hits_back = t + window - ended
        t += step
    return rate_back, hits_back


def report(cfg):
    ops = read_lines(os.path.join(cfg["work"], "ops.jsonl"))
    samples = read_lines(os.path.join(cfg["work"], "samples.jsonl"))
    marks = read_lines(cfg["marks_file"])
    end = max(op["t"] for op in ops)
    lost = {op["key"] for op in lost_uploads(cfg, ops)}
    start_of_run = min(op["t"] for op in ops)
    first = min((mark["t"] for mark in marks), default=end)
    rows = [("(before any fault)", start_of_run, first, None)] + windows(marks, end)
    print("| fault | ops | failed ops | wrong bytes | DataLoads not completed | uploads lost | slowest read "
          "| throughput back | hit ratio back |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    totals = {"failed": 0, "wrong": 0, "dataloads": 0, "lost": 0}
    for name, start, stop, ended in rows:
        inside = [op for op in ops if start <= op["t"] < stop]
        failed = [op for op in inside if not op["ok"] and op["kind"] != "dataload" and not op["wrong"]]
        wrong = sum(op["wrong"] for op in inside)
        loads = [op for op in inside if op["kind"] == "dataload" and not op["ok"]]
        lost_here = [op for op in inside if op["kind"] == "upload" and op["ok"] and op["key"] in lost]
        if ended is None:
            back = "-", "-"
        else:  # measured from when the fault ended, against the 10 s before it began
            rate_back, hits_back = recovery(ops, samples, start, ended, stop)
            back = tuple("not back" if v is None else f"{v:.0f} s" for v in (rate_back, hits_back))
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(count_by_kind(failed).items()))
        reads = [op for op in inside if op["kind"] in ("warm", "cold", "fuse")]
        slow = max(reads, key=lambda op: op.get("seconds", 0), default={"seconds": 0, "kind": ""})
        # A read counts where it ended; one that began before the fault says so, as its time is not all the fault's.
        early = start - (slow.get("t", start) - slow["seconds"])
        began = f" (began {early:.0f} s before)" if early >= 1 else ""
        print(f"| {name} | {len(inside)} | {len(failed)}{' (' + kinds + ')' if kinds else ''} | {wrong} | "
              f"{len(loads)} | {len(lost_here)} | {slow['seconds']:.1f} s {slow['kind']}{began} | {back[0]} | "
              f"{back[1]} |")
        totals["failed"] += len(failed)
        totals["wrong"] += wrong
        totals["dataloads"] += len(loads)
        totals["lost"] += len(lost_here)
    for op in ops:
        if not op["ok"]:
            print(f"  {time.strftime('%H:%M:%S', time.gmtime(op['t']))} {op['kind']} {op.get('key', op.get('phase', ''))}"
                  f" wrong={op['wrong']} {op.get('error', '')}", file=sys.stderr)
    for op in ops:
        if op["kind"] in ("warm", "cold", "fuse") and op.get("seconds", 0) > 3:
            print(f"  {time.strftime('%H:%M:%S', time.gmtime(op['t'] - op['seconds']))}-"
                  f"{time.strftime('%H:%M:%S', time.gmtime(op['t']))} {op['kind']} {op.get('key', '')} took "
                  f"{op['seconds']:.1f} s{', boto3 asked ' + str(op['retries']) + ' more times' if op.get('retries') else ''}",
                  file=sys.stderr)
    rode_out = [op for op in ops if op.get("broken")]
    for op in rode_out:
        print(f"  {time.strftime('%H:%M:%S', time.gmtime(op['t']))} {op['kind']} {op['key']} asked again after "
              f"its stream broke: {'; '.join(op['broken'])}", file=sys.stderr)
    by_kind = count_by_kind(ops)
    print(f"\n{len(ops)} operations ({', '.join(f'{k} {n}' for k, n in sorted(by_kind.items()))}) in "
          f"{end - start_of_run:.0f} s; failed {totals['failed']}, wrong bytes {totals['wrong']}, DataLoads not "
          f"completed {totals['dataloads']}, uploads lost {totals['lost']}; reads asked again after their stream "
          f"broke {len(rode_out)}")
    return 0 if not any(totals.values()) else 1


def count_by_kind(ops):
    counts = {}
    for op in ops:
        counts[op["kind"]] = counts.get(op["kind"], 0) + 1
    return counts


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("setup", "run", "report"):
        sys.exit(__doc__)
    config = load_config(sys.argv[2])
    sys.exit({"setup": setup, "run": run, "report": report}[sys.argv[1]](config) or 0)
