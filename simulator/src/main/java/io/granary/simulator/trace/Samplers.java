package io.granary.simulator.trace;

import io.granary.block.store.BlockKey;
import io.granary.contracts.block.BlockId;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Traces of training jobs, as PyTorch's samplers order a dataset's files each epoch: {@code RandomSampler} (a new
 * permutation every epoch, from one seeded generator) and {@code DistributedSampler} (the permutation of
 * {@code seed + epoch}, padded to a multiple of the ranks, rank r reading every world-th file from r). The
 * permutations are drawn by Fisher-Yates from a seeded Java generator: the same kind of order as PyTorch's, not its
 * very numbers. A file of several blocks is read block after block.
 */
public final class Samplers {

    private Samplers() {
    }

    /** The blocks of {@code files} files of {@code blocksPerFile} blocks each, of one dataset. */
    public static BlockKey[] dataset(String name, int files, int blocksPerFile) {
        BlockKey[] keys = new BlockKey[files * blocksPerFile];
        for (int file = 0; file < files; file++) {
            String hash = BlockId.fileHash(name, "f-" + file, "e");
            for (int block = 0; block < blocksPerFile; block++) {
                keys[file * blocksPerFile + block] = new BlockKey(name, new BlockId(hash, block));
            }
        }
        return keys;
    }

    /** One job with {@code shuffle=True}: every epoch a fresh permutation of the files. */
    public static Trace randomSampler(int files, int blocksPerFile, int epochs, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        TraceBuilder trace = new TraceBuilder(dataset("ds", files, blocksPerFile), blocksPerFile);
        for (int epoch = 0; epoch < epochs; epoch++) {
            trace.epoch();
            for (int file : permutation(files, random)) {
                trace.file(0, file);
            }
        }
        return trace.build("RandomSampler, " + files + " files x " + blocksPerFile + " blocks");
    }

    /** One job of {@code world} ranks on this cache node, each rank's reads interleaved with the others'. */
    public static Trace distributedSampler(int files, int blocksPerFile, int epochs, long seed, int world) {
        TraceBuilder trace = new TraceBuilder(dataset("ds", files, blocksPerFile), blocksPerFile);
        int perRank = (files + world - 1) / world;
        for (int epoch = 0; epoch < epochs; epoch++) {
            trace.epoch();
            int[] order = permutation(files, new SplittableRandom(seed + epoch));
            // Padded with the permutation's head, as DistributedSampler pads to a multiple of the world size.
            for (int step = 0; step < perRank; step++) {
                for (int rank = 0; rank < world; rank++) {
                    trace.file(0, order[(step * world + rank) % files]);
                }
            }
        }
        return trace.build("DistributedSampler, " + world + " ranks, " + files + " files x " + blocksPerFile
                + " blocks");
    }

    /** Two jobs reading one dataset at once, each in its own order (different seeds), read for read. */
    public static Trace twoJobs(int files, int blocksPerFile, int epochs, long seedA, long seedB) {
        SplittableRandom a = new SplittableRandom(seedA);
        SplittableRandom b = new SplittableRandom(seedB);
        TraceBuilder trace = new TraceBuilder(dataset("ds", files, blocksPerFile), blocksPerFile);
        for (int epoch = 0; epoch < epochs; epoch++) {
            trace.epoch();
            int[] first = permutation(files, a);
            int[] second = permutation(files, b);
            for (int i = 0; i < files; i++) {
                trace.file(0, first[i]);
                trace.file(0, second[i]);
            }
        }
        return trace.build("two jobs on one dataset, " + files + " files x " + blocksPerFile + " blocks");
    }

    /**
     * A job's epochs over one dataset, and in its second epoch a scan of another dataset of {@code scanFiles} files
     * read once (an evaluation set, a one-off export), its reads between the job's.
     */
    public static Trace scanAmongEpochs(int files, int blocksPerFile, int epochs, long seed, int scanFiles) {
        BlockKey[] job = dataset("ds", files, blocksPerFile);
        TraceBuilder trace = new TraceBuilder(both(job, dataset("scan", scanFiles, blocksPerFile)), blocksPerFile);
        SplittableRandom random = new SplittableRandom(seed);
        for (int epoch = 0; epoch < epochs; epoch++) {
            trace.epoch();
            int[] order = permutation(files, random);
            int scanned = 0;
            for (int i = 0; i < files; i++) {
                trace.file(0, order[i]);
                // Spread over the epoch: one scanned file after each (files / scanFiles) of the job's.
                while (epoch == 1 && scanned < scanFiles && (long) scanned * files <= (long) i * scanFiles) {
                    trace.file(job.length, scanned++);
                }
            }
        }
        return trace.build("epochs, and a scan of " + scanFiles + " other files in epoch 2, " + files
                + " files x " + blocksPerFile + " blocks");
    }

    /**
     * One job's epochs over a dataset, then another job's over a second dataset of the same size, the first never
     * read again: a cache must let the first go. Epochs are the second job's, after the first job's.
     */
    public static Trace oneJobAfterAnother(int files, int blocksPerFile, int epochs, long seed) {
        BlockKey[] first = dataset("first", files, blocksPerFile);
        TraceBuilder trace = new TraceBuilder(both(first, dataset("second", files, blocksPerFile)), blocksPerFile);
        SplittableRandom random = new SplittableRandom(seed);
        for (int job = 0; job < 2; job++) {
            for (int epoch = 0; epoch < epochs; epoch++) {
                trace.epoch();
                for (int file : permutation(files, random)) {
                    trace.file(job * first.length, file);
                }
            }
        }
        return trace.build("one job, then another on a second dataset, " + files + " files x " + blocksPerFile
                + " blocks each");
    }

    /**
     * Two jobs at once, each over a dataset of its own, their reads taking turns, the second joining after the
     * first's first epoch (when the first has filled the cache): what a share of the cache per dataset is for.
     * Epochs are the first job's.
     */
    public static Trace twoDatasets(int files, int blocksPerFile, int epochs, long seedA, long seedB) {
        BlockKey[] first = dataset("first", files, blocksPerFile);
        TraceBuilder trace = new TraceBuilder(both(first, dataset("second", files, blocksPerFile)), blocksPerFile);
        SplittableRandom a = new SplittableRandom(seedA);
        SplittableRandom b = new SplittableRandom(seedB);
        for (int epoch = 0; epoch < epochs; epoch++) {
            trace.epoch();
            int[] orderA = permutation(files, a);
            int[] orderB = epoch == 0 ? null : permutation(files, b);
            for (int i = 0; i < files; i++) {
                trace.file(0, orderA[i]);
                if (orderB != null) {
                    trace.file(first.length, orderB[i]);
                }
            }
        }
        return trace.build("two jobs at once on two datasets, the second from epoch 2, " + files + " files x "
                + blocksPerFile + " blocks each");
    }

    /** The blocks of two datasets, the first's first: a read of the second's block i is key first.length + i. */
    private static BlockKey[] both(BlockKey[] first, BlockKey[] second) {
        BlockKey[] keys = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, keys, first.length, second.length);
        return keys;
    }

    /** A permutation of 0..n-1, Fisher-Yates. */
    static int[] permutation(int n, SplittableRandom random) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int swap = order[i];
            order[i] = order[j];
            order[j] = swap;
        }
        return order;
    }

    /** Reads appended file by file, epochs marked as they begin. */
    static final class TraceBuilder {

        private final BlockKey[] keys;
        private final int blocksPerFile;
        private int[] reads = new int[1 << 16];
        private int size;
        private final List<Integer> epochStarts = new ArrayList<>();

        TraceBuilder(BlockKey[] keys, int blocksPerFile) {
            this.keys = keys;
            this.blocksPerFile = blocksPerFile;
        }

        void epoch() {
            epochStarts.add(size);
        }

        /** The blocks of file {@code file} of the dataset whose first block is {@code keys[base]}. */
        void file(int base, int file) {
            for (int block = 0; block < blocksPerFile; block++) {
                read(base + file * blocksPerFile + block);
            }
        }

        void read(int key) {
            if (size == reads.length) {
                reads = java.util.Arrays.copyOf(reads, reads.length * 2);
            }
            reads[size++] = key;
        }

        Trace build(String name) {
            return new Trace(name, keys, java.util.Arrays.copyOf(reads, size),
                    epochStarts.stream().mapToInt(Integer::intValue).toArray());
        }
    }
}
