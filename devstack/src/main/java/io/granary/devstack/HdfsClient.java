package io.granary.devstack;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The direct baseline of {@code bench/hdfs.sh}: a plain Hadoop client, as a training job reading HDFS itself
 * would use, writing the fixtures and reading them back. Runs on the HDFS child's classpath.
 *
 * <pre>
 * HdfsClient put  hdfs://127.0.0.1:8020 /bench  LARGE_MIB FILES KIB   (large/object.bin, small/part-NNN/sample-NNNNN.bin)
 * HdfsClient read hdfs://127.0.0.1:8020 DIR THREADS ROUNDS           every file under DIR, THREADS at once, ROUNDS
 *                                                                     times in this JVM: prints "files bytes seconds"
 *                                                                     of the fastest round
 * </pre>
 */
public final class HdfsClient {

    private static final int BUFFER = 1 << 20;

    private HdfsClient() {
    }

    public static void main(String[] args) throws Exception {
        Configuration conf = new Configuration();
        conf.setInt("dfs.replication", 1);
        // Ask after 20 ms, not Hadoop's 400, whether a closed file's last block has reached the NameNode.
        conf.setInt("dfs.client.block.write.locateFollowingBlock.initial.delay.ms", 20);
        try (FileSystem fs = FileSystem.newInstance(URI.create(args[1]), conf)) {
            switch (args[0]) {
                case "put" -> put(fs, new Path(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                        Integer.parseInt(args[5]));
                case "read" -> read(fs, new Path(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
                default -> throw new IllegalArgumentException("usage: HdfsClient put|read ...");
            }
        }
    }

    private static void put(FileSystem fs, Path root, int largeMib, int files, int kib) throws IOException {
        Random random = new Random(42);
        byte[] chunk = new byte[BUFFER];
        try (FSDataOutputStream out = fs.create(new Path(root, "large/object.bin"))) {
            for (int i = 0; i < largeMib; i++) {
                random.nextBytes(chunk);
                out.write(chunk);
            }
        }
        byte[] sample = new byte[kib * 1024];
        for (int i = 0; i < files; i++) {
            random.nextBytes(sample);
            try (FSDataOutputStream out = fs.create(new Path(root,
                    "small/part-%03d/sample-%05d.bin".formatted(i / 500, i)))) {
                out.write(sample);
            }
        }
    }

    /** The first round also compiles the client's read path: the best round is what a running job sees. */
    private static void read(FileSystem fs, Path dir, int threads, int rounds) throws Exception {
        List<Path> files = new ArrayList<>();
        RemoteIterator<LocatedFileStatus> listing = fs.listFiles(dir, true);
        while (listing.hasNext()) {
            files.add(listing.next().getPath());
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        double best = Double.MAX_VALUE;
        long total = 0;
        try {
            for (int round = 0; round < rounds; round++) {
                long start = System.nanoTime();
                total = readAll(pool, fs, files);
                best = Math.min(best, (System.nanoTime() - start) / 1e9);
            }
        } finally {
            pool.shutdown();
        }
        System.out.printf("%d %d %.3f%n", files.size(), total, best);
    }

    private static long readAll(ExecutorService pool, FileSystem fs, List<Path> files) throws Exception {
        List<Future<Long>> reads = new ArrayList<>();
        for (Path file : files) {
            reads.add(pool.submit(() -> {
                byte[] buffer = new byte[BUFFER];
                long bytes = 0;
                try (FSDataInputStream in = fs.open(file)) {
                    for (int n; (n = in.read(buffer)) > 0; ) {
                        bytes += n;
                    }
                }
                return bytes;
            }));
        }
        long bytes = 0;
        for (Future<Long> read : reads) {
            bytes += read.get();
        }
        return bytes;
    }
}
