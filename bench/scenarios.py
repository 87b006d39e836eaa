"""The scenarios of bench/scenarios.sh on a multi-node cluster: a checkpoint fanned out to every node, a reader's
failover, and a training job with a stand-in GPU; every byte checked, every table printed as markdown.

  scenarios.py setup CONFIG                       buckets, objects and datasets the scenarios read
  scenarios.py fanout CONFIG                      the checkpoint written through once, read by every node at once
  scenarios.py failover CONFIG CASE...            worker (a), client (b), cut (c): a reader on node 1 and a fault
  scenarios.py training CONFIG                    PyTorch epochs with a fixed compute time per batch
  scenarios.py read-files WORKERS PATH...         (a node's reader) reads PATHs, WORKERS at a time: a JSON line each
  scenarios.py read-s3 CONFIG BUCKET WORKERS KEY...   the same from the store directly (run in a node's namespace)

CONFIG is the JSON file scenarios.sh writes. What the store sent is counted on its link (the bytes its end of the
veth pair received from it), so it holds every client's reads, the workers' and the direct readers' alike.
"""
import concurrent.futures
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chaos  # noqa: E402  the clients and the management calls the fault bench uses
from boto3.s3.transfer import TransferConfig  # noqa: E402

MIB = 1 << 20
CHUNK = 4 * MIB


def load(path):
    with open(path) as f:
        return json.load(f)


def store_sent(cfg):
    """Bytes the store sent so far: what the host's end of its veth pair received."""
    with open(f"/sys/class/net/{cfg['store_dev']}/statistics/rx_bytes") as f:
        return int(f.read())


def granary(cfg, *args, check=True):
    done = subprocess.run([os.path.join(cfg["root"], "granary"), *args], capture_output=True, text=True)
    if check and done.returncode != 0:
        sys.exit(f"scenarios: ./granary {' '.join(args)}: {done.stderr.strip() or done.stdout.strip()}")
    return done


def mount(cfg, dataset, node, name=None):
    path = os.path.join(cfg["work"], "mnt", name or f"{dataset}-node{node}")
    os.makedirs(path, exist_ok=True)
    granary(cfg, "mount", dataset, path, "--node", str(node))
    return path


def node_netns(node):
    return f"granary-node-{node}"


def create_dataset(cfg, name, bucket, block_size, node_selector=None):
    spec = {"name": name, "blockSize": block_size, "mounts": [{
        "uri": f"s3://{bucket}/", "credentialsRef": "store",
        "options": {"endpoint": cfg["store"], "region": "us-east-1", "pathStyle": "true"}}]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    status, _, _ = chaos.api(cfg, "POST", "/api/v1/datasets", spec)
    if status != 201:
        sys.exit(f"scenarios: creating dataset {name} answered {status}")
    chaos.wait_for(lambda: (chaos.api(cfg, "GET", f"/api/v1/datasets/{name}")[1] or {}).get("status", {}).get("phase")
                   == "Bound", 120, f"dataset {name} Bound")


def free_cache(cfg, dataset):
    status, _, _ = chaos.api(cfg, "DELETE", f"/api/v1/datasets/{dataset}/cache")
    if status not in (200, 202, 204):
        sys.exit(f"scenarios: freeing {dataset}'s cache answered {status}")
    # The workers drop the blocks when the event reaches them: wait until none holds any.
    chaos.wait_for(lambda: cached_bytes(cfg, dataset) == 0, 60, f"{dataset}'s cache empty")


def cached_bytes(cfg, dataset):
    answer = chaos.api(cfg, "GET", f"/api/v1/datasets/{dataset}")[1] or {}
    return answer.get("status", {}).get("cachedBytes", -1)


def dataload(cfg, dataset):
    started = time.time()
    phase, errors = chaos.dataload(cfg, dataset, 900)
    if phase != "Complete":
        sys.exit(f"scenarios: the DataLoad of {dataset} ended {phase}: {errors}")
    return time.time() - started


# --- setup -------------------------------------------------------------------------------------------------------

def setup(cfg):
    """The training datasets' objects, written to the store over its link (8 at a time), and their datasets."""
    store = chaos.s3_client(cfg["store"], cfg["store_access"], cfg["store_secret"])
    manifest, digests = {}, {}
    for bucket, spec in cfg["datasets"].items():
        store.create_bucket(Bucket=bucket)
        rng = random.Random(bucket)
        bodies = {f"{spec['prefix']}{i:05d}.bin": rng.randbytes(spec["bytes"]) for i in range(spec["files"])}
        clients = threading.local()

        def put(item):
            if not hasattr(clients, "s3"):
                clients.s3 = chaos.s3_client(cfg["store"], cfg["store_access"], cfg["store_secret"])
            clients.s3.put_object(Bucket=bucket, Key=item[0], Body=item[1])

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(put, bodies.items()))
        manifest[bucket] = {key: hashlib.sha256(body).hexdigest() for key, body in bodies.items()}
        # What posix.py prints for an epoch that read these bytes, in whatever order.
        digests[bucket] = f"{sum(zlib.crc32(body) for body in bodies.values()) % (1 << 64):016x}"
        create_dataset(cfg, bucket, bucket, spec["block_size"], spec.get("node_selector"))
    with open(os.path.join(cfg["work"], "manifest.json"), "w") as f:
        json.dump(manifest, f)
    with open(os.path.join(cfg["work"], "digests.json"), "w") as f:
        json.dump(digests, f)


# --- the readers: one process per node ---------------------------------------------------------------------------

def read_files(workers, paths):
    """Each path read whole, its page cache dropped first (the file system is measured, not memory): a JSON line
    per file with its bytes, sha256 and when it started and ended, or its error."""
    def one(path):
        started = time.time()
        try:
            fd = os.open(path, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                sha, size = hashlib.sha256(), 0
                while chunk := os.read(fd, CHUNK):
                    sha.update(chunk)
                    size += len(chunk)
            finally:
                os.close(fd)
            return {"path": path, "bytes": size, "sha256": sha.hexdigest(), "start": started, "end": time.time()}
        except OSError as e:
            return {"path": path, "error": repr(e), "start": started, "end": time.time()}

    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for line in pool.map(one, paths):
            print(json.dumps(line), flush=True)


def read_s3(cfg, bucket, workers, keys):
    client = chaos.s3_client(cfg["store"], cfg["store_access"], cfg["store_secret"])

    def one(key):
        started = time.time()
        try:
            body = client.get_object(Bucket=bucket, Key=key)["Body"]
            sha, size = hashlib.sha256(), 0
            while chunk := body.read(CHUNK):
                sha.update(chunk)
                size += len(chunk)
            return {"path": key, "bytes": size, "sha256": sha.hexdigest(), "start": started, "end": time.time()}
        except Exception as e:
            return {"path": key, "error": repr(e)[:300], "start": started, "end": time.time()}

    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for line in pool.map(one, keys):
            print(json.dumps(line), flush=True)


def me():
    return [sys.executable, os.path.abspath(__file__)]


# --- 1. checkpoint fan-out -----------------------------------------------------------------------------------------

def fanout(cfg):
    """A checkpoint of several shards written once through the gateways (write-through), then restored by every
    node at the same moment, as a job's ranks do, in five ways; a table row each."""
    nodes, shards, shard_bytes = cfg["nodes"], cfg["shards"], cfg["shard_bytes"]
    size = shards * shard_bytes
    names = [f"model-{i + 1:05d}-of-{shards:05d}.safetensors" for i in range(shards)]
    store = chaos.s3_client(cfg["store"], cfg["store_access"], cfg["store_secret"])
    store.create_bucket(Bucket="ckpt")
    create_dataset(cfg, "ckpt", "ckpt", "16MiB")
    expected = {}
    client = chaos.s3_client(cfg["endpoint"], cfg["access"], cfg["secret"])
    transfer = TransferConfig(multipart_threshold=8 * MIB, multipart_chunksize=16 * MIB, max_concurrency=4)
    rng = random.Random(41)
    spool = os.path.join(cfg["work"], "shard.bin")
    sent = store_sent(cfg)
    started = time.time()
    for name in names:
        sha = hashlib.sha256()
        with open(spool, "wb") as f:
            for offset in range(0, shard_bytes, 64 * MIB):  # randbytes takes at most 256 MiB at once
                piece = rng.randbytes(min(64 * MIB, shard_bytes - offset))
                sha.update(piece)
                f.write(piece)
        expected[name] = sha.hexdigest()
        client.upload_file(spool, "ckpt", name, Config=transfer)
    os.remove(spool)
    written = time.time() - started
    print(f"scenarios: the checkpoint ({size / MIB:.0f} MiB, {shards} shards) written through in {written:.1f} s; "
          f"the store sent {(store_sent(cfg) - sent) / MIB:.1f} MiB meanwhile", file=sys.stderr)
    # The same objects as a second dataset whose blocks only node 1 may hold (its nodeSelector): nodes 2.. hold none.
    # Left out of the short form (CI): three more mounts to start.
    datasets = ("ckpt",) if cfg["short"] else ("ckpt", "ckpt-node1")
    if not cfg["short"]:
        create_dataset(cfg, "ckpt-node1", "ckpt", "16MiB", {"kubernetes.io/hostname": "node-1"})
    mounts = {(dataset, node): mount(cfg, dataset, node) for dataset in datasets for node in range(1, nodes + 1)}
    link = cfg["link_mbit"] * 1e6 / 8
    rows = []

    def restore(label, dataset=None, note=""):
        if dataset is None:  # every node reads the store itself, in its own network namespace
            commands = [["ip", "netns", "exec", node_netns(n), *me(), "read-s3", cfg["config"], "ckpt",
                         str(shards), *names] for n in range(1, nodes + 1)]
        else:
            commands = [[*me(), "read-files", str(shards), *[os.path.join(mounts[dataset, n], x) for x in names]]
                        for n in range(1, nodes + 1)]
        before = store_sent(cfg)
        began = time.time()
        procs = [subprocess.Popen(c, stdout=subprocess.PIPE, text=True) for c in commands]
        outs = [p.communicate()[0] for p in procs]
        sent_now = store_sent(cfg) - before
        per_node = []
        for n, out in enumerate(outs, 1):
            lines = [json.loads(line) for line in out.splitlines()]
            bad = [x for x in lines if "error" in x or x["sha256"] != expected[os.path.basename(x["path"])]]
            if bad or len(lines) != shards:
                sys.exit(f"scenarios: node {n} restored the checkpoint wrong ({label}): {bad[:2] or len(lines)}")
            per_node.append(max(x["end"] for x in lines) - began)
        every = max(per_node)
        rows.append((label, every, size / link, sent_now / size, [size / s / 1e6 for s in per_node], note))

    restore("right after the write (the write-through filled the cache)", "ckpt")
    free_cache(cfg, "ckpt")
    restore("cold: the cache freed, every node at once", "ckpt")
    free_cache(cfg, "ckpt")
    loaded = dataload(cfg, "ckpt")
    restore("after a DataLoad", "ckpt", f"the DataLoad: {loaded:.1f} s")
    if not cfg["short"]:
        restore("the DataLoad's blocks on node 1 only (nodes 2.. hold none)", "ckpt-node1",
                f"the DataLoad: {dataload(cfg, 'ckpt-node1'):.1f} s")
    restore("direct: every node reads the store itself (boto3)", None)
    direct = rows[-1][1]
    print()
    print(f"Checkpoint fan-out: {size / MIB:.0f} MiB in {shards} shards, {nodes} nodes, the store behind "
          f"{cfg['link_mbit']} Mbit/s ({size / link:.1f} s for one copy); each node reads every shard, {shards} at "
          "a time, through its own mount, the page cache dropped first; every byte checked.")
    print()
    print("| restore | every node has it, s | vs size / link | vs direct | store sent / size | each node, MB/s | |")
    print("|---|---:|---:|---:|---:|---|---|")
    for row in rows:
        label, every, one_copy, sent_ratio, rates, note = row
        print(f"| {label} | {every:.1f} | {every / one_copy:.2f} | {direct / every:.2f}x | {sent_ratio:.2f} | "
              f"{', '.join(f'{r:.0f}' for r in rates)} | {note} |")


# --- 2. failover ----------------------------------------------------------------------------------------------------

class Reader(threading.Thread):
    """A job's reader: the dataset's files in a shuffled order, pass after pass, one at a time, each file's page cache
    dropped first; every read recorded (when it ended, its bytes, whether it failed or had wrong bytes)."""

    def __init__(self, root, manifest, seed):
        super().__init__(daemon=True)
        self.root, self.manifest, self.rng = root, manifest, random.Random(seed)
        self.reads, self.stop = [], threading.Event()

    def run(self):
        keys = sorted(self.manifest)
        while not self.stop.is_set():
            self.rng.shuffle(keys)
            for key in keys:
                if self.stop.is_set():
                    return
                started = time.time()
                try:
                    with open(os.path.join(self.root, key), "rb") as f:
                        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
                        body = f.read()
                    ok = hashlib.sha256(body).hexdigest() == self.manifest[key]
                    self.reads.append((time.time(), len(body), "ok" if ok else "wrong", started))
                except OSError as e:  # a DataLoader worker dies on it
                    self.reads.append((time.time(), 0, repr(e), started))
                    time.sleep(0.1)


def rate(reads, start, end):
    return sum(r[1] for r in reads if start <= r[0] < end and r[2] == "ok") / (end - start)


def back_at(reads, fault, until, full, window=2.0, step=0.25):
    """Seconds after the fault until the reader read at 0.8 of its full speed over a whole window; None if never."""
    t = fault
    while t + window <= until:
        if rate(reads, t, t + window) >= 0.8 * full:
            return t - fault
        t += step
    return None


def pid_of(cfg, name):
    with open(os.path.join(cfg["run"], f"{name}.pid")) as f:
        return int(f.read())


def wait_healthy(cfg, name, seconds=120):
    chaos.wait_for(lambda: any(line.startswith(name + " ") and " healthy " in line
                               for line in granary(cfg, "status", check=False).stdout.splitlines()),
                   seconds, f"{name} healthy")


def failover(cfg, cases):
    manifest = load(os.path.join(cfg["work"], "manifest.json"))["frames"]
    print()
    print(f"Failover: a reader on node 1 reads {len(manifest)} files through node 1's mount, one at a time in a shuffled "
          "order, pass after pass (the dataset preloaded); then the fault. Full speed: its rate in the "
          f"{cfg['baseline_seconds']} s before it; back: the first {2:.0f} s window at 0.8 of it or more.")
    print()
    print("| fault | full speed, MB/s | back at full speed after, s | reads failed | wrong bytes | store sent meanwhile, "
          "MiB | slowest read, s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    failures = []
    for case in cases:
        free_cache(cfg, "frames")
        dataload(cfg, "frames")
        root = mount(cfg, "frames", 1, f"frames-{case}")
        reader = Reader(root, manifest, 39)
        reader.start()
        time.sleep(cfg["baseline_seconds"])
        fault = time.time()
        full = rate(reader.reads, fault - cfg["baseline_seconds"] + 2, fault)
        sent = store_sent(cfg)
        moved = None
        if case == "a":
            label = "(a) node 1's worker killed (SIGKILL; restarted by its supervisor)"
            os.kill(pid_of(cfg, "block-service@node-1"), 9)
        elif case == "b":
            label = "(b) node 1's FUSE client killed (SIGKILL; restarted, it mounts again)"
            client = subprocess.run(["pgrep", "-f", f"granary.fuse.mount-point={root}( |$)"], capture_output=True,
                                    text=True).stdout.split()
            if not client:
                sys.exit(f"scenarios: no FUSE client for {root}")
            os.kill(int(client[0]), 9)
        else:
            label = "(c) node 1 cut off; the job moves to node 2 (a new mount there)"
            subprocess.run(["ip", "-n", node_netns(1), "link", "set", "eth0", "down"], check=True)
            reader.stop.set()
            moved = Reader(mount(cfg, "frames", 2, "frames-moved"), manifest, 40)
            moved.start()
        time.sleep(cfg["after_seconds"])
        end = time.time()
        now = moved or reader
        now.stop.set()
        if case == "c":
            subprocess.run(["ip", "-n", node_netns(1), "link", "set", "eth0", "up"], check=True)
        # The cut node's reader is not the job's any more once it moved: only the moved reader's reads count.
        reads = moved.reads if moved else [r for r in reader.reads if r[0] >= fault]
        failed = sum(1 for r in reads if r[2] not in ("ok", "wrong"))
        wrong = sum(1 for r in reads if r[2] == "wrong")
        back = back_at(now.reads, fault, end, full)
        slowest = max((r[0] - max(r[3], fault) for r in reads), default=0)
        print(f"| {label} | {full / 1e6:.0f} | {'not within ' + str(cfg['after_seconds']) + ' s' if back is None else f'{back:.1f}'} | "
              f"{failed} | {wrong} | {(store_sent(cfg) - sent) / MIB:.1f} | {slowest:.1f} |", flush=True)
        if failed or wrong:
            errors = sorted({r[2] for r in reads if r[2] != "ok"})
            print(f"scenarios: {label}: {errors[:3]}", file=sys.stderr)
        if (failed or wrong) and case in ("a", "c"):
            failures.append(label)
        for name in ("frames-" + case,) + (("frames-moved",) if moved else ()):
            granary(cfg, "unmount", os.path.join(cfg["work"], "mnt", name), check=False)
        if case != cases[-1]:  # the next case starts from a whole cluster
            for service in ("block-service@node-1", "block-service@node-2", "gateway@node-1"):
                wait_healthy(cfg, service)
    if failures:  # the goal: no read fails when a worker dies or a node is cut off
        sys.exit(f"scenarios: reads failed or had wrong bytes in {', '.join(failures)}")


# --- 3. training ----------------------------------------------------------------------------------------------------

def epoch(cfg, root, seed, compute, spec, digest):
    """One epoch: (seconds, the seconds it waited for data); exits unless it read every file's bytes."""
    out = subprocess.run([cfg["torch_python"], os.path.join(cfg["root"], "bench", "posix.py"), "epoch", root,
                          "--drop", "--seed", str(seed), "--compute", str(compute)],
                         check=True, capture_output=True, text=True).stdout.split()
    files, size, read = int(out[0]), int(out[1]), out[3]
    if files != spec["files"] or size != spec["files"] * spec["bytes"] or read != digest:
        sys.exit(f"scenarios: an epoch over {root} read {files} files, {size} bytes, digest {read} (not {digest})")
    return float(out[2]), float(out[4]) if len(out) > 4 else 0.0


def training(cfg):
    """Epochs of a PyTorch DataLoader with a stand-in GPU (a sleep per batch) on node 1, through s3fs on the store
    (run in node 1's namespace, so it reads over the store's link) and through Granary's mount."""
    s3fs = os.path.join(cfg["work"], "mnt", "s3fs")
    digests = load(os.path.join(cfg["work"], "digests.json"))
    rows = []
    for dataset in ("train", "big"):
        spec = cfg["datasets"][dataset]
        if dataset == "big":
            free_cache(cfg, "train")  # the whole cache is big's: twice it, not twice what train leaves
        direct = mount_s3fs(cfg, dataset, f"{s3fs}-{dataset}")
        granary_root = mount(cfg, dataset, 1, f"{dataset}-training")
        if dataset == "train":
            # The GPU's time per batch: half of what s3fs takes to bring a batch, so the direct job's GPU waits
            # about half the time, as the issue sizes it. Taken from s3fs's second epoch: its first also fills
            # s3fs's own stat cache (4.1 s against 3.1-3.7 measured), and sized from it the GPU waited 36-42%.
            for calibration in (0, 1):
                seconds, _ = epoch(cfg, direct, calibration, 0.0, spec, digests[dataset])
            compute = seconds / -(-spec["files"] // 64) / 2
            print(f"scenarios: s3fs epoch without compute {seconds:.1f} s: the GPU's time per batch "
                  f"{compute * 1000:.0f} ms", file=sys.stderr)
        runs = [("s3fs on the store (no cache)", direct, 2, None)]
        if dataset == "train":
            runs += [("Granary, cold (no preload)", granary_root, 3, "free"),
                     ("Granary, after a DataLoad", granary_root, 4, "load")]
        else:
            runs += [(f"Granary, epoch {e}", granary_root, 2 + e, "free" if e == 1 else None) for e in (1, 2, 3)]
        for label, root, seed, before in runs:
            note = ""
            if before == "free":
                free_cache(cfg, dataset)
            elif before == "load":
                free_cache(cfg, dataset)
                note = f"the DataLoad: {dataload(cfg, dataset):.1f} s"
            sent = store_sent(cfg)
            seconds, waited = epoch(cfg, root, seed, compute, spec, digests[dataset])
            rows.append((dataset, label, seconds, spec["files"] / seconds, waited / seconds,
                         (store_sent(cfg) - sent) / (spec["files"] * spec["bytes"]), note))
        if dataset == "train":
            # The limit: the same job over a copy of the files in memory, no filesystem between it and its data.
            # What the GPU waits there is the DataLoader's own (its workers' start, the last short batch).
            copy = tempfile.mkdtemp(dir="/dev/shm", prefix="granary-limit-")
            try:
                shutil.copytree(granary_root, copy, dirs_exist_ok=True)
                seconds, waited = epoch(cfg, copy, 5, compute, spec, digests[dataset])
            finally:
                shutil.rmtree(copy)
            rows.append((dataset, "limit: a copy in memory (tmpfs)", seconds, spec["files"] / seconds,
                         waited / seconds, None, "no filesystem: the job's own bound"))
        rows.append(None)
    print()
    print(f"Training: a PyTorch DataLoader (4 workers, shuffled, batches of 64, the page cache dropped) on node 1 with "
          f"a stand-in GPU of {compute * 1000:.0f} ms a batch; train: {cfg['datasets']['train']['files']} x "
          f"{cfg['datasets']['train']['bytes'] >> 10} KiB (fits the cache), big: {cfg['datasets']['big']['files']} x "
          f"{cfg['datasets']['big']['bytes'] >> 10} KiB (about twice the cache); both cached on node 1 only (their "
          f"nodeSelector: the job's node, as the scheduler-hook's affinity places it); the store behind "
          f"{cfg['link_mbit']} Mbit/s.")
    print()
    print("| dataset | epoch | seconds | files/s | vs s3fs | GPU waited | store sent / dataset | |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    base = None
    for row in rows:
        if row is None:
            base = None
            continue
        dataset, label, seconds, files_per_s, waited, sent, note = row
        base = base or seconds
        print(f"| {dataset} | {label} | {seconds:.1f} | {files_per_s:.0f} | {base / seconds:.2f}x | {waited:.0%} | "
              f"{'-' if sent is None else f'{sent:.2f}'} | {note} |")


def mount_s3fs(cfg, bucket, path):
    os.makedirs(path, exist_ok=True)
    passwd = os.path.join(cfg["work"], "s3fs.passwd")
    with open(os.open(passwd, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(f"{cfg['store_access']}:{cfg['store_secret']}\n")
    subprocess.run(["nsenter", f"--net=/run/netns/{node_netns(1)}", "s3fs", bucket, path, "-o", f"url={cfg['store']}",
                    "-o", "use_path_request_style", "-o", "endpoint=us-east-1", "-o", f"passwd_file={passwd}"],
                   check=True)
    chaos.wait_for(lambda: os.path.ismount(path), 30, f"s3fs mounted at {path}")
    return path


def main():
    command, rest = sys.argv[1], sys.argv[2:]
    if command == "read-files":
        read_files(int(rest[0]), rest[1:])
        return
    cfg = load(rest[0])
    cfg["config"] = rest[0]
    if command == "read-s3":
        read_s3(cfg, rest[1], int(rest[2]), rest[3:])
    elif command == "setup":
        setup(cfg)
    elif command == "fanout":
        fanout(cfg)
    elif command == "failover":
        failover(cfg, rest[1:])
    elif command == "training":
        training(cfg)
    else:
        sys.exit(f"scenarios.py: no command {command}")


if __name__ == "__main__":
    main()
