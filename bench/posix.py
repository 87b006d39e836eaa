#!/usr/bin/env python3
"""POSIX reads for the benchmarks, as training code makes them. Run with the Python that has torch (Debian's
python3-torch is /usr/bin/python3's).

  posix.py epoch DIR [--workers 4] [--batch 64] [--drop] [--seed 7]
      one PyTorch DataLoader epoch over every file under DIR, shuffled by a generator seeded with --seed (give each
      epoch of a run its own, as a DataLoader's generator moves on from epoch to epoch); prints files, bytes,
      seconds and a digest of the bytes that does not depend on their order (to check that every mount gave the
      same bytes); with --compute S, a stand-in GPU: S seconds of sleep per batch, and a fifth field, the seconds the
      loop waited for batches
  posix.py drop PATH...
      drops the kernel's page cache of the files (or of every file under the directories), so the next read goes
      to the filesystem and not to memory
  posix.py dd FILE
      reads FILE with dd bs=1M from a cold page cache; prints bytes and seconds

--drop before an epoch: its files' page cache is dropped first (not timed), so the epoch measures the filesystem.
"""
import argparse, os, subprocess, sys, time, zlib


def files_under(root):
    return sorted(os.path.join(d, f) for d, _, names in os.walk(root) for f in names)


def drop(paths):
    for path in paths:
        for file in files_under(path) if os.path.isdir(path) else [path]:
            fd = os.open(file, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def epoch(args):
    import numpy, torch, warnings
    from torch.utils.data import DataLoader, Dataset

    class Files(Dataset):  # what an image dataset's __getitem__ does before decoding: read the whole file
        def __init__(self, paths):
            self.paths = paths

        def __len__(self):
            return len(self.paths)

        def __getitem__(self, i):
            with open(self.paths[i], "rb") as f:
                data = f.read()
            return torch.from_numpy(numpy.frombuffer(data, dtype=numpy.uint8).copy()), len(data), zlib.crc32(data)

    warnings.filterwarnings("ignore", message="This DataLoader will create")  # 4 workers on 2 cores, on purpose
    paths = files_under(args.dir)
    if not paths:
        sys.exit(f"posix.py: no files under {args.dir}")
    if args.drop:
        drop([args.dir])
    sampler = None
    if args.plan:  # the same order, told to Granary first: the one line a training script changes
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python"))
        from granary_sampler import GranarySampler
        from torch.utils.data import RandomSampler
        sampler = GranarySampler(RandomSampler(paths, generator=torch.Generator().manual_seed(args.seed)),
                                 files=paths, dataset=args.plan, prefix=args.dir, job="bench")
        sampler.set_epoch(args.seed)
        loader = DataLoader(Files(paths), batch_size=args.batch, sampler=sampler, num_workers=args.workers,
                            collate_fn=collate)
    else:
        loader = DataLoader(Files(paths), batch_size=args.batch, shuffle=True, num_workers=args.workers,
                            generator=torch.Generator().manual_seed(args.seed), collate_fn=collate)
    start = time.perf_counter()
    files = size = digest = 0
    waited = 0.0
    batches = iter(loader)
    while True:
        asked = time.perf_counter()
        batch = next(batches, None)
        waited += time.perf_counter() - asked
        if batch is None:
            break
        tensors, sizes, crcs = batch
        files += len(tensors)
        size += sum(sizes)
        digest = (digest + sum(crcs)) % (1 << 64)
        if args.compute:
            time.sleep(args.compute)  # the GPU's step: the loader's workers go on reading meanwhile
    if sampler is not None and sampler.last_plan_id is None:
        sys.exit("posix.py: the epoch's plan was not published")
    print(files, size, f"{time.perf_counter() - start:.3f}", f"{digest:016x}", *([f"{waited:.3f}"] if args.compute else []))


def collate(samples):
    """A batch as PyTorch's default collate makes it: samples of one size stacked into one tensor, which crosses from
    a worker to the loop as one shared-memory segment. Samples of several sizes stay a list, as a detection or text
    loader keeps them: 64 tensors a batch took the loop 9-13 ms to take in, and a warm epoch ran at half the rate."""
    import torch
    tensors, sizes, crcs = zip(*samples)
    batch = torch.stack(tensors) if len(set(sizes)) == 1 else list(tensors)
    return batch, list(sizes), list(crcs)


def dd(file):
    drop([file])
    out = subprocess.run(["dd", f"if={file}", "of=/dev/null", "bs=1M"], capture_output=True, text=True, check=True)
    last = out.stderr.strip().splitlines()[-1]  # "N bytes (...) copied, S s, R MB/s"
    print(last.split()[0], last.split(", ")[-2].split()[0])


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("epoch")
    one.add_argument("dir")
    one.add_argument("--workers", type=int, default=4)
    one.add_argument("--batch", type=int, default=64)
    one.add_argument("--drop", action="store_true")
    one.add_argument("--seed", type=int, default=7)
    one.add_argument("--compute", type=float, default=0.0, metavar="SECONDS", help="a stand-in GPU's time per batch")
    one.add_argument("--plan", metavar="DATASET", help="publish each epoch's order to Granary (GranarySampler)")
    commands.add_parser("drop").add_argument("paths", nargs="+")
    commands.add_parser("dd").add_argument("file")
    args = parser.parse_args()
    if args.command == "epoch":
        epoch(args)
    elif args.command == "drop":
        drop(args.paths)
    else:
        dd(args.file)


if __name__ == "__main__":
    main()
