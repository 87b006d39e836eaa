#!/usr/bin/env python3
"""Where a process's CPU went in a pass, from async-profiler's collapsed stacks (bench/lib.sh profile_stop).

    bench/profile.py PROFILE.collapsed [FILES]

Each sample is put in the first group (top of this list first) any frame of its stack matches, so a group is the
time spent in it and in everything it called. With FILES, the samples (1 ms of CPU each) are also shown per file.
"""
import sys

# (group, substrings of a frame that put a sample in it), first match wins: most specific first.
GROUPS = [
    ("JIT compiler", ["CompileBroker", "C2Compiler", "Compilation::"]),
    ("GC", ["GCTaskThread", "G1", "SerialHeap", "GenCollectedHeap", "ParallelScavenge", "VM_GC"]),
    ("Kafka client", ["org/apache/kafka", "org.apache.kafka"]),
    ("SigV4 (signing or verifying)", ["Signer", "SigV4", "AwsV4", "Signature"]),
    ("under-store client (MinIO SDK, OkHttp)", ["io/minio", "io.minio", "okhttp3", "okio"]),
    ("block file install (sidecar, seal, rename)", ["BlockFileWriter.install", "Sidecar", "BlockWriter.commit"]),
    ("block file write, checksum", ["BlockWriter.write", "CRC32C"]),
    ("fill bookkeeping (reserve, evict, index)", ["BlockStore", "BlockFiller", "Level.reserve"]),
    ("followed fill (file polled and sent)", ["FollowedFill", "FillStream"]),
    ("S3 request handling (routing, auth, lookups)", ["io/granary/gateway/s3", "io.granary.gateway.s3"]),
    ("metadata (near cache, REST client, JSON)", ["NearCache", "MetadataClient", "jackson", "resteasy"]),
    ("block client and reads (gateway)", ["io/granary/gateway/read", "io.granary.gateway.read",
                                          "io/granary/kit/client", "io.granary.kit.client"]),
    ("worker routes", ["io/granary/block/rest", "io.granary.block.rest"]),
    ("metrics", ["micrometer"]),
    ("Infinispan, JGroups", ["infinispan", "jgroups"]),
    ("other Granary code", ["io/granary", "io.granary"]),
    ("Netty, Vert.x (HTTP, event loop)", ["io/netty", "io.netty", "io/vertx", "io.vertx"]),
]


def main():
    path = sys.argv[1]
    files = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    totals = {}
    kernel_only = 0
    all_samples = 0
    for line in open(path):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        samples = int(count)
        all_samples += samples
        for group, needles in GROUPS:
            if any(needle in stack for needle in needles):
                totals[group] = totals.get(group, 0) + samples
                break
        else:
            if all(frame.endswith("_[k]") for frame in stack.split(";")[1:]):
                kernel_only += samples
            else:
                totals["other (JVM, libraries)"] = totals.get("other (JVM, libraries)", 0) + samples
    if kernel_only:
        totals["kernel, no Java frame"] = kernel_only
    print(f"{path}: {all_samples} samples")
    for group, samples in sorted(totals.items(), key=lambda item: -item[1]):
        per_file = f"  {samples * 1000 / files:7.0f} us/file" if files else ""
        print(f"  {samples * 100 / all_samples:5.1f}%  {group}{per_file}")


if __name__ == "__main__":
    main()
